#include "net/http/router.hpp"

#include <boost/beast/http/field.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

#include "net/http/account_page.hpp"
#include "net/api/api_json.hpp"
#include "net/api/api_key.hpp"
#include "net/api/error_table.hpp"
#include "net/api/host_port.hpp"
#include "net/base/crypto.hpp"
#include "net/api/offer_request.hpp"

namespace netherscope::net {

namespace {

constexpr std::string_view info_route = "/api/info";
constexpr std::string_view offer_route = "/api/offer";
constexpr std::string_view check_route = "/api/check";
constexpr std::string_view account_route = "/api/account";
constexpr std::string_view account_key_route = "/api/account/key";
constexpr std::string_view login_route = "/auth/github/login";
constexpr std::string_view callback_route = "/auth/github/callback";
constexpr std::string_view healthz_route = "/healthz";
constexpr std::string_view readyz_route = "/readyz";
constexpr std::string_view metrics_route = "/metrics";
constexpr std::string_view openapi_route = "/openapi.json";
constexpr std::string_view unknown_route = "unknown";

/// The cookie that binds a sign-in's state to the browser that started it.
constexpr std::string_view state_cookie = "ns_oauth_state";

// Age is not among the headers browsers show scripts by default, and a page needs it to
// tell how old a cached offer is.
constexpr std::string_view exposed_headers
  = "X-RateLimit-Scope, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, "
    "Retry-After, Age";

response make_response(http::status status, std::string body, std::string_view content_type,
                       unsigned version, bool keep_alive) {
  response res{status, version};
  res.set(http::field::content_type, content_type);
  res.set(http::field::cache_control, "no-store");
  res.set("X-Content-Type-Options", "nosniff");
  res.keep_alive(keep_alive);
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

response make_json(http::status status, std::string body, unsigned version, bool keep_alive) {
  return make_response(status, std::move(body), "application/json", version, keep_alive);
}

// Browsers may call the API from any page: it is public, takes no cookies, and the
// rate-limit headers are how a page learns where it stands.
void add_cors(response& res) {
  res.set(http::field::access_control_allow_origin, "*");
  res.set(http::field::access_control_expose_headers, exposed_headers);
}

void add_quota(response& res, const quota_verdict& q) {
  res.set("X-RateLimit-Scope", q.scope == quota_scope::key ? "key" : "ip");
  res.set("X-RateLimit-Limit", std::to_string(q.limit));
  res.set("X-RateLimit-Remaining", std::to_string(q.remaining));
  res.set("X-RateLimit-Reset", std::to_string(q.reset));
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
                                  const request& req) {
  auto res = error_response(
    make_failure(error_code::method_not_allowed,
                 std::string{req.method_string()} + " is not allowed on " + std::string{route}
                   + "; use " + std::string{allow}),
    req.version(), req.keep_alive());
  res.set(http::field::allow, allow);
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

route_decision shutting_down(std::string_view route, const request& req) {
  auto res = error_response(make_failure(error_code::unavailable,
                                         "the service is shutting down"),
                            req.version(), false);
  add_cors(res);
  return answer(route, std::move(res));
}

// The start of every call: who calls, with which key. The key itself goes no further than
// this function; the actors only ever see its SHA-256.
route_decision new_call(std::string_view route, call_kind kind, const request& req,
                        const route_context& ctx) {
  route_decision decision;
  decision.route = route;
  api_call call;
  call.kind = kind;
  call.client = ctx.client.subject;
  auto key = key_from_headers(req["X-API-Key"], req[http::field::authorization]);
  if (!key.empty())
    call.key_hash = hash_api_key(key);
  decision.call = std::move(call);
  return decision;
}

// A wrong method on an API route is still a call of it: counted and shown its quota.
route_decision api_method_not_allowed(std::string_view route, call_kind kind,
                                      std::string_view allow, const request& req,
                                      const route_context& ctx) {
  auto decision = new_call(route, kind, req, ctx);
  decision.call->invalid = make_failure(error_code::method_not_allowed,
                                        std::string{req.method_string()} + " is not allowed on "
                                          + std::string{route} + "; use " + std::string{allow});
  return decision;
}

// The methods a call kind's route takes, for the Allow header of a 405.
std::string_view allowed_methods(call_kind kind) {
  switch (kind) {
    case call_kind::offer:
      return "POST";
    case call_kind::account_rotate:
    case call_kind::account_revoke:
      return "POST, DELETE";
    default:
      return "GET";
  }
}

void set_target_label(route_decision& decision) {
  auto& where = decision.call->where;
  decision.target_label = host_for_url(where.host) + ":" + std::to_string(where.port);
}

// Reads the query of /api/info (or /api/check, which takes the same) into a call. A problem
// with the input is recorded in the call, not answered here, because every call of the
// endpoint is counted, invalid ones included.
route_decision info_call(const request& req, const boost::urls::url_view& url,
                         const route_context& ctx, std::string_view route = info_route,
                         call_kind kind = call_kind::info) {
  auto decision = new_call(route, kind, req, ctx);
  auto& call = *decision.call;
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
    set_target_label(decision);
  return decision;
}

// Reads /api/offer's body into a call; as with info, invalid input is still a counted call.
route_decision offer_call(const request& req, const route_context& ctx) {
  auto decision = new_call(offer_route, call_kind::offer, req, ctx);
  auto& call = *decision.call;
  if (!is_json_media_type(req[http::field::content_type])) {
    call.invalid = make_failure(error_code::unsupported_media_type,
                                "Content-Type must be application/json");
  } else if (auto parsed = parse_offer_body(req.body(), call.invalid)) {
    call.where = parsed->where;
    call.network_id = std::move(parsed->network_id);
    call.fresh = parsed->fresh;
    call.expect_ports = std::move(parsed->expect_ports);
    call.probe = parsed->probe;
    set_target_label(decision);
  }
  return decision;
}

route_decision account_call(std::string_view route, call_kind kind, const request& req,
                            const route_context& ctx) {
  auto decision = new_call(route, kind, req, ctx);
  if (decision.call->key_hash.empty())
    decision.call->invalid = make_failure(
      error_code::unauthorized,
      "an API key is required: send X-API-Key: <key> or Authorization: Bearer <key>");
  return decision;
}

// The value of one cookie, or empty.
std::string cookie_value(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    auto semicolon = header.find(';');
    auto item = header.substr(0, semicolon);
    header = semicolon == std::string_view::npos ? std::string_view{}
                                                 : header.substr(semicolon + 1);
    while (!item.empty() && item.front() == ' ')
      item.remove_prefix(1);
    auto eq = item.find('=');
    if (eq != std::string_view::npos && item.substr(0, eq) == name)
      return std::string{item.substr(eq + 1)};
  }
  return {};
}

// The provider sends the browser back here. The state must match the cookie set when the
// flow started, or another site could complete a sign-in in this browser (login CSRF).
route_decision callback_call(const request& req, const boost::urls::url_view& url,
                             const route_context& ctx) {
  auto decision = new_call(callback_route, call_kind::signin_finish, req, ctx);
  auto& call = *decision.call;
  call.key_hash.clear();
  auto params = url.params();
  auto value = [&](std::string_view key) {
    auto i = params.find(key);
    return i == params.end() ? std::string{} : std::string{(*i).value};
  };
  call.code = value("code");
  call.state = value("state");
  call.provider_error = value("error");
  auto cookie = cookie_value(req[http::field::cookie], state_cookie);
  // access_denied is the user cancelling at the provider. Any other error is the provider
  // refusing our request (a wrong callback URL, a suspended app): the operator's problem,
  // reported as the provider's failure.
  if (call.provider_error == "access_denied") {
    call.invalid = make_failure(error_code::signin_cancelled,
                                "sign-in was cancelled at GitHub; start again to sign in");
  } else if (!call.provider_error.empty()) {
    call.invalid = make_failure(error_code::upstream_failure,
                                "GitHub refused the sign-in ("
                                  + valid_utf8(call.provider_error, 100) + ")");
  } else if (call.code.empty()) {
    call.invalid = make_failure(error_code::invalid_input,
                                "the provider sent no code; start again");
  } else if (!same_secret(call.state, cookie)) {
    call.invalid = make_failure(error_code::invalid_input,
                                "this sign-in was not started in this browser, or it took "
                                "longer than 10 minutes; start again");
  }
  return decision;
}

std::string state_cookie_header(std::string_view value, bool secure, bool clear) {
  std::string cookie{state_cookie};
  cookie += "=";
  cookie += value;
  cookie += "; Path=/auth/github; HttpOnly; SameSite=Lax";
  cookie += clear ? "; Max-Age=0" : "; Max-Age=600";
  if (secure)
    cookie += "; Secure";
  return cookie;
}

} // namespace

response render_api(api_outcome&& outcome, call_kind kind, unsigned version, bool keep_alive,
                    bool secure_cookies) {
  switch (kind) {
    case call_kind::signin_start: {
      if (!outcome.error.ok())
        return make_response(lookup(outcome.error.code).status,
                             render_signin_error(outcome.error), "text/html; charset=utf-8",
                             version, keep_alive);
      auto res = make_response(http::status::found, {}, "text/plain", version, keep_alive);
      res.set(http::field::location, outcome.redirect);
      res.set(http::field::set_cookie, state_cookie_header(outcome.state, secure_cookies, false));
      return res;
    }
    case call_kind::ready:
      if (!outcome.error.ok())
        return error_response(outcome.error, version, keep_alive);
      return make_json(http::status::ok, R"({"ok":true})", version, keep_alive);
    case call_kind::metrics:
      // The session fills the body: it holds the edge's counters (render_metrics).
      return make_response(http::status::ok, {}, "text/plain; version=0.0.4", version,
                           keep_alive);
    case call_kind::signin_finish: {
      auto res = outcome.error.ok()
                   ? make_response(http::status::ok, render_account_page(outcome.account),
                                   "text/html; charset=utf-8", version, keep_alive)
                   : make_response(lookup(outcome.error.code).status,
                                   render_signin_error(outcome.error),
                                   "text/html; charset=utf-8", version, keep_alive);
      // The state is single-use.
      res.set(http::field::set_cookie, state_cookie_header("", secure_cookies, true));
      return res;
    }
    default:
      break;
  }
  response res;
  if (!outcome.error.ok()) {
    res = error_response(outcome.error, version, keep_alive);
  } else if (kind == call_kind::account_get || kind == call_kind::account_rotate
             || kind == call_kind::account_revoke) {
    res = make_json(http::status::ok, render_account(outcome.account), version, keep_alive);
  } else {
    // The body moves: a cached offer's few KB are copied no more than they must be.
    res = make_json(http::status::ok, std::move(outcome.body), version, keep_alive);
    // RFC 9111 5.1: how long ago the target gave the answer a cached reply carries.
    if (outcome.age >= 0)
      res.set(http::field::age, std::to_string(outcome.age));
  }
  if (outcome.error.code == error_code::method_not_allowed)
    res.set(http::field::allow, allowed_methods(kind));
  add_cors(res);
  if (outcome.has_quota)
    add_quota(res, outcome.quota);
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
  auto method = req.method();

  if (path == info_route) {
    if (method == http::verb::options)
      return preflight(info_route, "GET", req);
    if (method != http::verb::get)
      return api_method_not_allowed(info_route, call_kind::info, "GET", req, ctx);
    if (ctx.draining)
      return shutting_down(info_route, req);
    return info_call(req, url, ctx);
  }
  if (path == offer_route) {
    if (method == http::verb::options)
      return preflight(offer_route, "POST", req);
    if (method != http::verb::post)
      return api_method_not_allowed(offer_route, call_kind::offer, "POST", req, ctx);
    if (ctx.draining)
      return shutting_down(offer_route, req);
    return offer_call(req, ctx);
  }
  if (path == check_route) {
    if (method == http::verb::options)
      return preflight(check_route, "GET", req);
    if (method != http::verb::get)
      return api_method_not_allowed(check_route, call_kind::check, "GET", req, ctx);
    if (ctx.draining)
      return shutting_down(check_route, req);
    return info_call(req, url, ctx, check_route, call_kind::check);
  }
  if (path == account_route) {
    if (method == http::verb::options)
      return preflight(account_route, "GET", req);
    if (method != http::verb::get)
      return api_method_not_allowed(account_route, call_kind::account_get, "GET", req, ctx);
    return account_call(account_route, call_kind::account_get, req, ctx);
  }
  if (path == account_key_route) {
    if (method == http::verb::options)
      return preflight(account_key_route, "POST, DELETE", req);
    if (method == http::verb::post)
      return account_call(account_key_route, call_kind::account_rotate, req, ctx);
    if (method == http::verb::delete_)
      return account_call(account_key_route, call_kind::account_revoke, req, ctx);
    return api_method_not_allowed(account_key_route, call_kind::account_rotate,
                                  "POST, DELETE", req, ctx);
  }
  if (path == login_route) {
    if (method != http::verb::get)
      return method_not_allowed(login_route, "GET", req);
    return new_call(login_route, call_kind::signin_start, req, ctx);
  }
  if (path == callback_route) {
    if (method != http::verb::get)
      return method_not_allowed(callback_route, "GET", req);
    return callback_call(req, url, ctx);
  }
  if (path == healthz_route) {
    if (method != http::verb::get && method != http::verb::head)
      return method_not_allowed(healthz_route, "GET, HEAD", req);
    return answer(healthz_route,
                  make_json(http::status::ok, R"({"ok":true})", req.version(), keep_alive));
  }
  if (path == readyz_route) {
    if (method != http::verb::get && method != http::verb::head)
      return method_not_allowed(readyz_route, "GET, HEAD", req);
    if (ctx.draining)
      return shutting_down(readyz_route, req);
    return new_call(readyz_route, call_kind::ready, req, ctx);
  }
  if (path == metrics_route) {
    if (method != http::verb::get)
      return method_not_allowed(metrics_route, "GET", req);
    return new_call(metrics_route, call_kind::metrics, req, ctx);
  }
  if (path == openapi_route) {
    if (method != http::verb::get && method != http::verb::head)
      return method_not_allowed(openapi_route, "GET, HEAD", req);
    auto res = make_json(http::status::ok, std::string{ctx.openapi_json}, req.version(),
                         keep_alive);
    res.set(http::field::cache_control, "public, max-age=300");
    add_cors(res);
    return answer(openapi_route, std::move(res));
  }
  auto not_found = make_failure(error_code::not_found, "no route " + std::string{path}
                                                         + "; see /openapi.json for the API");
  if (path.substr(0, 5) == "/api/") {
    auto decision = new_call(unknown_route, call_kind::unknown_api, req, ctx);
    decision.call->invalid = std::move(not_found);
    return decision;
  }
  return answer(unknown_route, error_response(not_found, req.version(), keep_alive));
}

route_decision route_oversized(const request& req, const route_context& ctx,
                               std::size_t body_limit) {
  auto too_large = make_failure(error_code::payload_too_large,
                                "the request body is larger than " + std::to_string(body_limit)
                                  + " bytes");
  // An API call is still a call of its route, counted and shown its quota like any other.
  auto decision = route(req, ctx);
  if (decision.call) {
    if (decision.call->invalid.code != error_code::method_not_allowed)
      decision.call->invalid = std::move(too_large);
    return decision;
  }
  return answer(unknown_route, error_response(too_large, req.version(), false));
}

} // namespace netherscope::net
