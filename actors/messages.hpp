// The vocabulary of the actor system: atoms, how each message type is inspected, and the
// typed actor interfaces.
//
// The message types themselves are plain structs in net/api/, shared with the HTTP edge and
// the store; this header adds only what CAF needs, so the whole protocol between actors can
// be read in one place. Nothing here knows about HTTP: the edge maps these values to statuses.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "net/api/call.hpp"
#include "net/api/failure.hpp"
#include "net/api/quota.hpp"
#include "net/api/reachability.hpp"
#include "net/api/results.hpp"
#include "net/api/target.hpp"
#include "net/api/target_memory.hpp"

namespace netherscope {

// -- atoms --------------------------------------------------------------------

using info_atom = caf::atom_constant<caf::atom("info")>;
using done_atom = caf::atom_constant<caf::atom("done")>;
using idle_atom = caf::atom_constant<caf::atom("idle")>;
using count_atom = caf::atom_constant<caf::atom("count")>;
using stop_atom = caf::atom_constant<caf::atom("stop")>;
using offer_atom = caf::atom_constant<caf::atom("offer")>;
using answer_atom = caf::atom_constant<caf::atom("answer")>;
using charge_atom = caf::atom_constant<caf::atom("charge")>;
using flush_atom = caf::atom_constant<caf::atom("flush")>;
using signin_atom = caf::atom_constant<caf::atom("signin")>;
using account_atom = caf::atom_constant<caf::atom("account")>;
using rotate_atom = caf::atom_constant<caf::atom("rotate")>;
using revoke_atom = caf::atom_constant<caf::atom("revoke")>;
using recall_atom = caf::atom_constant<caf::atom("recall")>;
using remember_atom = caf::atom_constant<caf::atom("remember")>;
using sweep_atom = caf::atom_constant<caf::atom("sweep")>;
using claim_atom = caf::atom_constant<caf::atom("claim")>;
using page_atom = caf::atom_constant<caf::atom("page")>;
using reached_atom = caf::atom_constant<caf::atom("reached")>;
using shared_atom = caf::atom_constant<caf::atom("shared")>;
using lookup_atom = caf::atom_constant<caf::atom("lookup")>;
using publish_atom = caf::atom_constant<caf::atom("publish")>;
using gate_atom = caf::atom_constant<caf::atom("gate")>;
using release_atom = caf::atom_constant<caf::atom("release")>;

// -- messages that only actors exchange ----------------------------------------

/// Who signed in, or why it failed.
struct signin_result {
  failure error;
  std::uint64_t user_id = 0;
  std::string login;
};

/// What the account page asks for.
enum class page_action : std::uint8_t {
  /// Show the account.
  view,
  /// Issue a new key (the old one is revoked), within the rotation limit.
  new_key,
  /// Revoke the active key.
  revoke,
  /// End the session.
  sign_out,
};

/// One request of the account page: its session and, for the actions that change something,
/// the form's token, which must be the session's.
struct page_request {
  /// SHA-256 of the session cookie.
  std::string session_hash;
  std::string csrf;
  page_action action = page_action::view;
};

// -- inspection ---------------------------------------------------------------

// Found by argument-dependent lookup: the types live in namespace netherscope too.

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, target& x) {
  return f(caf::meta::type_name("target"), x.host, x.port, x.tls);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, failure& x) {
  return f(caf::meta::type_name("failure"), x.code, x.message, x.http_status,
           x.body, x.nethernet_error, x.reason, x.retry_after);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, info_reply& x) {
  return f(caf::meta::type_name("info_reply"), x.error, x.status, x.tls, x.body);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, offer_reply& x) {
  return f(caf::meta::type_name("offer_reply"), x.error, x.body, x.cached, x.stale, x.age,
           x.probed);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, reach_target& x) {
  return f(caf::meta::type_name("reach_target"), x.address, x.port, x.skip);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, reach_plan& x) {
  return f(caf::meta::type_name("reach_plan"), x.valid, x.offer_ufrag, x.answer_ufrag,
           x.answer_pwd, x.candidates);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, offer_request& x) {
  return f(caf::meta::type_name("offer_request"), x.where, x.network_id, x.fresh,
           x.expect_ports, x.probe);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, quota_charge& x) {
  return f(caf::meta::type_name("quota_charge"), x.what, x.client, x.key_hash, x.mode,
           x.charged_scope, x.charged_user_id, x.charged_reset);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, quota_verdict& x) {
  return f(caf::meta::type_name("quota_verdict"), x.error, x.scope, x.limit, x.remaining,
           x.reset, x.user_id);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, account_view& x) {
  return f(caf::meta::type_name("account_view"), x.error, x.user_id, x.login, x.created,
           x.month, x.info_used, x.info_limit, x.offer_used, x.offer_limit, x.reset,
           x.usage_known, x.new_key, x.key_active, x.session, x.csrf);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, signin_result& x) {
  return f(caf::meta::type_name("signin_result"), x.error, x.user_id, x.login);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, page_request& x) {
  return f(caf::meta::type_name("page_request"), x.session_hash, x.csrf, x.action);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, target_memory& x) {
  return f(caf::meta::type_name("target_memory"), x.scheme, x.scheme_expires, x.key_sha256);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, target_memory_update& x) {
  return f(caf::meta::type_name("target_memory_update"), x.change, x.scheme, x.scheme_expires,
           x.key_sha256);
}

// -- actor interfaces ---------------------------------------------------------

