// The vocabulary of the actor system: atoms, how each message type is inspected, and the
// typed actor interfaces.
//
// The message types themselves are plain structs in core/, shared with the HTTP edge and
// the store; this header and actors/inspect.hpp, which it includes, add only what CAF needs,
// so the whole protocol between actors is read in these two files. Nothing here knows about
// HTTP: the edge maps these values to statuses.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "actors/edge_leases.hpp"
#include "core/call.hpp"
#include "actors/inspect.hpp"
#include "core/failure.hpp"
#include "core/quota.hpp"
#include "core/reachability.hpp"
#include "core/results.hpp"
#include "core/target.hpp"
#include "core/target_memory.hpp"
#include "net/upstream/xbox_chain.hpp"

namespace netherscope::actors {


// -- atoms --------------------------------------------------------------------

using info_atom = caf::atom_constant<caf::atom("info")>;
using done_atom = caf::atom_constant<caf::atom("done")>;
using idle_atom = caf::atom_constant<caf::atom("idle")>;
using count_atom = caf::atom_constant<caf::atom("count")>;
using stop_atom = caf::atom_constant<caf::atom("stop")>;
using offer_atom = caf::atom_constant<caf::atom("offer")>;
using answer_atom = caf::atom_constant<caf::atom("answer")>;
using give_back_atom = caf::atom_constant<caf::atom("give_back")>;
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
using raknet_atom = caf::atom_constant<caf::atom("raknet")>;
using token_atom = caf::atom_constant<caf::atom("token")>;
using renewed_atom = caf::atom_constant<caf::atom("renewed")>;
using recheck_atom = caf::atom_constant<caf::atom("recheck")>;
using watch_atom = caf::atom_constant<caf::atom("watch")>;
using sync_atom = caf::atom_constant<caf::atom("sync")>;
using record_atom = caf::atom_constant<caf::atom("record")>;
using history_atom = caf::atom_constant<caf::atom("history")>;
using tick_atom = caf::atom_constant<caf::atom("tick")>;
using latest_atom = caf::atom_constant<caf::atom("latest")>;
using alert_atom = caf::atom_constant<caf::atom("alert")>;
using test_atom = caf::atom_constant<caf::atom("test")>;
using delivered_atom = caf::atom_constant<caf::atom("delivered")>;
using retry_atom = caf::atom_constant<caf::atom("retry")>;
using join_atom = caf::atom_constant<caf::atom("join")>;
using joined_atom = caf::atom_constant<caf::atom("joined")>;

// -- messages that only actors exchange ----------------------------------------

/// Who signed in, or why it failed.
struct signin_result {
  core::failure error;
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

/// What a watch call does.
enum class watch_action : std::uint8_t {
  /// POST /api/watch: add a watch.
  create,
  /// GET /api/watch: the account's watches.
  list,
  /// DELETE /api/watch/{id}.
  remove,
  /// POST /api/watch/{id}/webhooks: add a webhook to a watch of the account.
  add_webhook,
  /// DELETE /api/watch/{id}/webhooks/{wid}.
  remove_webhook,
  /// Before POST /api/watch/{id}/webhooks/{wid}/test: whether the account's watch has that
  /// webhook (the webhook actor then delivers the test).
  find_webhook,
};

/// One watch call: who calls (an API key's SHA-256, else the account page's session's), and
/// what it asks. The watch actor finds the account in the same record transaction that acts.
struct watch_command {
  watch_action action = watch_action::list;
  std::string key_hash;
  std::string session_hash;
  /// Set for a form of the account page: csrf must then be the session's form token, checked
  /// where the session is found.
  bool from_form = false;
  std::string csrf;
  /// For create.
  core::watch_spec spec;
  /// For remove and the webhook actions: the watch.
  std::string id;
  /// For add_webhook.
  core::webhook_spec webhook;
  /// For remove_webhook and find_webhook.
  std::string webhook_id;
};

/// The identity an offer may carry: the linked Xbox account's, or why it goes self-signed.
struct offer_identity {
  /// The GameServerToken for our identity key; empty when the offer goes self-signed.
  std::string game_server_token;
  /// The services' issuer, for idp.domain.
  std::string idp_domain;
  /// The account's gamertag, which servers see.
  std::string gamertag;
  /// When an account is linked but the chain failed: the operator's sentence (the step, what
  /// went wrong, the fix), never a token. Empty otherwise.
  std::string link_problem;

