// The Xbox token actor: the one place that holds the linked account's chain of tokens and
// hands offers a GameServerToken for our identity key.
//
// It reads the sealed link from the store (storage/xbox_records) and opens it with the
// operator's secrets key, runs the chain (net/upstream/xbox_chain) when no held token is good
// (net/xbox/timing's rule), and answers every offer that asked meanwhile with the one result.
// A refresh token that rotated is sealed and stored at once. When the chain fails, the failure
// is the operator's: offers go self-signed with the reason (offer_identity::link_problem), a
// sampled log line and a metric say so, and the chain is not tried again before retry_after,
// so a broken link costs no time per offer. A link held is read again every link_recheck, and
// without one every offer looks, so xbox-login and xbox-logout on a running service take
// effect without a restart.
//
// Replicas on a shared store (Redis) share the GameServerToken: a replica whose token is due
// first takes one another renewed (sealed, storage::shared_store's value "xbox-tokens"); when
// there is none, the replica that takes the lease "xbox-renewal" renews, re-reading the link
// first since another replica may have rotated the refresh token, and shares the result; the
// others look again every shared_poll until it is there or shared_wait has passed. So one
// chain runs per expiry however many replicas there are.
//
// Renewals and store writes happen one at a time on this actor; spawn it detached, since the
// store's calls block.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include "actors/messages.hpp"
#include "base/sealed.hpp"
#include "net/upstream/xbox_chain.hpp"
#include "net/xbox/chain.hpp"
#include "storage/shared_store.hpp"
#include "storage/store.hpp"

namespace netherscope::actors {

namespace upstream = net::upstream;
namespace xbox = net::xbox;

/// What the token actor needs.
struct xbox_token_settings {
  std::shared_ptr<storage::store> store;
  /// The operator's secrets key; without one no link can be opened and offers go self-signed.
  std::optional<base::secrets_key> key;
  /// Runs the chain's requests; without one offers go self-signed.
  std::shared_ptr<upstream::xbox_chain> chain;
  /// The DER SubjectPublicKeyInfo of our P-384 identity key, which the GameServerToken names.
  std::string identity_spki_der;
  /// How long after a failed renewal the chain is not tried again.
  std::chrono::milliseconds retry_after{60000};
  /// How long a link read from the store is believed; without one, each offer reads again.
  std::chrono::milliseconds link_recheck{30000};
  /// The store replicas share; without one this replica renews for itself alone.
  std::shared_ptr<storage::shared_store> shared;
  /// How long offers wait for another replica's renewal before they go self-signed.
  std::chrono::milliseconds shared_wait{10000};
  /// How often a replica that waits looks for the tokens another one renews.
  std::chrono::milliseconds shared_poll{250};
  /// The renewal lease's life: longer than a whole chain takes, short enough that a replica
  /// that died holding it delays renewals by no more.
  std::chrono::milliseconds lease_ttl{120000};
  /// The clock, as Unix milliseconds; the system clock when empty.
  std::function<std::int64_t()> now_ms;
};

/// State of the token actor.
struct xbox_token_state {
  static inline const char* name = "xbox_token";
  xbox_token_settings settings;
  /// The sealed link last read or written, to notice another writer (a replica's rotation,
  /// xbox-login, xbox-logout); empty when none is stored.
  std::string sealed;
  /// When the store was last read, Unix ms; 0 before the first read.
  std::int64_t read_at_ms = 0;
  /// The link and the tokens held; nullopt when no account is linked or it cannot be opened.
  std::optional<xbox::chain_state> chain;
  /// Why offers go self-signed although an account is linked; empty when none.
  std::string problem;
  /// No renewal starts before this time (after a failure), Unix ms.
  std::int64_t retry_at_ms = 0;
  bool renewing = false;
  /// This replica's name on the renewal lease (random).
  std::string owner;
  /// Whether this replica holds the renewal lease for the renewal in progress.
  bool leased = false;
  /// While another replica renews: until when offers wait for it, Unix ms; 0 otherwise.
  std::int64_t wait_until_ms = 0;
  /// Offers waiting for the renewal in progress.
  std::vector<caf::typed_response_promise<offer_identity>> waiters;
};

/// The identity the held state gives offers now: signed in when its GameServerToken is good
/// for spki_der at now_ms, self-signed (with problem) otherwise.
offer_identity identity_from(const xbox::chain_state& state, std::string_view spki_der,
                             std::int64_t now_ms, const std::string& problem);

/// Implements xbox_token_actor; spawn it detached.
xbox_token_actor::behavior_type
xbox_token(xbox_token_actor::stateful_pointer<xbox_token_state> self,
           xbox_token_settings settings);

} // namespace netherscope::actors
