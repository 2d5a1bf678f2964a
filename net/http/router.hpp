// The router: a pure function from an HTTP request to a response or a call for the actors,
// driven by one table of routes.
//
// Each route is one row of the table (router.cpp): its path pattern, methods, kind, the call
// it becomes and its handler. What routes of a kind share is derived from the row, never
// written per route: the 405 with its Allow, the CORS preflight of API routes, the refusal
// while shutting down, and the route (so the quota) a refused API request shows. Nothing
// here touches a socket or an actor, so every route is tested with plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/url/url_view.hpp>

#include "core/call.hpp"
#include "net/http/client_request.hpp"
#include "net/http/responses.hpp"
#include "net/http/route_pattern.hpp"

namespace netherscope::net::http {

/// What the router needs to know besides the request.
struct route_context {
  client_identity client;
  /// The OpenAPI document served at /openapi.json.
  std::string_view openapi_json;
  /// True once shutdown began: API calls get 503 and connections close.
  bool draining = false;
  /// True from the shutdown signal on, through the drain period in which calls are still
  /// served: /readyz gets 503 and connections close after their response.
  bool leaving = false;
  /// Whether the service is served over HTTPS: the cookies then have __Host- names
  /// (net/http/signin.hpp), and only those are read.
  bool secure_cookies = false;
  /// Our origin as browsers write it (origin_of the public base URL): the account page's
  /// POSTs must come from it.
  std::string_view public_origin;
};

/// The router's verdict: answer now, or hand a call to the actors.
struct route_decision {
  /// Set when the router answered by itself.
  std::optional<response> immediate;
  /// Set when the actors answer; the session fills in the reply callback.
  std::optional<core::api_call> call;
  /// The route for the access log: "/api/info", "/healthz", or "unknown".
  std::string_view route;
  /// The target for the access log, "host:port", when the call names one.
  std::string target_label;
};

/// What a route is. The router derives from the kind what all routes of it share.
enum class route_kind : std::uint8_t {
  /// Under /api/: CORS on every answer and a preflight for OPTIONS. A call of one shows the
  /// caller's quota, and a wrong method is still a call of the route, counted and shown it.
  api,
  /// The web page's files (net/http/page.hpp); the row has no pattern, its paths are the
  /// files'.
  page,
  /// The account page and sign-in with GitHub: HTML pages and the session cookie.
  account,
  /// The badges and the chart (SVG, and the PNG badge for unfurlers), embedded in other
  /// sites' pages.
  badge,
  /// A server's page (/server/{address}): HTML, whose every answer, errors included, is an
  /// HTML page.
  server,
  /// A document anyone may read: /openapi.json.
  document,
  /// What probes and scrapers call: /healthz, /readyz, /metrics.
  health,
};

/// What a route does once shutdown began.
enum class drain_rule : std::uint8_t {
  /// Served as usual; the connection closes after it.
  serve,
  /// Refused with 503 unavailable, and the connection closes. A refused API call is still
  /// shown the caller's quota.
  refuse,
  /// Refused as refuse is, and already while the service is leaving (told to stop, still
  /// serving for the drain period): what a load balancer's health check asks.
  refuse_when_leaving,
};

struct route_row;

/// One request as the handler of the row it matched sees it.
struct route_input {
  const request& req;
  /// The request target, parsed.
  const boost::urls::url_view& url;
  /// The path, %-decoded: what the row's pattern matched.
  std::string_view path;
  const route_context& ctx;
  const route_row& row;
  /// The name the request is logged under: the row's, or the page file's path.
  std::string_view name;
  /// The values of the pattern's {parameters}, views into path.
  const path_params& params;
  /// Whether the connection may stay open after an answer (not once shutdown began).
  bool keep_alive;
};

/// Turns a request that matched a row, with a method the row takes, into the decision.
using route_handler = route_decision (*)(const route_input& in);

/// One route. A path whose methods differ in the call they become (POST and DELETE of
/// /api/account/key) has a row per call; its Allow lists the methods of all its rows.
struct route_row {
  /// The path: exact ("/api/info"), or with {parameters} standing for one segment each
  /// ("/api/explain/{code}"). Empty for the page's files.
  std::string_view pattern;
  /// The methods it takes; HEAD only where it is listed.
  method_set methods;
  route_kind kind;
  /// The call it becomes for the actors; none for routes answered here.
  std::optional<core::call_kind> call;
  route_handler handler;
  drain_rule draining = drain_rule::serve;
  /// The name the access log and the metrics give it, when not its pattern.
  std::string_view log_name = {};

  /// The name the access log and the metrics give it.
  constexpr std::string_view name() const {
    return log_name.empty() ? pattern : log_name;
  }
};

/// The route table's rows, in the order a request is matched against them.
struct route_table {
  const route_row* first;
  std::size_t size;

  const route_row* begin() const {
    return first;
  }
  const route_row* end() const {
    return first + size;
  }
};

/// The route table.
route_table routes();

/// Whether a path is under /api/, where an unknown path is still answered like an API call.
bool is_api_path(std::string_view path);

/// Whether a path is a server's page's (/server/...), whose every answer is an HTML page.
bool is_server_page_path(std::string_view path);

/// Routes one request.
route_decision route(const request& req, const route_context& ctx);

/// Answers a request whose body exceeded body_limit (the server's limit in force, named in
/// the message), before it was read completely.
route_decision route_oversized(const request& req, const route_context& ctx,
                               std::size_t body_limit);

/// Answers a request whose header the edge refused before routing it (framed two ways, a
/// request line over the limit). Under /api/ it is a call that only looks up the caller's
/// quota, so the error carries the route's CORS and quota headers; elsewhere an immediate
/// answer. The connection closes after it.
route_decision route_refused(const request& req, const route_context& ctx, core::failure error);

/// Builds the JSON error for a request whose header could not be read whole (over a header
/// limit), given the target its raw bytes name. The connection closes after it. Under /api/ it
/// carries CORS like every API reply; without the header the caller is unknown, so there are
/// no quota headers.
response render_unread_error(const core::failure& error, std::string_view raw_target);

/// The methods the route of a call kind takes, as its Allow header writes them ("POST,
/// DELETE"); empty for a kind no route becomes.
std::string allowed_methods(core::call_kind kind);

} // namespace netherscope::net::http
