#include "net/http/router.hpp"

#include <array>
#include <utility>

#include <boost/beast/http/field.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

#include "net/http/account_page.hpp"
#include "net/http/page.hpp"
#include "net/http/signin.hpp"
#include "net/api/api_json.hpp"
#include "net/api/api_key.hpp"
#include "net/api/error_table.hpp"
#include "net/api/explain.hpp"
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
constexpr std::string_view signout_route = "/auth/signout";
constexpr std::string_view page_route = "/account";
constexpr std::string_view session_route = "/account/session";
constexpr std::string_view page_key_route = "/account/key";
constexpr std::string_view page_revoke_route = "/account/key/revoke";
constexpr std::string_view healthz_route = "/healthz";
constexpr std::string_view readyz_route = "/readyz";
constexpr std::string_view metrics_route = "/metrics";
constexpr std::string_view openapi_route = "/openapi.json";
constexpr std::string_view badge_route = "/badge";
constexpr std::string_view unknown_route = "unknown";

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

route_decision preflight(std::string_view route, std::string_view methods, const request& req) {
  return answer(route, preflight_response(methods, req));
}

failure shutdown_failure() {
  return make_failure(error_code::unavailable, "the service is shutting down");
}

route_decision shutting_down(std::string_view route, const request& req) {
  return answer(route, error_response(shutdown_failure(), req.version(), false));
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

// An API request refused before it became a call of its route: the actors only look up the
// caller's quota for the headers, count nothing, and answer with the error.
route_decision refused_call(std::string_view route, call_kind kind, const request& req,
                            const route_context& ctx, failure error) {
  auto decision = new_call(route, kind, req, ctx);
  decision.call->peek = true;
  decision.call->invalid = std::move(error);
  return decision;
}

// The path of a request target, read without parsing it: for targets that do not parse.
std::string_view raw_path(std::string_view target) {
  return target.substr(0, target.find_first_of("?#"));
}

bool is_api_path(std::string_view path) {
  return path.substr(0, 5) == "/api/";
}

// The call kind whose quota an API path shows, and the path's name for the access log.
std::pair<std::string_view, call_kind> api_route_of(std::string_view path) {
  if (path == info_route)
    return {info_route, call_kind::info};
  if (path == offer_route)
    return {offer_route, call_kind::offer};
  if (path == account_route)
    return {account_route, call_kind::account_get};
  if (path == account_key_route)
    return {account_key_route, call_kind::account_rotate};
  return {unknown_route, call_kind::unknown_api};
}

// A request refused by the edge before routing: under /api/ it still gets the route's CORS
// and quota headers (a look-up through the actors); elsewhere an immediate answer.
route_decision refuse(const request& req, const route_context& ctx, failure error,
                      bool keep_alive) {
  auto path = raw_path(req.target());
  if (is_api_path(path)) {
    auto [name, kind] = api_route_of(path);
    return refused_call(name, kind, req, ctx, std::move(error));
  }
  return answer(unknown_route, error_response(error, req.version(), keep_alive));
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

// The SHA-256 of the browser's session cookie, when it sent exactly one; ambiguous is set
// when it sent several.
std::string session_hash_of(const request& req, const route_context& ctx, bool& ambiguous) {
  auto session = find_cookie(req, signin_cookie_names(ctx.secure_cookies).session);
  ambiguous = session.ambiguous;
  if (!session.found || session.ambiguous || session.value.empty())
    return {};
  return sha256(session.value);
}

// The provider sends the browser back here. The front checks the state against the binding
// cookie set when the flow started, or another site could complete a sign-in in this browser
// (login CSRF), and anyone who saw the URL could redeem it.
route_decision callback_call(const request& req, const boost::urls::url_view& url,
                             const route_context& ctx) {
  auto decision = new_call(callback_route, call_kind::signin_finish, req, ctx);
  auto& call = *decision.call;
  call.key_hash.clear();
  auto params = url.params();
  bool repeated = false;
  auto value = [&](std::string_view key) {
    if (params.count(key) > 1)
      repeated = true;
    auto i = params.find(key);
    return i == params.end() ? std::string{} : std::string{(*i).value};
  };
  call.code = value("code");
  call.state = value("state");
  call.provider_error = value("error");
  auto binding = find_cookie(req, signin_cookie_names(ctx.secure_cookies).binding);
  bool sessions_ambiguous = false;
  call.session_hash = session_hash_of(req, ctx, sessions_ambiguous);
  // access_denied is the user cancelling at the provider. Any other error is the provider
  // refusing our request (a wrong callback URL, a suspended app): the operator's problem,
  // reported as the provider's failure.
  if (repeated) {
    call.invalid = make_failure(error_code::invalid_input,
                                "code, state and error may each be given once; start again");
  } else if (call.provider_error == "access_denied") {
    call.invalid = make_failure(error_code::signin_cancelled,
                                "sign-in was cancelled at GitHub; start again to sign in");
  } else if (!call.provider_error.empty()) {
    call.invalid = make_failure(error_code::upstream_failure,
                                "GitHub refused the sign-in ("
                                  + valid_utf8(call.provider_error, 100) + ")");
  } else if (call.code.empty() || call.state.empty()) {
    call.invalid = make_failure(error_code::invalid_input,
                                "the provider sent no code or no state; start again");
  } else if (binding.ambiguous) {
    call.invalid = make_failure(error_code::invalid_input,
                                "this browser sent two sign-in cookies; clear this site's "
                                "cookies and start again");
  } else if (!binding.found || binding.value.empty()) {
    call.invalid = make_failure(error_code::invalid_input,
                                "this sign-in was not started in this browser, or it took "
                                "longer than 10 minutes; start again");
  } else {
    call.binding = std::move(binding.value);
  }
  return decision;
}

// A request of the account page: the session cookie says who; a POST must come from our own
// page (its Origin, and the token of its form, which the keys actor checks).
route_decision page_call(std::string_view route, call_kind kind, const request& req,
                         const route_context& ctx) {
  route_decision decision;
  decision.route = route;
  api_call call;
  call.kind = kind;
  call.client = ctx.client.subject;
  bool ambiguous = false;
  call.session_hash = session_hash_of(req, ctx, ambiguous);
  if (kind != call_kind::page_view && kind != call_kind::page_session) {
    if (!same_origin_post(req, ctx.public_origin))
      call.invalid = make_failure(error_code::csrf_rejected,
                                  "this request did not come from the account page of "
                                  + std::string{ctx.public_origin}
                                  + "; open the account page there and try again");
    else if (auto token = form_field(req.body(), "csrf"))
      call.csrf = std::move(*token);
    else
      call.invalid = make_failure(error_code::csrf_rejected,
                                  "the form's token is missing; reload the account page and "
                                  "try again");
  }
  if (!call.invalid.ok()) {
    // Refused before the session matters.
  } else if (ambiguous) {
    call.invalid = make_failure(error_code::invalid_input,
                                "this browser sent two session cookies; clear this site's "
                                "cookies and sign in again");
  } else if (call.session_hash.empty()) {
    call.invalid = make_failure(error_code::unauthorized,
                                "you are not signed in; sign in to see your account");
  }
  decision.call = std::move(call);
  return decision;
}

// GET /api/explain[/{code}]: static text from the data file, answered here, outside the
// quotas, with CORS like every /api route.
route_decision explain_answer(std::string_view path, const request& req, bool keep_alive) {
  if (req.method() == http::verb::options)
    return preflight(explain_route, "GET", req);
  if (req.method() != http::verb::get) {
    auto decision = method_not_allowed(explain_route, "GET", req);
    add_cors(*decision.immediate);
    return decision;
  }
  auto code = path.size() > explain_route.size() ? path.substr(explain_route.size() + 1)
                                                 : std::string_view{};
  auto body = code.empty() ? std::optional<std::string>{render_explanation_index()}
                           : render_explanation(code);
  response res;
  if (body) {
    res = make_json(http::status::ok, std::move(*body), req.version(), keep_alive);
    res.set(http::field::cache_control, "public, max-age=3600");
  } else {
    res = error_response(make_failure(error_code::unknown_code,
                                      "nothing explains \"" + valid_utf8(code, 64)
                                        + "\"; GET /api/explain lists the codes"),
                         req.version(), keep_alive);
  }
  add_cors(res);
  return answer(explain_route, std::move(res));
}

} // namespace

std::string allowed_methods(call_kind kind) {
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

response render_unread_error(const failure& error, std::string_view raw_target) {
  auto res = error_response(error, 11, false);
  if (is_api_path(raw_path(raw_target)))
    add_cors(res);
  return res;
}

route_decision route(const request& req, const route_context& ctx) {
  auto keep_alive = req.keep_alive() && !ctx.draining;
  auto parsed = boost::urls::parse_origin_form(req.target());
  if (!parsed) {
    // Raw brackets or a broken %-escape in an API query: not a call of the route, so it is
    // not counted, but it is still answered like one. The message was framed soundly, so the
    // connection may go on.
    return refuse(req, ctx,
                  make_failure(error_code::invalid_input,
                               "the request target is not a valid path or query (RFC 3986); "
                               "percent-encode reserved characters such as [ ] in values"),
                  keep_alive);
  }
  auto url = *parsed;
  auto path = url.path();
  auto method = req.method();

  if (path == info_route) {
    if (method == http::verb::options)
      return preflight(info_route, "GET", req);
    if (method != http::verb::get)
      return api_method_not_allowed(info_route, call_kind::info, "GET", req, ctx);
    if (ctx.draining)
      return refused_call(info_route, call_kind::info, req, ctx, shutdown_failure());
    return info_call(req, url, ctx);
  }
  if (path == offer_route) {
    if (method == http::verb::options)
      return preflight(offer_route, "POST", req);
    if (method != http::verb::post)
      return api_method_not_allowed(offer_route, call_kind::offer, "POST", req, ctx);
    if (ctx.draining)
      return refused_call(offer_route, call_kind::offer, req, ctx, shutdown_failure());
    return offer_call(req, ctx);
  }
  if (path == explain_route || path.substr(0, explain_route.size() + 1) == "/api/explain/")
    return explain_answer(path, req, keep_alive);
  if (path == badge_route) {
    if (method != http::verb::get)
      return method_not_allowed(badge_route, "GET", req);
    if (ctx.draining) {
      api_outcome draining;
      draining.error = make_failure(error_code::unavailable, "the service is shutting down");
      return answer(badge_route, render_api(std::move(draining), call_kind::badge, req.version(), false));
    }
    auto decision = info_call(req, url, ctx, badge_route, call_kind::badge);
    // A badge is embedded in pages other people view: it counts against the viewer's address,
    // never against a key the page happens to send.
    decision.call->key_hash.clear();
    return decision;
  }
  if (path == check_route) {
    if (method == http::verb::options)
      return preflight(check_route, "GET", req);
    if (method != http::verb::get)
      return api_method_not_allowed(check_route, call_kind::check, "GET", req, ctx);
    if (ctx.draining)
      return refused_call(check_route, call_kind::check, req, ctx, shutdown_failure());
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
  // The account page's routes: one method each, all answered through the session cookie.
  struct page_route_entry {
    std::string_view route;
    http::verb method;
    std::string_view allow;
    call_kind kind;
  };
  static constexpr std::array<page_route_entry, 5> page_routes{{
    {page_route, http::verb::get, "GET", call_kind::page_view},
    {session_route, http::verb::get, "GET", call_kind::page_session},
    {page_key_route, http::verb::post, "POST", call_kind::page_new_key},
    {page_revoke_route, http::verb::post, "POST", call_kind::page_revoke},
    {signout_route, http::verb::post, "POST", call_kind::page_sign_out},
  }};
  for (const auto& entry : page_routes) {
    if (path != entry.route)
      continue;
    if (method != entry.method)
      return method_not_allowed(entry.route, entry.allow, req);
    return page_call(entry.route, entry.kind, req, ctx);
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
  // The web page and its files; route names the file, since the table's paths live forever.
  if (auto* asset = find_page_asset(path)) {
    if (method != http::verb::get && method != http::verb::head)
      return method_not_allowed(asset->path, "GET, HEAD", req);
    return answer(asset->path, page_response(*asset, req, keep_alive));
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

route_decision route_refused(const request& req, const route_context& ctx, failure error) {
  return refuse(req, ctx, std::move(error), false);
}

route_decision route_oversized(const request& req, const route_context& ctx,
                               std::size_t body_limit) {
  auto too_large = make_failure(error_code::payload_too_large,
                                "the request body is larger than " + std::to_string(body_limit)
                                  + " bytes");
  // An API call is still a call of its route, counted and shown its quota like any other.
  auto decision = route(req, ctx);
  if (decision.call) {
    // A refusal made before routing (shutdown, a target that does not parse) stands, as does
    // a wrong method: the body was never going to be read.
    if (!decision.call->peek && decision.call->invalid.code != error_code::method_not_allowed)
      decision.call->invalid = std::move(too_large);
    return decision;
  }
  return answer(unknown_route, error_response(too_large, req.version(), false));
}

} // namespace netherscope::net
