// One call from the HTTP edge to the actors, and the outcome that comes back.
//
// The edge builds an api_call, hands it on through a callback that app/ wires to the
// actors, and receives an api_outcome through the call's reply_fn.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "net/api/failure.hpp"
#include "net/api/quota.hpp"
#include "net/api/target.hpp"

namespace netherscope::net::api {

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
  /// GET /account: the account page of a signed-in browser (session cookie).
  page_view,
  /// GET /account/session: the same account as JSON, for the page at / (session cookie).
  page_session,
  /// POST /account/key from that page: a new key, the old one revoked.
  page_new_key,
  /// POST /account/key/revoke from that page.
  page_revoke,
  /// POST /auth/signout from that page: the session ends.
  page_sign_out,
  /// GET /badge: an info call whose answer the edge renders as an SVG badge; counted as
  /// info, always against the caller's address.
  badge,
  /// GET /api/check: the status, then a probed offer, then one verdict; counted as one info
  /// and one offer call.
  check,
};

/// Whether a call kind is one of the account page's (session cookie, not API key).
inline bool is_page_call(call_kind kind) {
  return kind == call_kind::page_view || kind == call_kind::page_session
         || kind == call_kind::page_new_key
         || kind == call_kind::page_revoke || kind == call_kind::page_sign_out;
}

/// What the front actor hands back for one call.
struct api_outcome {
  failure error;
  /// The JSON body of a successful info or offer reply.
  std::string body;
  /// Instead of body: an offer's body as the cache or the target gave it, shared with the
  /// hit boards. The edge copies it once, on its own thread, so the thread that completed the
  /// call (the quota actor's, for a cache hit) copies nothing.
  std::shared_ptr<const std::string> shared_body;
  /// For an offer served from the cache: the Age header's value in seconds; -1 for none.
  std::int64_t age = -1;
  /// For an offer: the UDP ports the caller expects. The edge adds the warning for ports the
  /// answer does not use when it renders the outcome (finish_offer, net/api/offer_outcome).
  std::vector<std::uint16_t> expect_ports;
  /// For an offer the edge bridge answered from its io thread's hit board: no cache actor saw
  /// the call, so the edge counts the cache hit when it renders the outcome (finish_offer).
  bool board_hit = false;
  /// Where the caller stands; has_quota is false for routes outside the quotas.
  bool has_quota = false;
  quota_verdict quota;
  /// The account, for account and sign-in calls.
  account_view account;
  /// For signin_start: the provider's authorize URL (its state inside) and the binding
  /// cookie's value.
  std::string redirect;
  std::string binding;
  /// For page_sign_out: the session ended, so the cookie is cleared.
  bool signed_out = false;
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
  /// Set for an error the edge decided before the request became a call of its route (a
  /// target that does not parse, a header framed two ways, shutdown): the actors only look up
  /// where the caller stands, count nothing, and answer with `invalid`. Never set on a call
  /// the edge accepted, so the path of a served call never pays for it.
  bool peek = false;
  target where;
  /// For offers: the network id, cache bypass and the UDP ports the caller expects.
  std::string network_id;
  bool fresh = false;
  std::vector<std::uint16_t> expect_ports;
  /// For offers: check the answer's UDP candidates for reachability.
  bool probe = false;
  /// For signin_finish: what the provider sent back, and the browser's binding cookie, which
  /// the front checks the state against.
  std::string code;
  std::string state;
  std::string binding;
  std::string provider_error;
  /// For the account page and sign-in: SHA-256 of the browser's session cookie, or empty.
  std::string session_hash;
  /// For the page's POSTs: the form's token.
  std::string csrf;
  reply_fn reply;
};

/// Takes a validated call out of the edge; it must only enqueue, never wait. app/ wires the
/// edge's sink to the actors (actors/edge_bridge), so the edge never includes them.
using call_sink = std::function<void(api_call&&)>;

/// The quota endpoint of a call kind; account calls show the info quota, and sign-in
/// callbacks have an hourly limit of their own.
inline endpoint endpoint_of(call_kind kind) {
  if (kind == call_kind::signin_finish)
    return endpoint::signin;
  // A check counts against both quotas and shows the offer quota, the scarcer of the two
  // (docs/API.md), so a refusal decided before it ran shows that one too.
  return kind == call_kind::offer || kind == call_kind::check ? endpoint::offer : endpoint::info;
}

} // namespace netherscope::net::api
