// The vocabulary of the actor system: atoms, message types and typed actor interfaces.
//
// Everything actors say to each other is declared here so the whole protocol can be read in
// one place. Nothing here knows about HTTP: the edge (net/) maps these values to statuses.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

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

// -- targets ------------------------------------------------------------------

/// How to speak to a target: detect TLS, or force it on or off.
enum class tls_mode : std::uint8_t { auto_detect, on, off };

/// A target server as the caller named it, after validation.
struct target {
  /// Lower-cased DNS name or IP literal, without IPv6 brackets.
  std::string host;
  std::uint16_t port = 19132;
  tls_mode tls = tls_mode::auto_detect;
};

inline bool operator==(const target& x, const target& y) {
  return x.host == y.host && x.port == y.port && x.tls == y.tls;
}

inline bool operator<(const target& x, const target& y) {
  if (x.host != y.host)
    return x.host < y.host;
  if (x.port != y.port)
    return x.port < y.port;
  return x.tls < y.tls;
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, target& x) {
  return f(caf::meta::type_name("target"), x.host, x.port, x.tls);
}

// -- errors -------------------------------------------------------------------

/// What went wrong, independent of any protocol; net/error_table maps it to HTTP.
enum class error_code : std::uint8_t {
  none,
  invalid_input,
  unauthorized,
  forbidden_target,
  not_found,
  method_not_allowed,
  payload_too_large,
  unsupported_media_type,
  quota_exhausted,
  upstream_status,
  upstream_failure,
  upstream_timeout,
  unavailable,
  internal,
};

/// An error as a value: its code, a public message and, for upstream_status, what the target said.
struct failure {
  error_code code = error_code::none;
  /// A sentence for the caller; never contains secrets.
  std::string message;
  /// The target's HTTP status, for upstream_status.
  std::uint16_t http_status = 0;
  /// The first bytes of the target's body, for upstream_status.
  std::string body;
  /// A bare NetherNet error code found in the body, or -1.
  std::int32_t nethernet_error = -1;
  /// The name of nethernet_error, when known.
  std::string reason;
  /// Seconds the caller should wait before retrying, for quota_exhausted.
  std::uint32_t retry_after = 0;

  bool ok() const noexcept {
    return code == error_code::none;
  }
};

/// Makes a failure with just a code and a message.
inline failure make_failure(error_code code, std::string message) {
  failure result;
  result.code = code;
  result.message = std::move(message);
  return result;
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, failure& x) {
  return f(caf::meta::type_name("failure"), x.code, x.message, x.http_status,
           x.body, x.nethernet_error, x.reason, x.retry_after);
}

// -- probe results ------------------------------------------------------------

/// The answer to GET /v1/join, or why there is none.
struct info_reply {
  failure error;
  /// The target's HTTP status.
  std::uint16_t status = 0;
  /// Whether TLS was used toward the target.
  bool tls = false;
  /// The API's JSON body for this answer (SPEC 2.1), rendered once by the probe.
  std::string body;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, info_reply& x) {
  return f(caf::meta::type_name("info_reply"), x.error, x.status, x.tls, x.body);
}

/// The answer to an offer, or why there is none.
struct offer_reply {
  failure error;
  /// The API's JSON body (SPEC 2.2) as first rendered, without cache flags.
  std::string body;
  /// Set by the cache when the reply comes from it.
  bool cached = false;
  /// Set by the cache when the entry is past its lifetime and served because a refresh failed.
  bool stale = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, offer_reply& x) {
  return f(caf::meta::type_name("offer_reply"), x.error, x.body, x.cached, x.stale);
}

/// What the caller asks of POST /api/offer, after validation.
struct offer_request {
  target where;
  /// Decimal uint64, 1..20 digits; empty means "draw a random one".
  std::string network_id;
  /// Skip the cache and refresh it.
  bool fresh = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, offer_request& x) {
  return f(caf::meta::type_name("offer_request"), x.where, x.network_id, x.fresh);
}

// -- quotas -------------------------------------------------------------------

/// The public endpoints whose calls are counted.
enum class endpoint : std::uint8_t { info, offer };

/// Whose quota a call counts against (SPEC §5).
enum class quota_scope : std::uint8_t { ip, key };

/// One call to count, only to look up (count = false), or to give back (refund = true).
struct quota_charge {
  endpoint what = endpoint::info;
  /// The client's address (IPv4) or /64 prefix (IPv6).
  std::string client;
  /// SHA-256 of the API key sent, or empty for anonymous calls. The key never travels.
  std::string key_hash;
  bool count = true;
  /// Gives back a call that was counted and then refused with 429 by the per-target limit:
  /// a call refused with 429 does not count (PRODUCT.md "Quotas").
  bool refund = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, quota_charge& x) {
  return f(caf::meta::type_name("quota_charge"), x.what, x.client, x.key_hash, x.count,
           x.refund);
}