  bool signed_in() const noexcept {
    return !game_server_token.empty();
  }
};

/// The public watched servers' latest checks, shared read-only with the edge.
using watched_checks = std::shared_ptr<const std::vector<core::watched_check>>;

/// One read of a watched server's history (GET /api/history, /chart.svg): the server, the
/// range, and who asks (an API key's SHA-256 or the session's, both empty for an anonymous
/// reader, who sees only public history).
struct history_query {
  std::string host;
  std::uint16_t port = 0;
  core::history_range range = core::history_range::day;
  std::string key_hash;
  std::string session_hash;
};

/// The history asked for, or why not.
struct history_answer {
  core::failure error;
  std::shared_ptr<const core::history_view> view;
};

// -- inspection ---------------------------------------------------------------

// The vocabulary's types are inspected in actors/inspect.hpp, beside them, where
// argument-dependent lookup finds them; these are the types only actors exchange.

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, signin_result& x) {
  return f(caf::meta::type_name("signin_result"), x.error, x.user_id, x.login);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, watch_command& x) {
  return f(caf::meta::type_name("watch_command"), x.action, x.key_hash, x.session_hash,
           x.from_form, x.csrf, x.spec, x.id, x.webhook, x.webhook_id);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, history_query& x) {
  return f(caf::meta::type_name("history_query"), x.host, x.port, x.range, x.key_hash,
           x.session_hash);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, page_request& x) {
  return f(caf::meta::type_name("page_request"), x.session_hash, x.csrf, x.action);
}

// -- actor interfaces ---------------------------------------------------------

/// Serves the public API; one per CAF worker, chosen round robin by the edge.
using front_actor = caf::typed_actor<caf::reacts_to<core::api_call>>;

/// Talks to one target (host, port, TLS mode); spawned on demand by the registry. An offer
/// takes the network id and whether to check the answer's candidates (probe); a RakNet
/// status takes the UDP port to ping. It sends itself done_atom or answer_atom when a fetch
/// completes, raknet_atom with the port when a ping's exchange ends, reached_atom when the
/// connectivity checks of an answer end, and idle_atom to check for idleness. A join (one
/// player: its own fresh offer, then the worker) ends with joined_atom, the join's number
/// and its result.
using probe_actor
  = caf::typed_actor<caf::replies_to<info_atom, core::target>::with<core::info_reply>,
                     caf::replies_to<raknet_atom, core::target, std::uint16_t>::with<core::raknet_reply>,
                     caf::reacts_to<raknet_atom, std::uint16_t, core::raknet_reply>,
                     caf::replies_to<offer_atom, core::target, std::string, bool>::with<core::offer_reply>,
                     caf::reacts_to<done_atom, core::info_reply>,
                     caf::reacts_to<answer_atom, core::offer_reply, core::reach_plan>,
                     caf::reacts_to<reached_atom, core::offer_reply>,
                     caf::replies_to<join_atom, core::target, core::join_order>::with<core::join_result>,
                     caf::reacts_to<joined_atom, std::uint64_t, core::join_result>,
                     caf::reacts_to<idle_atom>,
                     caf::reacts_to<stop_atom>>;

/// Routes each request to the probe actor of its target and retires idle ones.
using probe_registry_actor
  = caf::typed_actor<caf::replies_to<info_atom, core::target>::with<core::info_reply>,
                     caf::replies_to<raknet_atom, core::target, std::uint16_t>::with<core::raknet_reply>,
                     caf::replies_to<offer_atom, core::target, std::string, bool>::with<core::offer_reply>,
                     caf::replies_to<join_atom, core::target, core::join_order>::with<core::join_result>,
                     caf::reacts_to<idle_atom, actors::probe_actor, std::uint64_t>,
                     caf::replies_to<count_atom>::with<std::uint64_t>>;

/// Holds offer results for 120 s and lets concurrent identical offers share one answer. On a
/// store shared across hosts it also asks the other replicas' cache and flight lock: its
/// shared-offers worker answers with shared_atom, the target, the probe flag, what to do
/// ("hit", "fetch", "busy": look again later, or "owned": fetch holding the lock), and for a
/// hit its body, retrieval time and probe flag (for "owned", the lock token).
using cache_actor
  = caf::typed_actor<caf::replies_to<offer_atom, core::offer_request>::with<core::offer_reply>,
                     caf::replies_to<count_atom>::with<std::uint64_t>,
                     caf::reacts_to<shared_atom, core::target, bool, std::string, std::string,
                                    std::int64_t, bool>>;

/// Hands a charge's verdict to an io thread where no actor waits for it: called on the quota
/// actor's thread once the charge is durable, it only moves the verdict into the call's
/// outcome and hands that on to the connection's io thread, which builds the reply. It never
/// blocks and does no other work.
using verdict_fn = std::function<void(core::quota_verdict&&)>;

/// Counts a call or reports where a caller stands. A charge with a verdict_fn is answered by
/// calling it instead of with a reply message (the cache-hit path of actors/edge_bridge); with
/// an edge_link too, the edge may get a lease of the caller's calls counted ahead, and
/// give_back_atom brings back what a lease did not use (actors/edge_leases.hpp). It sends
/// itself flush_atom to commit a batch and sweep_atom to give back idle reservations.
using quota_actor
  = caf::typed_actor<caf::replies_to<charge_atom, core::quota_charge>::with<core::quota_verdict>,
                     caf::reacts_to<charge_atom, core::quota_charge, verdict_fn>,
                     caf::reacts_to<charge_atom, core::quota_charge, verdict_fn, edge_link_ptr>,
                     caf::reacts_to<give_back_atom, edge_return>,
                     caf::reacts_to<flush_atom>, caf::reacts_to<sweep_atom>>;

/// Hears whether an offer may go under the per-target limit replicas share: how long to wait,
/// zero to go. Called on the gate's thread, so it must only hand the answer on.
using gate_fn = std::function<void(std::chrono::seconds)>;

/// Starts an offer to servers ("address:port") under the limit every replica on the store
/// shares, for an owner, with how many offers to a server may be in flight with it (gate_atom),
/// and ends it (release_atom). Only a store shared across
/// hosts has one (storage::store::take_offer_slot).
using offer_gate_actor
  = caf::typed_actor<caf::reacts_to<gate_atom, std::vector<std::string>, std::string, unsigned,
                                    gate_fn>,
                     caf::reacts_to<release_atom, std::vector<std::string>, std::string>>;

/// Creates accounts at sign-in, issues and revokes keys, shows an account's usage, records
/// used sign-in states, and keeps the account page's sessions. Sign-in (user id, login, the
/// SHA-256 of the browser's previous session cookie, which it ends) opens a new session; a
/// claim (decoded state, expiry) answers invalid_input for a state used before. It prunes
/// what expired when it sends itself sweep_atom.
using keys_actor = caf::typed_actor<
  caf::replies_to<signin_atom, std::uint64_t, std::string, std::string>::with<core::account_view>,
  caf::replies_to<claim_atom, std::string, std::int64_t>::with<core::failure>,
  caf::replies_to<account_atom, std::string>::with<core::account_view>,
  caf::replies_to<rotate_atom, std::string>::with<core::account_view>,
  caf::replies_to<revoke_atom, std::string>::with<core::account_view>,
  caf::replies_to<page_atom, page_request>::with<core::account_view>,
  caf::reacts_to<sweep_atom>>;

/// Keeps the accounts' watches (actors/watch_actor.hpp): adds, lists and deletes them for the
/// account an API key or a session names, within the operator's limits.
using watch_actor
  = caf::typed_actor<caf::replies_to<watch_atom, watch_command>::with<core::watch_answer>>;

/// Keeps the watch schedule and the watched servers' history (actors/history_actor.hpp):
/// brings the schedule in line with the watches (sync_atom, answering how many servers are
/// watched); claims due checks for an owner (claim_atom: owner, most, lease in ms); completes
/// a claimed check and stores its row (record_atom: the claim, the owner, the encoded row,
/// empty when the check gave none), answering the check before it encoded, or empty; and
/// reads a server's history for a caller (history_atom); and gives the public servers' latest
/// checks for /metrics (latest_atom).
using history_actor = caf::typed_actor<
  caf::replies_to<sync_atom>::with<std::size_t>,
  caf::replies_to<claim_atom, std::string, std::size_t, std::int64_t>::with<
    std::vector<core::schedule_claim>>,
  caf::replies_to<record_atom, core::schedule_claim, std::string, std::string>::with<std::string>,
  caf::replies_to<history_atom, history_query>::with<history_answer>,
  caf::replies_to<latest_atom>::with<watched_checks>>;

/// Runs the watched servers' checks (actors/watch_scheduler.hpp) on its own timers.
using watch_scheduler_actor
  = caf::typed_actor<caf::reacts_to<tick_atom>, caf::reacts_to<sync_atom>,
                     caf::reacts_to<claim_atom, core::schedule_claim>>;

/// Delivers the webhooks' events (actors/webhook_actor.hpp): an alert of a watched target
/// (from the history actor, after it stored a check that change_between says alerts) goes
/// to every webhook of the target's watches, retried with backoff; a test (watch id, webhook
/// id) is tried once and answered with its outcome. Each try reports its end to the actor
/// (delivered_atom, the try's number), and a retry's time comes as retry_atom (the webhook's
/// lane, the delivery's number).
using webhook_actor
  = caf::typed_actor<caf::reacts_to<alert_atom, core::watch_alert>,
                     caf::replies_to<test_atom, std::string, std::string>::with<core::webhook_delivery>,
                     caf::reacts_to<delivered_atom, std::uint64_t, core::webhook_delivery>,
                     caf::reacts_to<retry_atom, std::string, std::uint64_t>>;

/// Runs the two provider requests of a sign-in (code, PKCE verifier); it reports their end to
/// itself (done_atom). Whether a state was used before is the keys actor's to say, in the
/// store.
using auth_actor
  = caf::typed_actor<caf::replies_to<signin_atom, std::string, std::string>::with<signin_result>,
                     caf::reacts_to<done_atom, std::uint64_t, signin_result>>;

/// Remembers per target (host, port), in the store, the scheme that answered and the identity
/// key last verified; it sweeps expired scheme records when it sends itself sweep_atom.
using memory_actor
  = caf::typed_actor<caf::replies_to<recall_atom, std::string, std::uint16_t>::with<core::target_memory>,
                     caf::reacts_to<remember_atom, std::string, std::uint16_t, core::target_memory_update>,
                     caf::reacts_to<sweep_atom>>;

/// Hands out the linked Xbox account's GameServerToken for offers (actors/xbox_token_actor.hpp);
/// its renewals report their end to itself (renewed_atom), and while another replica renews it
/// looks again for the shared tokens (recheck_atom).
using xbox_token_actor
  = caf::typed_actor<caf::replies_to<token_atom>::with<offer_identity>,
                     caf::reacts_to<renewed_atom, std::shared_ptr<net::upstream::xbox_renewal>>,
                     caf::reacts_to<recheck_atom>>;

} // namespace netherscope::actors

// These messages hold callbacks and never leave the process, so they need no serialization.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(netherscope::core::api_call)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(netherscope::core::api_outcome)
// A join's result holds its JSON object, built once on the io thread that ended the join.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(netherscope::core::join_result)
// A read-only history shared with the edge, which renders it; never inspected.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(netherscope::actors::history_answer)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(netherscope::actors::watched_checks)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(netherscope::actors::verdict_fn)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(netherscope::actors::edge_link_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(netherscope::actors::edge_return)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(netherscope::actors::gate_fn)
// These hold tokens: never inspected, so no log or to_string can show them.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(netherscope::actors::offer_identity)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<netherscope::net::upstream::xbox_renewal>)
