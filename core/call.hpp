// One call from the HTTP edge to the actors, and the outcome that comes back.
//
// The edge builds an api_call, hands it on through a callback that app/ wires to the
// actors, and receives an api_outcome through the call's reply_fn.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/failure.hpp"
#include "core/history_slice.hpp"
#include "core/quota.hpp"
#include "core/target.hpp"
#include "core/watch.hpp"
#include "core/webhook.hpp"

namespace netherscope::core {

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
  /// POST /api/join: one or two players join as a player's client does, each with an offer
  /// of its own; counted as one offer call per player.
  join,
  /// GET /api/check: the status, then a join with its own offer, then one verdict; counted
  /// as one info and one offer call.
  check,
  /// GET /api/status: both transports' status at once (NetherNet's GET /v1/join and the
  /// RakNet ping), counted as one info call.
  status,
  /// POST /api/status: the status of up to max_status_targets targets, answered as NDJSON,
  /// one line per target as each completes (status_item), each counted as one info call.
  status_batch,
  /// POST /api/watch: a new watch for the caller's account (API key or session).
  watch_create,
  /// GET /api/watch: the account's watches.
  watch_list,
  /// DELETE /api/watch/{id}.
  watch_delete,
  /// GET /api/history: a watched server's history as JSON; a read of the store, counted
  /// against no quota.
  history,
  /// GET /chart.svg: the same history drawn, for a public watch; counted against no quota.
  chart,
  /// POST /api/watch/{id}/webhooks: a new webhook of the caller's watch.
  webhook_create,
  /// DELETE /api/watch/{id}/webhooks/{wid}.
  webhook_delete,
  /// POST /api/watch/{id}/webhooks/{wid}/test: one delivery of a test event, answered with
  /// its outcome.
  webhook_test,
  /// POST /account/watch from the account page: a new watch, as watch_create.
  page_watch_add,
  /// POST /account/watch/delete from that page: as watch_delete.
  page_watch_delete,
  /// POST /account/webhook from that page: a new webhook, as webhook_create; its secret is
  /// shown once, on the page.
  page_webhook_add,
  /// POST /account/webhook/delete from that page: as webhook_delete.
  page_webhook_delete,
  /// GET /server/{address}: a server's page, rendered by the edge as HTML. Counted as one
  /// status call against the caller's address; with check set in the call, as a check.
  server_page,
  /// GET /badge.png: a badge as badge is, rendered by the edge as a PNG for unfurlers,
  /// which show no SVG.
  badge_png,
};

/// The most targets one POST /api/status names.
inline constexpr std::size_t max_status_targets = 50;

/// One target of POST /api/status, as the edge read it.
struct status_item {
  target where;
  /// The UDP port the RakNet ping goes to; 0 for the target's own port.
  std::uint16_t raknet_port = 0;
  /// Why this entry cannot be checked (a host that does not parse, a bad port); the other
  /// entries are still served, and this one's line carries the error.
  failure invalid;
};

/// Whether a call kind is one of the account page's forms for watches and webhooks.
inline bool is_page_watch_call(call_kind kind) {
  return kind == call_kind::page_watch_add || kind == call_kind::page_watch_delete
         || kind == call_kind::page_webhook_add || kind == call_kind::page_webhook_delete;
}

/// Whether a call kind is one of the account page's (session cookie, not API key).
inline bool is_page_call(call_kind kind) {
  return kind == call_kind::page_view || kind == call_kind::page_session
         || kind == call_kind::page_new_key
         || kind == call_kind::page_revoke || kind == call_kind::page_sign_out
         || is_page_watch_call(kind);
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
  /// answer does not use when it renders the outcome (finish_offer, core/offer_outcome).
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
  /// For status_batch: the response is a stream of NDJSON lines that follow through the
  /// call's line_fn; this outcome gives only its head (status 200 and the quota as it stood
  /// when the call began). An outcome with an error is a whole reply, and no lines follow.
  bool streaming = false;
  /// For history and chart: the watched server's history, which the edge renders.
  std::shared_ptr<const history_view> history;
  /// For chart: what to draw, as the call asked.
  chart_metric metric = chart_metric::verdicts;
  /// For server_page: the server the page is of, and whether body is a check's (GET
  /// /api/check's body) rather than a status's (the badge's status body).
  target page_of;
  bool checked = false;
  /// For metrics: the public watched servers' latest checks, for the exporter.
  std::shared_ptr<const std::vector<watched_check>> watched;
  /// For the account page: the account's watches with their webhooks, or (error set) why
  /// they could not be read. Null when the page did not ask: a sign-in that made the account
  /// shows it with none.
  std::shared_ptr<const watch_answer> account_watches;
  /// For page_webhook_add: the webhook made and its signing secret, shown this once.
  webhook_view new_webhook;
  std::string new_webhook_secret;
};

/// Receives the outcome of a call; it posts onto the session's strand and never blocks.
using reply_fn = std::function<void(api_outcome&&)>;

/// Receives one line of a streaming reply (one JSON object, without the newline), after the
/// reply_fn's head; last is set on the final line, which ends the reply. Called from one
/// actor at a time, in order; it posts onto the session's strand and never blocks.
using line_fn = std::function<void(std::string&& line, bool last)>;

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
  /// For offers and joins: the network id; for offers, cache bypass and the UDP ports the caller expects.
  std::string network_id;
  bool fresh = false;
  std::vector<std::uint16_t> expect_ports;
  /// For offers: check the answer's UDP candidates for reachability.
  bool probe = false;
  /// For join: the protocol to send (0 for the server's own) and how many players join.
  std::int32_t join_protocol = 0;
  unsigned players = 1;
  /// For status and check: the UDP port of the RakNet ping; 0 for the target's own port.
  std::uint16_t raknet_port = 0;
  /// For server_page: the visitor asked for a check (?check=1), counted as GET /api/check.
  bool page_check = false;
  /// For status_batch: the targets, in the order the caller gave them (1 to
  /// max_status_targets; the edge refuses a body with more or none).
  std::vector<status_item> batch;
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
  /// For watch_create: the server to watch, as the body named it.
  watch_spec watch;
  /// For watch_delete and the webhook calls: the watch's id, from the path.
  std::string watch_id;
  /// For history and chart: the range asked for.
  history_range range = history_range::day;
  /// For chart: what to draw.
  chart_metric metric = chart_metric::verdicts;
  /// For webhook_create: the webhook, as the body named it.
  webhook_spec webhook;
  /// For webhook_delete and webhook_test: the webhook's id, from the path.
  std::string webhook_id;
  reply_fn reply;
  /// For status_batch: where the lines go once reply has given the head.
  line_fn lines;
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
  return kind == call_kind::offer || kind == call_kind::check || kind == call_kind::join
           ? endpoint::offer
           : endpoint::info;
}

} // namespace netherscope::core