/// Serves the public API; one per CAF worker, chosen round robin by the edge.
using front_actor = caf::typed_actor<caf::reacts_to<api_call>>;

/// Talks to one target (host, port, TLS mode); spawned on demand by the registry. An offer
/// takes the network id and whether to check the answer's candidates (probe).
/// It sends itself done_atom or answer_atom when a fetch completes, reached_atom when the
/// connectivity checks of an answer end, and idle_atom to check for idleness.
using probe_actor
  = caf::typed_actor<caf::replies_to<info_atom, target>::with<info_reply>,
                     caf::replies_to<offer_atom, target, std::string, bool>::with<offer_reply>,
                     caf::reacts_to<done_atom, info_reply>,
                     caf::reacts_to<answer_atom, offer_reply, reach_plan>,
                     caf::reacts_to<reached_atom, offer_reply>,
                     caf::reacts_to<idle_atom>,
                     caf::reacts_to<stop_atom>>;

/// Routes each request to the probe actor of its target and retires idle ones.
using probe_registry_actor
  = caf::typed_actor<caf::replies_to<info_atom, target>::with<info_reply>,
                     caf::replies_to<offer_atom, target, std::string, bool>::with<offer_reply>,
                     caf::reacts_to<idle_atom, probe_actor, std::uint64_t>,
                     caf::replies_to<count_atom>::with<std::uint64_t>>;

/// Holds offer results for 120 s and lets concurrent identical offers share one answer. On a
/// store shared across hosts it also asks the other replicas' cache and flight lock: its
/// shared-offers worker answers with shared_atom, the target, the probe flag, what to do
/// ("hit", "fetch", "busy": look again later, or "owned": fetch holding the lock), and for a
/// hit its body, retrieval time and probe flag (for "owned", the lock token).
using cache_actor
  = caf::typed_actor<caf::replies_to<offer_atom, offer_request>::with<offer_reply>,
                     caf::replies_to<count_atom>::with<std::uint64_t>,
                     caf::reacts_to<shared_atom, target, bool, std::string, std::string,
                                    std::int64_t, bool>>;

/// Hands a charge's verdict to an io thread where no actor waits for it: called on the quota
/// actor's thread once the charge is durable, it only moves the verdict into the call's
/// outcome and hands that on to the connection's io thread, which builds the reply. It never
/// blocks and does no other work.
using verdict_fn = std::function<void(quota_verdict&&)>;

/// Counts a call or reports where a caller stands. A charge with a verdict_fn is answered by
/// calling it instead of with a reply message (the cache-hit path of actors/edge_bridge). It
/// sends itself flush_atom to commit a batch and sweep_atom to give back idle reservations.
using quota_actor
  = caf::typed_actor<caf::replies_to<charge_atom, quota_charge>::with<quota_verdict>,
                     caf::reacts_to<charge_atom, quota_charge, verdict_fn>,
                     caf::reacts_to<flush_atom>, caf::reacts_to<sweep_atom>>;

/// Hears whether an offer may go under the per-target limit replicas share: how long to wait,
/// zero to go. Called on the gate's thread, so it must only hand the answer on.
using gate_fn = std::function<void(std::chrono::seconds)>;

/// Starts an offer to servers ("address:port") under the limit every replica on the store
/// shares, for an owner (gate_atom), and ends it (release_atom). Only a store shared across
/// hosts has one (storage::store::take_offer_slot).
using offer_gate_actor
  = caf::typed_actor<caf::reacts_to<gate_atom, std::vector<std::string>, std::string, gate_fn>,
                     caf::reacts_to<release_atom, std::vector<std::string>, std::string>>;

/// Creates accounts at sign-in, issues and revokes keys, shows an account's usage, records
/// used sign-in states, and keeps the account page's sessions. Sign-in (user id, login, the
/// SHA-256 of the browser's previous session cookie, which it ends) opens a new session; a
/// claim (decoded state, expiry) answers invalid_input for a state used before. It prunes
/// what expired when it sends itself sweep_atom.
using keys_actor = caf::typed_actor<
  caf::replies_to<signin_atom, std::uint64_t, std::string, std::string>::with<account_view>,
  caf::replies_to<claim_atom, std::string, std::int64_t>::with<failure>,
  caf::replies_to<account_atom, std::string>::with<account_view>,
  caf::replies_to<rotate_atom, std::string>::with<account_view>,
  caf::replies_to<revoke_atom, std::string>::with<account_view>,
  caf::replies_to<page_atom, page_request>::with<account_view>,
  caf::reacts_to<sweep_atom>>;

/// Runs the two provider requests of a sign-in (code, PKCE verifier); it reports their end to
/// itself (done_atom). Whether a state was used before is the keys actor's to say, in the
/// store.
using auth_actor
  = caf::typed_actor<caf::replies_to<signin_atom, std::string, std::string>::with<signin_result>,
                     caf::reacts_to<done_atom, std::uint64_t, signin_result>>;

/// Remembers per target (host, port), in the store, the scheme that answered and the identity
/// key last verified; it sweeps expired scheme records when it sends itself sweep_atom.
using memory_actor
  = caf::typed_actor<caf::replies_to<recall_atom, std::string, std::uint16_t>::with<target_memory>,
                     caf::reacts_to<remember_atom, std::string, std::uint16_t, target_memory_update>,
                     caf::reacts_to<sweep_atom>>;

} // namespace netherscope

// These messages hold callbacks and never leave the process, so they need no serialization.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(netherscope::api_call)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(netherscope::api_outcome)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(netherscope::verdict_fn)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(netherscope::gate_fn)
