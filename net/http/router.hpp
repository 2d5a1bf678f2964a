// The router: a pure function from an HTTP request to a response or a call for the actors.
//
// Nothing here touches a socket or an actor, so every route is tested with plain values.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "net/api/call.hpp"
#include "net/http/client_request.hpp"
#include "net/http/responses.hpp"

namespace netherscope::net {

/// What the router needs to know besides the request.
struct route_context {
  client_identity client;
  /// The OpenAPI document served at /openapi.json.
  std::string_view openapi_json;
  /// True once shutdown began: API calls get 503 and connections close.
  bool draining = false;
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
  std::optional<api_call> call;
  /// The route for the access log: "/api/info", "/healthz", or "unknown".
  std::string_view route;
  /// The target for the access log, "host:port", when the call names one.
  std::string target_label;
};

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
route_decision route_refused(const request& req, const route_context& ctx, failure error);

/// Builds the JSON error for a request whose header could not be read whole (over a header
/// limit), given the target its raw bytes name. The connection closes after it. Under /api/ it
/// carries CORS like every API reply; without the header the caller is unknown, so there are
/// no quota headers.
response render_unread_error(const failure& error, std::string_view raw_target);

/// The methods the route of a call kind takes, as its Allow header writes them.
std::string allowed_methods(call_kind kind);

} // namespace netherscope::net
