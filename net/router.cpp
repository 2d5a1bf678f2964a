#include "net/router.hpp"

#include <boost/beast/http/field.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

#include "net/api_json.hpp"
#include "net/error_table.hpp"
#include "net/host_port.hpp"
#include "net/offer_request.hpp"

namespace netherscope::net {

namespace {

constexpr std::string_view info_route = "/api/info";
constexpr std::string_view offer_route = "/api/offer";
constexpr std::string_view healthz_route = "/healthz";
constexpr std::string_view openapi_route = "/openapi.json";
constexpr std::string_view unknown_route = "unknown";

constexpr std::string_view exposed_headers
  = "X-RateLimit-Scope, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, "
    "Retry-After";

response make_json(http::status status, std::string body, unsigned version,
                   bool keep_alive) {
  response res{status, version};
  res.set(http::field::content_type, "application/json");
  res.set(http::field::cache_control, "no-store");
  res.set("X-Content-Type-Options", "nosniff");
  res.keep_alive(keep_alive);
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

// Browsers may call the API from any page: it is public, takes no cookies, and the
// rate-limit headers are how a page learns where it stands.
void add_cors(response& res) {
  res.set(http::field::access_control_allow_origin, "*");
  res.set(http::field::access_control_expose_headers, exposed_headers);
}

response error_response(const failure& error, unsigned version, bool keep_alive) {
  auto res = make_json(lookup(error.code).status, render_error(error), version, keep_alive);
  if (error.code == error_code::quota_exhausted && error.retry_after > 0)
    res.set(http::field::retry_after, std::to_string(error.retry_after));
  return res;
}

route_decision answer(std::string_view route, response res) {
  route_decision decision;
  decision.route = route;
  decision.immediate = std::move(res);
  return decision;
}

route_decision method_not_allowed(std::string_view route, std::string_view allow,
                                  const request& req, bool api) {
  auto res = error_response(
    make_failure(error_code::method_not_allowed,
                 std::string{req.method_string()} + " is not allowed on " + std::string{route}
                   + "; use " + std::string{allow}),
    req.version(), req.keep_alive());
  res.set(http::field::allow, allow);
  if (api)
    add_cors(res);
  return answer(route, std::move(res));
}

// A CORS preflight: browsers send it before a cross-origin call with custom headers.
route_decision preflight(std::string_view route, std::string_view methods, const request& req) {
  response res{http::status::no_content, req.version()};
  add_cors(res);
  res.set(http::field::access_control_allow_methods, methods);
  res.set(http::field::access_control_allow_headers, "Content-Type, X-API-Key, Authorization");
  res.set(http::field::access_control_max_age, "86400");
  res.keep_alive(req.keep_alive());
  res.prepare_payload();
  return answer(route, std::move(res));
}

// Reads /api/info's query into a call. A problem with the input is recorded in the call, not
// answered here, because every call of the endpoint is counted, invalid ones included.
route_decision info_call(const boost::urls::url_view& url, const route_context& ctx) {
  route_decision decision;
  decision.route = info_route;
  api_call call;
  call.what = endpoint::info;
  call.client = ctx.client.subject;
  auto invalid = [&](std::string message) {
    call.invalid = make_failure(error_code::invalid_input, std::move(message));
  };
  auto params = url.params();
  auto count = [&](std::string_view key) { return params.count(key); };
  auto value = [&](std::string_view key) { return (*params.find(key)).value; };
  std::string error;
  if (count("host") == 0) {
    invalid("host is required: the target server's DNS name or IP address");
  } else if (count("host") > 1 || count("port") > 1 || count("tls") > 1) {
    invalid("host, port and tls may each be given once");
  } else if (auto host = normalize_host(value("host"), error)) {
    call.where.host = std::move(*host);
    if (count("port") == 1) {
      if (auto port = parse_port_text(value("port"), error))
        call.where.port = *port;
      else
        invalid(error);
    }
    if (call.invalid.ok() && count("tls") == 1) {
      if (auto mode = parse_tls_text(value("tls"), error))
        call.where.tls = *mode;
      else
        invalid(error);
    }
  } else {
    invalid(error);
  }
  if (call.invalid.ok())
    decision.target_label = host_for_url(call.where.host) + ":"
                            + std::to_string(call.where.port);
  decision.call = std::move(call);
  return decision;
}

// Reads /api/offer's body into a call; as with info, invalid input is still a counted call.
route_decision offer_call(const request& req, const route_context& ctx) {
  route_decision decision;
  decision.route = offer_route;
  api_call call;
  call.what = endpoint::offer;
  call.client = ctx.client.subject;
  if (!is_json_media_type(req[http::field::content_type])) {
    call.invalid = make_failure(error_code::unsupported_media_type,
                                "Content-Type must be application/json");
  } else if (auto parsed = parse_offer_body(req.body(), call.invalid)) {
    call.where = parsed->where;
    call.network_id = std::move(parsed->network_id);
    call.fresh = parsed->fresh;
    decision.target_label = host_for_url(call.where.host) + ":"
                            + std::to_string(call.where.port);
  }
  decision.call = std::move(call);
  return decision;
}

route_decision shutting_down(std::string_view route, const request& req) {
  return answer(route, render_api({make_failure(error_code::unavailable,
                                                "the service is shutting down"),
                                   {}},
                                  req.version(), false));
}

} // namespace

response render_api(const api_outcome& outcome, unsigned version, bool keep_alive) {
  auto res = outcome.error.ok()
               ? make_json(http::status::ok, outcome.body, version, keep_alive)
               : error_response(outcome.error, version, keep_alive);
  add_cors(res);
  return res;
}

response render_plain_error(const failure& error, unsigned version, bool keep_alive) {
  return error_response(error, version, keep_alive);
}

route_decision route(const request& req, const route_context& ctx) {
  auto parsed = boost::urls::parse_origin_form(req.target());
  if (!parsed) {
    return answer(unknown_route,
                  error_response(make_failure(error_code::invalid_input,
                                              "the request target is not a valid path"),
                                 req.version(), false));
  }
  auto url = *parsed;
  auto path = url.path();
  auto keep_alive = req.keep_alive() && !ctx.draining;

  if (path == info_route) {
    if (req.method() == http::verb::options)
      return preflight(info_route, "GET", req);
    if (req.method() != http::verb::get)
      return method_not_allowed(info_route, "GET", req, true);
    if (ctx.draining)
      return shutting_down(info_route, req);
    return info_call(url, ctx);
  }
  if (path == offer_route) {
    if (req.method() == http::verb::options)
      return preflight(offer_route, "POST", req);
    if (req.method() != http::verb::post)
      return method_not_allowed(offer_route, "POST", req, true);
    if (ctx.draining)
      return shutting_down(offer_route, req);
    return offer_call(req, ctx);
  }
  if (path == healthz_route) {
    if (req.method() != http::verb::get && req.method() != http::verb::head)
      return method_not_allowed(healthz_route, "GET, HEAD", req, false);
    return answer(healthz_route,
                  make_json(http::status::ok, R"({"ok":true})", req.version(), keep_alive));
  }
  if (path == openapi_route) {
    if (req.method() != http::verb::get && req.method() != http::verb::head)
      return method_not_allowed(openapi_route, "GET, HEAD", req, false);
    auto res = make_json(http::status::ok, std::string{ctx.openapi_json}, req.version(),
                         keep_alive);
    res.set(http::field::cache_control, "public, max-age=300");
    add_cors(res);
    return answer(openapi_route, std::move(res));
  }
  auto res = error_response(
    make_failure(error_code::not_found, "no route " + std::string{path}
                                          + "; see /openapi.json for the API"),
    req.version(), keep_alive);
  if (path.substr(0, 5) == "/api/")
    add_cors(res);
  return answer(unknown_route, std::move(res));
}

route_decision route_oversized(const request& req, const route_context& ctx) {
  auto too_large = make_failure(error_code::payload_too_large,
                                "the request body is larger than 16384 bytes");
  auto parsed = boost::urls::parse_origin_form(req.target());
  if (parsed && parsed->path() == offer_route && req.method() == http::verb::post) {
    // Still a call of the endpoint, counted like any other.
    route_decision decision;
    decision.route = offer_route;
    api_call call;
    call.what = endpoint::offer;
    call.client = ctx.client.subject;
    call.invalid = std::move(too_large);
    decision.call = std::move(call);
    return decision;
  }
  return answer(unknown_route, error_response(too_large, req.version(), false));
}

} // namespace netherscope::net