/// Where a caller stands: SPEC 8.2's four headers, and whether the call may proceed.
struct quota_verdict {
  /// quota_exhausted (not counted), unauthorized (counted against the IP), or
  /// unavailable (the store failed, nothing counted); none when the call may proceed.
  failure error;
  quota_scope scope = quota_scope::ip;
  std::uint64_t limit = 0;
  std::uint64_t remaining = 0;
  /// Unix time of the first second of next month (UTC).
  std::int64_t reset = 0;
  /// The account's user id, for scope key.
  std::uint64_t user_id = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, quota_verdict& x) {
  return f(caf::meta::type_name("quota_verdict"), x.error, x.scope, x.limit, x.remaining,
           x.reset, x.user_id);
}

// -- accounts -----------------------------------------------------------------

/// An account and this month's usage, as GET /api/account shows it.
struct account_view {
  failure error;
  std::uint64_t user_id = 0;
  std::string login;
  std::int64_t created = 0;
  std::string month;
  std::uint64_t info_used = 0;
  std::uint64_t info_limit = 0;
  std::uint64_t offer_used = 0;
  std::uint64_t offer_limit = 0;
  std::int64_t reset = 0;
  /// A newly issued key, shown once; empty otherwise.
  std::string new_key;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, account_view& x) {
  return f(caf::meta::type_name("account_view"), x.error, x.user_id, x.login, x.created,
           x.month, x.info_used, x.info_limit, x.offer_used, x.offer_limit, x.reset,
           x.new_key);
}

// -- calls from the edge ------------------------------------------------------

/// What the edge asks of the actors.
enum class call_kind : std::uint8_t {
  info,
  offer,
  /// GET /api/account.
  account_get,
  /// POST /api/account/key: a new key, the old one revoked.
  account_rotate,
  /// DELETE /api/account/key.
  account_revoke,
  /// GET /auth/github/login.
  signin_start,
  /// GET /auth/github/callback.
  signin_finish,
  /// Any other path under /api/: answered 404 with the caller's quota headers.
  unknown_api,
  /// GET /readyz: whether the store answers.
  ready,
  /// GET /metrics: the actors' gauges.
  metrics,
};

/// What the front actor hands back for one call.
struct api_outcome {
  failure error;
  /// The JSON body of a successful info or offer reply.
  std::string body;
  /// Where the caller stands; has_quota is false for routes outside the quotas.
  bool has_quota = false;
  quota_verdict quota;
  /// The account, for account and sign-in calls.
  account_view account;
  /// For signin_start: the provider's authorize URL and the state to bind to the browser.
  std::string redirect;
  std::string state;
  /// For metrics: live probe actors and cached offer results.
  std::uint64_t probes = 0;
  std::uint64_t cache_entries = 0;
};

/// Receives the outcome of a call; it posts onto the session's strand and never blocks.
using reply_fn = std::function<void(api_outcome&&)>;

/// One call, validated by the edge.
struct api_call {
  call_kind kind = call_kind::info;
  /// The client as quotas count it: an IPv4 address or an IPv6 /64 prefix.
  std::string client;
  /// SHA-256 of the API key the caller sent, or empty.
  std::string key_hash;
  /// A validation failure found by the edge; the call is still counted, then answered with it.
  failure invalid;
  target where;
  /// For offers: the network id and cache bypass.
  std::string network_id;
  bool fresh = false;
  /// For signin_finish: what the provider sent back (the router checked the state against
  /// the browser's cookie).
  std::string code;
  std::string state;
  std::string provider_error;
  reply_fn reply;
};

/// The quota endpoint of a call kind; account calls show the info quota.
inline endpoint endpoint_of(call_kind kind) {
  return kind == call_kind::offer ? endpoint::offer : endpoint::info;
}

// -- actor interfaces ---------------------------------------------------------

/// Serves the public API; one per CAF worker, chosen round robin by the edge.
using front_actor = caf::typed_actor<caf::reacts_to<api_call>>;

/// Talks to one target (host, port, TLS mode); spawned on demand by the registry.
/// It sends itself done_atom or answer_atom when a fetch completes, and idle_atom to check
/// for idleness.
using probe_actor
  = caf::typed_actor<caf::replies_to<info_atom, target>::with<info_reply>,
                     caf::replies_to<offer_atom, target, std::string>::with<offer_reply>,
                     caf::reacts_to<done_atom, info_reply>,
                     caf::reacts_to<answer_atom, offer_reply>,
                     caf::reacts_to<idle_atom>,
                     caf::reacts_to<stop_atom>>;

/// Routes each request to the probe actor of its target and retires idle ones.
using probe_registry_actor
  = caf::typed_actor<caf::replies_to<info_atom, target>::with<info_reply>,
                     caf::replies_to<offer_atom, target, std::string>::with<offer_reply>,
                     caf::reacts_to<idle_atom, probe_actor, std::uint64_t>,
                     caf::replies_to<count_atom>::with<std::uint64_t>>;

/// Holds offer results for 120 s and lets concurrent identical offers share one answer.
using cache_actor
  = caf::typed_actor<caf::replies_to<offer_atom, offer_request>::with<offer_reply>,
                     caf::replies_to<count_atom>::with<std::uint64_t>>;

} // namespace netherscope

// These messages hold callbacks and never leave the process, so they need no serialization.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(netherscope::api_call)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(netherscope::api_outcome)
