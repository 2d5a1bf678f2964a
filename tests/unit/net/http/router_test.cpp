#include <catch2/catch.hpp>

#include <algorithm>

#include <boost/json/parse.hpp>

#include "app/service.hpp"
#include "core/error_table.hpp"
#include "base/crypto.hpp"
#include "net/http/access_log.hpp"
#include "net/http/metrics.hpp"
#include "net/http/page.hpp"
#include "net/http/router.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
namespace http = boost::beast::http;

namespace {

request make_request(http::verb method, std::string target) {
  request req{method, target, 11};
  req.set(http::field::host, "127.0.0.1:8080");
  return req;
}

route_context context() {
  route_context rc;
  rc.client = identify_client(boost::asio::ip::make_address("198.51.100.7"), "", {});
  rc.openapi_json = R"({"openapi":"3.1.0"})";
  return rc;
}

route_decision route_get(std::string target) {
  return route(make_request(http::verb::get, std::move(target)), context());
}

boost::json::object body_of(const response& res) {
  return boost::json::parse(res.body()).as_object();
}

// An info call's validation failure, or an empty string when the input was valid.
std::string invalid_message(const route_decision& d) {
  REQUIRE(d.call);
  CHECK(d.call->kind == call_kind::info);
  if (d.call->invalid.ok())
    return {};
  CHECK(d.call->invalid.code == error_code::invalid_input);
  return d.call->invalid.message;
}

} // namespace

TEST_CASE("router: a valid info query becomes a call with defaults", "[router]") {
  auto d = route_get("/api/info?host=Play.Example.com");
  REQUIRE_FALSE(d.immediate);
  CHECK(invalid_message(d).empty());
  CHECK(d.call->where.host == "play.example.com");
  CHECK(d.call->where.port == 19132);
  CHECK(d.call->where.tls == tls_mode::auto_detect);
  CHECK(d.call->client == "198.51.100.7");
  CHECK(d.route == "/api/info");
  CHECK(d.target_label == "play.example.com:19132");
}

TEST_CASE("router: port and tls are read", "[router]") {
  auto d = route_get("/api/info?host=%5B2001:db8::1%5D&port=19133&tls=true");
  CHECK(invalid_message(d).empty());
  CHECK(d.call->where.host == "2001:db8::1");
  CHECK(d.call->where.port == 19133);
  CHECK(d.call->where.tls == tls_mode::on);
  CHECK(d.target_label == "[2001:db8::1]:19133");
  d = route_get("/api/info?tls=false&host=203.0.113.7&unknown=1");
  CHECK(invalid_message(d).empty());
  CHECK(d.call->where.tls == tls_mode::off);
}

TEST_CASE("router: invalid info queries are counted calls refused as invalid_input",
          "[router]") {
  for (auto target : {"/api/info", "/api/info?host=", "/api/info?host=a..b",
                      "/api/info?host=a.com&port=0", "/api/info?host=a.com&port=abc",
                      "/api/info?host=a.com&tls=maybe", "/api/info?host=a.com&host=b.com",
                      "/api/info?host=a.com&port=1&port=2"}) {
    INFO(target);
    auto d = route_get(target);
    REQUIRE(d.call);
    CHECK(d.call->kind == call_kind::info);
    CHECK(d.call->invalid.code == error_code::invalid_input);
    // Invalid input has no target to log.
    CHECK(d.target_label.empty());
  }
  // The one message whose wording is the point: it tells a first-time caller what host is.
  CHECK(invalid_message(route_get("/api/info")).rfind("host is required", 0) == 0);
}

TEST_CASE("router: a wrong method on the API is a counted call answered 405", "[router]") {
  for (auto verb : {http::verb::post, http::verb::put, http::verb::delete_, http::verb::head}) {
    auto d = route(make_request(verb, "/api/info?host=a.com"), context());
    REQUIRE(d.call);
    CHECK(d.call->kind == call_kind::info);
    CHECK(d.call->invalid.code == error_code::method_not_allowed);
    api_outcome outcome;
    outcome.error = d.call->invalid;
    auto res = render_api(outcome, d.call->kind, 11, true);
    CHECK(res.result() == http::status::method_not_allowed);
    CHECK(res.at(http::field::allow) == "GET");
    CHECK(body_of(res).at("code") == "method_not_allowed");
    CHECK(res.at(http::field::access_control_allow_origin) == "*");
  }
  auto d = route(make_request(http::verb::get, "/api/offer"), context());
  REQUIRE(d.call);
  api_outcome outcome;
  outcome.error = d.call->invalid;
  CHECK(render_api(outcome, d.call->kind, 11, true).at(http::field::allow) == "POST");
}

TEST_CASE("router: unknown API paths are calls answered 404", "[router]") {
  auto d = route_get("/api/nope");
  REQUIRE(d.call);
  CHECK(d.call->kind == call_kind::unknown_api);
  CHECK(d.call->invalid.code == error_code::not_found);
}

TEST_CASE("router: unknown routes are JSON 404", "[router]") {
  for (auto target : {"/index.htm", "/api", "/v1/join", "/apix"}) {
    auto d = route_get(target);
    REQUIRE(d.immediate);
    CHECK(d.immediate->result() == http::status::not_found);
    CHECK(d.immediate->at(http::field::content_type) == "application/json");
    auto body = body_of(*d.immediate);
    CHECK(body.at("ok") == false);
    CHECK(body.at("code") == "not_found");
  }
}

TEST_CASE("router: CORS preflight on the API", "[router]") {
  auto d = route(make_request(http::verb::options, "/api/info"), context());
  REQUIRE(d.immediate);
  CHECK(d.immediate->result() == http::status::no_content);
  CHECK(d.immediate->at(http::field::access_control_allow_origin) == "*");
  CHECK(d.immediate->at(http::field::access_control_allow_headers).find("X-API-Key")
        != std::string::npos);
}

TEST_CASE("router: health and OpenAPI", "[router]") {
  auto d = route_get("/healthz");
  REQUIRE(d.immediate);
  CHECK(d.immediate->result() == http::status::ok);
  CHECK(body_of(*d.immediate).at("ok") == true);
  d = route_get("/openapi.json");
  REQUIRE(d.immediate);
  CHECK(d.immediate->body() == R"({"openapi":"3.1.0"})");
}

TEST_CASE("router: draining refuses API calls with 503, uncounted, and closes", "[router]") {
  auto rc = context();
  rc.draining = true;
  struct row {
    http::verb method;
    const char* target;
    call_kind kind;
  };
  for (auto r : {row{http::verb::get, "/api/info?host=a.com", call_kind::info},
                 row{http::verb::post, "/api/offer", call_kind::offer},
                 row{http::verb::get, "/api/check?host=a.com", call_kind::check}}) {
    INFO(r.target);
    auto req = make_request(r.method, r.target);
    req.set(http::field::content_type, "application/json");
    req.set("X-API-Key", "nsk_abc");
    auto d = route(req, rc);
    // Still a call: the actors look up the caller's quota for the headers, counting nothing.
    REQUIRE(d.call);
    CHECK(d.call->kind == r.kind);
    CHECK(d.call->peek);
    CHECK(d.call->invalid.code == error_code::unavailable);
    CHECK_FALSE(d.call->key_hash.empty());
    api_outcome outcome;
    outcome.error = d.call->invalid;
    outcome.has_quota = true;
    outcome.quota.scope = quota_scope::key;
    outcome.quota.limit = 20000;
    outcome.quota.remaining = 17;
    outcome.quota.reset = 1798761600;
    auto res = render_api(outcome, d.call->kind, 11, false);
    CHECK(res.result() == http::status::service_unavailable);
    CHECK(body_of(res).at("code") == "unavailable");
    CHECK(res.at(http::field::access_control_allow_origin) == "*");
    CHECK(res.at("X-RateLimit-Remaining") == "17");
    CHECK_FALSE(res.keep_alive());
  }
  // Outside the API the answer is immediate.
  auto ready = route(make_request(http::verb::get, "/readyz"), rc);
  REQUIRE(ready.immediate);
  CHECK(ready.immediate->result() == http::status::service_unavailable);
  CHECK_FALSE(ready.immediate->keep_alive());
  // A served call never looks up alone.
  CHECK_FALSE(route_get("/api/info?host=a.com").call->peek);
}

TEST_CASE("router: a target that is not a path is 400", "[router]") {
  auto d = route_get("http://evil/x");
  REQUIRE(d.immediate);
  CHECK(d.immediate->result() == http::status::bad_request);
  CHECK(d.immediate->count(http::field::access_control_allow_origin) == 0);
}

TEST_CASE("router: an API target that does not parse is refused like a call of its route",
          "[router]") {
  struct row {
    const char* target;
    call_kind kind;
    std::string_view route;
  };
  // Raw brackets in a query value and broken %-escapes are not RFC 3986; the path still says
  // which route, and so which quota, the caller meant.
  for (auto r : {row{"/api/info?host=[::1]", call_kind::info, "/api/info"},
                 row{"/api/info?host=%zz", call_kind::info, "/api/info"},
                 row{"/api/offer?x=%", call_kind::offer, "/api/offer"},
                 row{"/api/account?a=[", call_kind::account_get, "/api/account"},
                 row{"/api/nope?[", call_kind::unknown_api, "unknown"}}) {
    INFO(r.target);
    auto d = route_get(r.target);
    REQUIRE(d.call);
    CHECK(d.call->kind == r.kind);
    CHECK(d.route == r.route);
    CHECK(d.call->peek);
    CHECK(d.call->invalid.code == error_code::invalid_input);
  }
  // Outside the API it stays an immediate answer.
  auto page = route_get("/healthz?[");
  REQUIRE(page.immediate);
  CHECK(page.immediate->result() == http::status::bad_request);
}

TEST_CASE("router: a header refused before routing keeps the route's headers on the API",
          "[router]") {
  auto why = make_failure(error_code::invalid_input, "framed two ways");
  auto post = make_request(http::verb::post, "/api/offer?x=1");
  auto d = route_refused(post, context(), why);
  REQUIRE(d.call);
  CHECK(d.call->kind == call_kind::offer);
  CHECK(d.call->peek);
  CHECK(d.call->invalid.code == error_code::invalid_input);
  CHECK(d.route == "/api/offer");
  auto page = route_refused(make_request(http::verb::get, "/healthz"), context(),
                            make_failure(error_code::uri_too_long, "long"));
  REQUIRE(page.immediate);
  CHECK(page.immediate->result() == http::status::uri_too_long);
  CHECK(body_of(*page.immediate).at("code") == "uri_too_long");
  CHECK_FALSE(page.immediate->keep_alive());
  // A refusal made before routing stands over an oversized body.
  auto rc = context();
  rc.draining = true;
  auto late = make_request(http::verb::post, "/api/offer");
  late.set(http::field::content_type, "application/json");
  auto over = route_oversized(late, rc, 1000);
  REQUIRE(over.call);
  CHECK(over.call->invalid.code == error_code::unavailable);
}

TEST_CASE("router: an unread header's error is JSON, closes, and has CORS on the API",
          "[router]") {
  auto api = render_unread_error(make_failure(error_code::headers_too_large, "big"),
                                 "/api/info?host=a.com");
  CHECK(api.result() == http::status::request_header_fields_too_large);
  CHECK(api.at(http::field::content_type) == "application/json");
  CHECK(body_of(api).at("ok") == false);
  CHECK(body_of(api).at("code") == "headers_too_large");
  CHECK(api.at(http::field::access_control_allow_origin) == "*");
  CHECK_FALSE(api.keep_alive());
  auto page = render_unread_error(make_failure(error_code::uri_too_long, "long"), "/x");
  CHECK(page.result() == http::status::uri_too_long);
  CHECK(page.count(http::field::access_control_allow_origin) == 0);
  CHECK_FALSE(page.keep_alive());
}

TEST_CASE("router: outcomes render per the error table", "[router]") {
  api_outcome ok;
  ok.body = R"({"ok":true})";
  auto res = render_api(ok, call_kind::info, 11, true);
  CHECK(res.result() == http::status::ok);
  CHECK(res.body() == ok.body);

  struct row {
    error_code code;
    http::status status;
  };
  for (auto r : {row{error_code::invalid_input, http::status::bad_request},
                 row{error_code::unauthorized, http::status::unauthorized},
                 row{error_code::forbidden_target, http::status::forbidden},
                 row{error_code::signin_cancelled, http::status::forbidden},
                 row{error_code::payload_too_large, http::status::payload_too_large},
                 row{error_code::unsupported_media_type, http::status::unsupported_media_type},
                 row{error_code::uri_too_long, http::status::uri_too_long},
                 row{error_code::headers_too_large,
                     http::status::request_header_fields_too_large},
                 row{error_code::quota_exhausted, http::status::too_many_requests},
                 row{error_code::target_rate_limited, http::status::too_many_requests},
                 row{error_code::upstream_failure, http::status::bad_gateway},
                 row{error_code::upstream_timeout, http::status::gateway_timeout},
                 row{error_code::unavailable, http::status::service_unavailable}}) {
    api_outcome bad;
    bad.error = make_failure(r.code, "because");
    auto res = render_api(bad, call_kind::info, 11, true);
    CHECK(res.result() == r.status);
    auto body = body_of(res);
    CHECK(body.at("ok") == false);
    const auto machine_code = lookup(r.code).machine_code;
    CHECK(body.at("code").as_string()
          == boost::json::string_view{machine_code.data(), machine_code.size()});
    CHECK(body.at("error") == "because");
  }

  api_outcome limited;
  limited.error = make_failure(error_code::quota_exhausted, "quota exhausted");
  limited.error.retry_after = 3600;
  CHECK(render_api(limited, call_kind::offer, 11, true).at(http::field::retry_after) == "3600");
  // The per-target limit says how long to wait the same way.
  api_outcome busy_target;
  busy_target.error = make_failure(error_code::target_rate_limited, "retry in 42 s");
  busy_target.error.retry_after = 42;
  auto busy = render_api(busy_target, call_kind::offer, 11, true);
  CHECK(busy.result() == http::status::too_many_requests);
  CHECK(busy.at(http::field::retry_after) == "42");
  CHECK(body_of(busy).at("code") == "target_rate_limited");
}

TEST_CASE("router: upstream status errors are objects", "[router]") {
  api_outcome bad;
  bad.error.code = error_code::upstream_status;
  bad.error.http_status = 404;
  bad.error.body = std::string(5000, 'x');
  auto res = render_api(bad, call_kind::info, 11, true);
  CHECK(res.result() == http::status::bad_gateway);
  auto error = body_of(res).at("error").as_object();
  CHECK(error.at("httpStatus") == 404);
  CHECK(error.at("body").as_string().size() == 2048);
  CHECK_FALSE(error.contains("nethernetError"));

  bad.error.body = "37";
  bad.error.nethernet_error = 37;
  bad.error.reason = "IdentityVerificationFailed";
  error = body_of(render_api(bad, call_kind::info, 11, true)).at("error").as_object();
  CHECK(error.at("nethernetError") == 37);
  CHECK(error.at("reason") == "IdentityVerificationFailed");
}

TEST_CASE("router: quota headers on API responses", "[router]") {
  api_outcome outcome;
  outcome.body = R"({"ok":true})";
  outcome.has_quota = true;
  outcome.quota.scope = quota_scope::key;
  outcome.quota.limit = 20000;
  outcome.quota.remaining = 19999;
  outcome.quota.reset = 1798761600;
  auto res = render_api(outcome, call_kind::info, 11, true);
  CHECK(res.at("X-RateLimit-Scope") == "key");
  CHECK(res.at("X-RateLimit-Limit") == "20000");
  CHECK(res.at("X-RateLimit-Remaining") == "19999");
  CHECK(res.at("X-RateLimit-Reset") == "1798761600");
  outcome.error = make_failure(error_code::upstream_timeout, "slow");
  res = render_api(outcome, call_kind::info, 11, true);
  CHECK(res.result() == http::status::gateway_timeout);
  CHECK(res.at("X-RateLimit-Scope") == "key");
}

TEST_CASE("router: a store failure shows what is known of the quota, not a made-up count",
          "[router]") {
  api_outcome outcome;
  outcome.error = make_failure(error_code::unavailable, "usage could not be recorded");
  outcome.has_quota = true;
  outcome.quota.error = outcome.error;
  outcome.quota.scope = quota_scope::ip;
  outcome.quota.limit = 2000;
  outcome.quota.reset = 1798761600;
  auto res = render_api(outcome, call_kind::info, 11, true);
  CHECK(res.result() == http::status::service_unavailable);
  CHECK(res.at(http::field::access_control_allow_origin) == "*");
  CHECK(res.at("X-RateLimit-Scope") == "ip");
  CHECK(res.at("X-RateLimit-Limit") == "2000");
  CHECK(res.at("X-RateLimit-Reset") == "1798761600");
  CHECK(res.count("X-RateLimit-Remaining") == 0);
}

TEST_CASE("router: keys are read from either header and only hashed", "[router]") {
  auto req = make_request(http::verb::get, "/api/info?host=a.com");
  req.set("X-API-Key", "nsk_abc");
  auto d = route(req, context());
  REQUIRE(d.call);
  CHECK(d.call->key_hash.size() == 32);
  CHECK(d.call->key_hash.find("nsk_abc") == std::string::npos);
  auto bearer = make_request(http::verb::get, "/api/info?host=a.com");
  bearer.set(http::field::authorization, "Bearer nsk_abc");
  auto d2 = route(bearer, context());
  CHECK(d2.call->key_hash == d.call->key_hash);
  auto none = route_get("/api/info?host=a.com");
  CHECK(none.call->key_hash.empty());
}

TEST_CASE("router: account routes need a key", "[router]") {
  auto d = route_get("/api/account");
  REQUIRE(d.call);
  CHECK(d.call->kind == call_kind::account_get);
  CHECK(d.call->invalid.code == error_code::unauthorized);
  auto post = make_request(http::verb::post, "/api/account/key");
  post.set("X-API-Key", "nsk_x");
  auto p = route(post, context());
  REQUIRE(p.call);
  CHECK(p.call->kind == call_kind::account_rotate);
  CHECK(p.call->invalid.ok());
  auto del = make_request(http::verb::delete_, "/api/account/key");
  del.set("X-API-Key", "nsk_x");
  CHECK(route(del, context()).call->kind == call_kind::account_revoke);
}

TEST_CASE("router: sign-in start redirects and sets the binding cookie", "[router]") {
  auto d = route_get("/auth/github/login");
  REQUIRE(d.call);
  CHECK(d.call->kind == call_kind::signin_start);
  api_outcome outcome;
  outcome.redirect = "https://github.com/login/oauth/authorize?state=abc";
  outcome.binding = "the-binding";
  auto res = render_api(outcome, call_kind::signin_start, 11, true, true);
  CHECK(res.result() == http::status::found);
  CHECK(res.at(http::field::location) == outcome.redirect);
  CHECK(res.at("Referrer-Policy") == "no-referrer");
  // Over HTTPS: the __Host- name, which browsers accept only Secure, on Path=/, without
  // Domain, so no other host or plain-HTTP page can plant or overwrite it.
  auto cookie = std::string{res.at(http::field::set_cookie)};
  CHECK(cookie.find("__Host-ns_signin=the-binding;") == 0);
  CHECK(cookie.find("; Path=/;") != std::string::npos);
  CHECK(cookie.find("HttpOnly") != std::string::npos);
  CHECK(cookie.find("SameSite=Lax") != std::string::npos);
  CHECK(cookie.find("Max-Age=600") != std::string::npos);
  CHECK(cookie.find("; Secure") != std::string::npos);
  CHECK(cookie.find("Domain") == std::string::npos);
  // Over plain HTTP browsers refuse both Secure and __Host-: the plain name.
  auto plain = std::string{render_api(outcome, call_kind::signin_start, 11, true, false)
                             .at(http::field::set_cookie)};
  CHECK(plain.find("ns_signin=the-binding;") == 0);
  CHECK(plain.find("Secure") == std::string::npos);
}

namespace {

route_decision callback_with(std::string target, std::vector<std::string> cookies,
                             bool secure = false) {
  auto req = make_request(http::verb::get, std::move(target));
  for (auto& cookie : cookies)
    req.insert(http::field::cookie, cookie);
  auto rc = context();
  rc.secure_cookies = secure;
  return route(req, rc);
}

} // namespace

TEST_CASE("router: the callback reads the binding cookie of its scheme, once", "[router]") {
  auto ok = callback_with("/auth/github/callback?code=c1&state=s123", {"a=b; ns_signin=bind"});
  REQUIRE(ok.call);
  CHECK(ok.call->kind == call_kind::signin_finish);
  CHECK(ok.call->invalid.ok());
  CHECK(ok.call->code == "c1");
  CHECK(ok.call->state == "s123");
  CHECK(ok.call->binding == "bind");
  // Over HTTPS only the __Host- cookie counts: a plain one may have been planted.
  auto secure = callback_with("/auth/github/callback?code=c1&state=s123",
                              {"__Host-ns_signin=bind"}, true);
  CHECK(secure.call->invalid.ok());
  CHECK(secure.call->binding == "bind");
  CHECK(callback_with("/auth/github/callback?code=c1&state=s123", {"ns_signin=bind"}, true)
          .call->invalid.code
        == error_code::invalid_input);
  // No cookie, no code, no state.
  CHECK(callback_with("/auth/github/callback?code=c1&state=s123", {}).call->invalid.code
        == error_code::invalid_input);
  CHECK(callback_with("/auth/github/callback?state=s123", {"ns_signin=bind"})
          .call->invalid.code
        == error_code::invalid_input);
  CHECK(callback_with("/auth/github/callback?code=c1", {"ns_signin=bind"}).call->invalid.code
        == error_code::invalid_input);
  // Two cookies of the name, in one header or in two, are ambiguous: neither wins.
  for (auto cookies : {std::vector<std::string>{"ns_signin=mine; ns_signin=theirs"},
                       std::vector<std::string>{"ns_signin=mine", "ns_signin=theirs"}}) {
    auto d = callback_with("/auth/github/callback?code=c1&state=s123", cookies);
    CHECK(d.call->invalid.code == error_code::invalid_input);
    CHECK(d.call->binding.empty());
  }
  // So are two states or codes.
  CHECK(callback_with("/auth/github/callback?code=c1&state=a&state=b", {"ns_signin=bind"})
          .call->invalid.code
        == error_code::invalid_input);
  // The session cookie, if any, travels as its hash, so the sign-in can end that session.
  auto with_session = callback_with("/auth/github/callback?code=c1&state=s123",
                                    {"ns_signin=bind; ns_session=old-session"});
  CHECK(with_session.call->session_hash.size() == 32);
  CHECK(with_session.call->session_hash.find("old-session") == std::string::npos);
}

TEST_CASE("router: a finished sign-in shows a first key, or sends an existing account on",
          "[router]") {
  api_outcome first;
  first.account.login = "octocat";
  first.account.new_key = "nsk_first";
  first.account.session = "session-id";
  first.account.csrf = "token";
  auto page = render_api(first, call_kind::signin_finish, 11, true, true);
  CHECK(page.result() == http::status::ok);
  CHECK(page.body().find("nsk_first") != std::string::npos);
  std::vector<std::string> cookies;
  auto [first_cookie, end_cookie] = page.equal_range(http::field::set_cookie);
  for (auto i = first_cookie; i != end_cookie; ++i)
    cookies.emplace_back(i->value());
  REQUIRE(cookies.size() == 2);
  CHECK(cookies[0].find("__Host-ns_signin=;") == 0);
  CHECK(cookies[0].find("Max-Age=0") != std::string::npos);
  CHECK(cookies[1].find("__Host-ns_session=session-id;") == 0);
  CHECK(cookies[1].find("Max-Age=3600") != std::string::npos);
  CHECK(cookies[1].find("HttpOnly") != std::string::npos);
  CHECK(cookies[1].find("SameSite=Lax") != std::string::npos);
  CHECK(cookies[1].find("; Secure") != std::string::npos);
  // An account that existed keeps its key: no key on any page, a redirect to the account
  // page instead, so the URL with the code leaves the address bar.
  api_outcome again = first;
  again.account.new_key.clear();
  auto redirect = render_api(again, call_kind::signin_finish, 11, true, false);
  CHECK(redirect.result() == http::status::see_other);
  CHECK(redirect.at(http::field::location) == "/account");
  CHECK(redirect.at("Referrer-Policy") == "no-referrer");
  CHECK(redirect.body().find("nsk_") == std::string::npos);
}

namespace {

request page_post(std::string target, std::string body = "csrf=tok") {
  auto req = make_request(http::verb::post, std::move(target));
  req.set(http::field::cookie, "ns_session=sid");
  req.set(http::field::content_type, "application/x-www-form-urlencoded");
  req.body() = std::move(body);
  req.prepare_payload();
  return req;
}

route_context page_context() {
  auto rc = context();
  rc.public_origin = "https://netherscope.example";
  return rc;
}

} // namespace

TEST_CASE("router: the account page needs its session cookie", "[router]") {
  auto none = route(make_request(http::verb::get, "/account"), page_context());
  REQUIRE(none.call);
  CHECK(none.call->kind == call_kind::page_view);
  CHECK(none.call->invalid.code == error_code::unauthorized);
  auto req = make_request(http::verb::get, "/account");
  req.set(http::field::cookie, "ns_session=sid");
  auto d = route(req, page_context());
  CHECK(d.call->invalid.ok());
  CHECK(d.call->session_hash.size() == 32);
  req.set(http::field::cookie, "ns_session=sid; ns_session=planted");
  CHECK(route(req, page_context()).call->invalid.code == error_code::invalid_input);
  // Its POST routes are POST only.
  auto get = route(make_request(http::verb::get, "/account/key"), page_context());
  REQUIRE(get.immediate);
  CHECK(get.immediate->result() == http::status::method_not_allowed);
}

TEST_CASE("router: the account page's POSTs come from our origin with the form's token",
          "[router]") {
  auto rc = page_context();
  struct row {
    const char* origin;
    const char* fetch_site;
    bool allowed;
  };
  for (auto r : {row{"https://netherscope.example", nullptr, true},
                 row{"HTTPS://NetherScope.example:443", nullptr, true},
                 row{"https://netherscope.example", "same-origin", true},
                 // Our pages say Referrer-Policy: no-referrer, so browsers send Origin: null
                 // with our own forms; then only Sec-Fetch-Site vouches.
                 row{"null", "same-origin", true},
                 row{nullptr, "same-origin", true},
                 row{"https://evil.example", nullptr, false},
                 row{"https://evil.example", "cross-site", false},
                 row{"http://netherscope.example", nullptr, false},
                 row{"https://netherscope.example:8443", nullptr, false},
                 row{"https://netherscope.example", "cross-site", false},
                 row{"https://netherscope.example", "same-site", false},
                 row{"null", nullptr, false},
                 row{"null", "cross-site", false},
                 row{nullptr, nullptr, false}}) {
    for (auto [target, kind] : {std::pair{"/account/key", call_kind::page_new_key},
                                std::pair{"/account/key/revoke", call_kind::page_revoke},
                                std::pair{"/auth/signout", call_kind::page_sign_out}}) {
      auto req = page_post(target);
      if (r.origin)
        req.set(http::field::origin, r.origin);
      if (r.fetch_site)
        req.set("Sec-Fetch-Site", r.fetch_site);
      auto d = route(req, rc);
      INFO(target << " Origin: " << (r.origin ? r.origin : "-")
                  << " Sec-Fetch-Site: " << (r.fetch_site ? r.fetch_site : "-"));
      REQUIRE(d.call);
      CHECK(d.call->kind == kind);
      if (r.allowed) {
        CHECK(d.call->invalid.ok());
        CHECK(d.call->csrf == "tok");
      } else {
        CHECK(d.call->invalid.code == error_code::csrf_rejected);
      }
    }
  }
  // Two Origin headers are refused; a form without its token, or with two, is refused.
  auto twice = page_post("/account/key");
  twice.insert(http::field::origin, "https://netherscope.example");
  twice.insert(http::field::origin, "https://evil.example");
  CHECK(route(twice, rc).call->invalid.code == error_code::csrf_rejected);
  for (auto body : {"", "other=1", "csrf=a&csrf=b", "%zz"}) {
    auto req = page_post("/account/key", body);
    req.set(http::field::origin, "https://netherscope.example");
    INFO(body);
    CHECK(route(req, rc).call->invalid.code == error_code::csrf_rejected);
  }
}

TEST_CASE("router: the account page's watch forms read their fields as the API reads them",
          "[router]") {
  auto rc = page_context();
  auto post = [&](std::string target, std::string body, const char* origin = "null") {
    auto req = page_post(std::move(target), std::move(body));
    req.set(http::field::origin, origin);
    req.set("Sec-Fetch-Site", "same-origin");
    return route(req, rc);
  };
  auto add = post("/account/watch",
                  "csrf=tok&host=Play.Example.COM&port=19133&periodSeconds=60&public=true");
  REQUIRE(add.call);
  CHECK(add.call->kind == call_kind::page_watch_add);
  CHECK(add.call->invalid.ok());
  CHECK(add.call->csrf == "tok");
  CHECK(add.call->session_hash.size() == 32);
  CHECK(add.call->key_hash.empty());
  CHECK(add.call->watch.host == "play.example.com");
  CHECK(add.call->watch.port == 19133);
  CHECK(add.call->watch.period_seconds == 60);
  CHECK(add.call->watch.is_public);
  // An unchecked box sends nothing; empty numbers take the API's defaults.
  auto plain = post("/account/watch", "csrf=tok&host=a.example&port=&periodSeconds=");
  CHECK(plain.call->invalid.ok());
  CHECK(plain.call->watch.port == 19132);
  CHECK(plain.call->watch.period_seconds == 300);
  CHECK_FALSE(plain.call->watch.is_public);
  for (auto body : {"csrf=tok&host=a.example&port=0", "csrf=tok&host=a.example&port=70000",
                    "csrf=tok&port=19132", "csrf=tok&host=a+b",
                    "csrf=tok&host=a.example&periodSeconds=often"}) {
    INFO(body);
    CHECK(post("/account/watch", body).call->invalid.code == error_code::invalid_input);
  }
  // The token and the origin come first, as for the key forms.
  CHECK(post("/account/watch", "host=a.example").call->invalid.code == error_code::csrf_rejected);
  CHECK(post("/account/watch", "csrf=tok&host=a.example", "https://evil.example")
          .call->invalid.code
        == error_code::csrf_rejected);

  auto stop = post("/account/watch/delete", "csrf=tok&watch=AAAAAAAAAAAAAAAA");
  CHECK(stop.call->kind == call_kind::page_watch_delete);
  CHECK(stop.call->invalid.ok());
  CHECK(stop.call->watch_id == "AAAAAAAAAAAAAAAA");
  CHECK(post("/account/watch/delete", "csrf=tok&watch=short").call->invalid.code
        == error_code::unknown_watch);
  CHECK(post("/account/watch/delete", "csrf=tok").call->invalid.code == error_code::unknown_watch);

  auto hook = post("/account/webhook",
                   "csrf=tok&watch=AAAAAAAAAAAAAAAA&url=https%3A%2F%2Fhooks.example%2Fin&format=discord");
  CHECK(hook.call->kind == call_kind::page_webhook_add);
  CHECK(hook.call->invalid.ok());
  CHECK(hook.call->webhook.url == "https://hooks.example/in");
  CHECK(hook.call->webhook.format == webhook_format::discord);
  CHECK(post("/account/webhook", "csrf=tok&watch=AAAAAAAAAAAAAAAA&url=https%3A%2F%2Fa.example&format=xml")
          .call->invalid.code
        == error_code::invalid_input);

  auto unhook = post("/account/webhook/delete",
                     "csrf=tok&watch=AAAAAAAAAAAAAAAA&webhook=BBBBBBBBBBBBBBBB");
  CHECK(unhook.call->kind == call_kind::page_webhook_delete);
  CHECK(unhook.call->invalid.ok());
  CHECK(unhook.call->webhook_id == "BBBBBBBBBBBBBBBB");
  CHECK(post("/account/webhook/delete", "csrf=tok&watch=AAAAAAAAAAAAAAAA&webhook=x")
          .call->invalid.code
        == error_code::unknown_webhook);

  // The forms are POST only.
  auto get = route(make_request(http::verb::get, "/account/watch"), rc);
  REQUIRE(get.immediate);
  CHECK(get.immediate->result() == http::status::method_not_allowed);
}

TEST_CASE("router: every HTML page carries the security headers", "[router]") {
  std::vector<response> pages;
  api_outcome failed;
  failed.error = make_failure(error_code::signin_cancelled, "cancelled");
  pages.push_back(render_api(failed, call_kind::signin_finish, 11, true));
  pages.push_back(render_api(failed, call_kind::signin_start, 11, true));
  api_outcome first;
  first.account.login = "octocat";
  first.account.new_key = "nsk_first";
  first.account.csrf = "tok";
  pages.push_back(render_api(first, call_kind::signin_finish, 11, true));
  api_outcome view;
  view.account.login = "octocat";
  view.account.csrf = "tok";
  view.account.key_active = true;
  for (auto kind : {call_kind::page_view, call_kind::page_new_key, call_kind::page_revoke})
    pages.push_back(render_api(view, kind, 11, true));
  api_outcome out;
  out.signed_out = true;
  pages.push_back(render_api(out, call_kind::page_sign_out, 11, true));
  api_outcome refused;
  refused.error = make_failure(error_code::csrf_rejected, "no");
  pages.push_back(render_api(refused, call_kind::page_new_key, 11, true));
  for (auto& page : pages) {
    INFO(page.body());
    CHECK(page.at(http::field::content_type).find("text/html") == 0);
    auto csp = std::string{page.at("Content-Security-Policy")};
    CHECK(csp.find("default-src 'none'") != std::string::npos);
    CHECK(csp.find("frame-ancestors 'none'") != std::string::npos);
    CHECK(csp.find("form-action 'self'") != std::string::npos);
    CHECK(csp.find("unsafe-inline") == std::string::npos);
    CHECK(csp.find("script-src") == std::string::npos); // default-src 'none' covers scripts
    CHECK(page.at("Referrer-Policy") == "no-referrer");
    CHECK(page.at("X-Frame-Options") == "DENY");
    CHECK(page.at("X-Content-Type-Options") == "nosniff");
    CHECK(page.body().find("<script") == std::string::npos);
    // Styled by the page's own stylesheet, which the policy allows; no inline style.
    CHECK(page.body().find("<style") == std::string::npos);
    CHECK(page.body().find("<link rel=\"stylesheet\" href=\"/page.css\">") != std::string::npos);
    CHECK(csp.find("style-src 'self'") != std::string::npos);
  }
  // The forms carry the session's token.
  CHECK(pages[3].body().find("name=\"csrf\" value=\"tok\"") != std::string::npos);
}

TEST_CASE("router: the hourly limits say when to come back", "[router]") {
  api_outcome limited;
  limited.error = make_failure(error_code::rotation_limited, "later");
  limited.error.retry_after = 1200;
  auto api = render_api(limited, call_kind::account_rotate, 11, true);
  CHECK(api.result() == http::status::too_many_requests);
  CHECK(api.at(http::field::retry_after) == "1200");
  CHECK(body_of(api).at("code") == "rotation_limited");
  auto page = render_api(limited, call_kind::page_new_key, 11, true);
  CHECK(page.result() == http::status::too_many_requests);
  CHECK(page.at(http::field::retry_after) == "1200");
  limited.error = make_failure(error_code::signin_rate_limited, "later");
  limited.error.retry_after = 60;
  auto signin = render_api(limited, call_kind::signin_finish, 11, true);
  CHECK(signin.result() == http::status::too_many_requests);
  CHECK(signin.at(http::field::retry_after) == "60");
  CHECK(signin.body().find("<code id=\"error-code\">signin_rate_limited</code>")
        != std::string::npos);
}

TEST_CASE("router: a sign-in cancelled at the provider is signin_cancelled", "[router]") {
  auto d = route_get("/auth/github/callback?error=access_denied&state=s");
  REQUIRE(d.call);
  CHECK(d.call->kind == call_kind::signin_finish);
  CHECK(d.call->invalid.code == error_code::signin_cancelled);
  api_outcome outcome;
  outcome.error = d.call->invalid;
  auto res = render_api(outcome, call_kind::signin_finish, 11, true);
  CHECK(res.result() == http::status::forbidden);
  CHECK(res.at(http::field::content_type).find("text/html") == 0);
  // The state cookie is cleared: that sign-in is over.
  CHECK(std::string{res.at(http::field::set_cookie)}.find("Max-Age=0") != std::string::npos);
  // Another provider error is the provider refusing us (a wrong callback URL, say), not the
  // user changing their mind.
  auto refused = route_get("/auth/github/callback?error=redirect_uri_mismatch&state=s");
  REQUIRE(refused.call);
  CHECK(refused.call->invalid.code == error_code::upstream_failure);
}

TEST_CASE("router: an oversized body is refused naming the limit in force", "[router]") {
  auto post = make_request(http::verb::post, "/api/offer");
  post.set(http::field::content_type, "application/json");
  auto d = route_oversized(post, context(), 1000);
  REQUIRE(d.call);
  CHECK(d.call->kind == call_kind::offer);
  CHECK(d.call->invalid.code == error_code::payload_too_large);
  // The limit is a setting, so the message must come from it, not from a constant.
  CHECK(d.call->invalid.message == "the request body is larger than 1000 bytes");
  // Outside the API the answer is immediate, and the connection closes.
  auto page = route_oversized(make_request(http::verb::post, "/healthz"), context(), 1000);
  REQUIRE(page.immediate);
  CHECK(page.immediate->result() == http::status::payload_too_large);
  CHECK(body_of(*page.immediate).at("code") == "payload_too_large");
  CHECK_FALSE(page.immediate->keep_alive());
  // A wrong method stays the answer: the body was never going to be read.
  auto get = route_oversized(make_request(http::verb::get, "/api/offer"), context(), 1000);
  REQUIRE(get.call);
  CHECK(get.call->invalid.code == error_code::method_not_allowed);
}

TEST_CASE("router: the OpenAPI error enum lists every code of the error table", "[router]") {
  auto doc = boost::json::parse(openapi_document);
  auto& listed = doc.at("components").at("schemas").at("Error").at("properties").at("code")
                   .at("enum").as_array();
  std::vector<std::string> from_table;
  for (auto code = error_code::invalid_input; code <= error_code::internal;
       code = static_cast<error_code>(static_cast<int>(code) + 1))
    from_table.emplace_back(std::string{lookup(code).machine_code});
  std::vector<std::string> from_document;
  for (auto& item : listed)
    from_document.emplace_back(std::string{item.as_string()});
  CHECK(from_document == from_table);
}

TEST_CASE("router: an offer body becomes a call, expected ports included", "[router]") {
  auto post = make_request(http::verb::post, "/api/offer");
  post.set(http::field::content_type, "application/json");
  post.body() = R"({"host":"A.com","port":19133,"fresh":true,"expectPorts":[40000,40001]})";
  post.prepare_payload();
  auto d = route(post, context());
  REQUIRE(d.call);
  CHECK(d.call->kind == call_kind::offer);
  CHECK(d.call->invalid.ok());
  CHECK(d.call->where.host == "a.com");
  CHECK(d.call->fresh);
  CHECK(d.call->expect_ports == std::vector<std::uint16_t>{40000, 40001});
  CHECK(d.target_label == "a.com:19133");

  // A bad entry is a counted call refused as invalid input.
  post.body() = R"({"host":"a.com","expectPorts":[0]})";
  post.prepare_payload();
  d = route(post, context());
  REQUIRE(d.call);
  CHECK(d.call->invalid.code == error_code::invalid_input);
}

TEST_CASE("router: a cached offer carries its Age, which pages may read", "[router]") {
  api_outcome cached;
  cached.body = R"({"ok":true,"cached":true})";
  cached.age = 42;
  auto res = render_api(cached, call_kind::offer, 11, true);
  CHECK(res.result() == http::status::ok);
  CHECK(res.at(http::field::age) == "42");
  CHECK(res.at(http::field::access_control_expose_headers).find("Age") != std::string::npos);
  cached.age = 0;
  CHECK(render_api(cached, call_kind::offer, 11, true).at(http::field::age) == "0");

  // A reply fetched for this call has no age, and neither has an error.
  api_outcome fetched;
  fetched.body = R"({"ok":true})";
  CHECK(render_api(fetched, call_kind::offer, 11, true).count(http::field::age) == 0);
  api_outcome failed;
  failed.error = make_failure(error_code::upstream_timeout, "slow");
  failed.age = 5;
  CHECK(render_api(failed, call_kind::offer, 11, true).count(http::field::age) == 0);
}

// -- what every row of the route table is given by the router --------------------------------

namespace {

// A path of the row: its pattern with a value in each {parameter}.
std::string sample_path(const route_row& row) {
  std::string out;
  for (std::size_t i = 0; i < row.pattern.size(); ++i) {
    if (row.pattern[i] == '{') {
      out += "sample";
      i = row.pattern.find('}', i);
    } else {
      out += row.pattern[i];
    }
  }
  return out;
}

// The paths a row answers: one sample for a pattern, every file for the page's row.
std::vector<std::string> paths_of(const route_row& row) {
  if (row.kind != route_kind::page)
    return {sample_path(row)};
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < page_asset_count; ++i)
    paths.emplace_back(page_assets[i].path);
  return paths;
}

// The methods a path of the row takes, over all the rows of its pattern.
method_set methods_of_path(const route_row& row) {
  method_set all;
  for (const auto& other : routes())
    if (other.pattern == row.pattern && other.kind == row.kind)
      all |= other.methods;
  return all;
}

// The first row of the row's pattern: the one that answers for a method none takes.
const route_row& first_of_path(const route_row& row) {
  for (const auto& other : routes())
    if (other.pattern == row.pattern && other.kind == row.kind)
      return other;
  return row;
}

constexpr http::verb every_method[] = {http::verb::get,   http::verb::head,
                                       http::verb::post,  http::verb::put,
                                       http::verb::patch, http::verb::delete_,
                                       http::verb::options};

} // namespace

TEST_CASE("router: every row refuses the methods its path does not take, with its Allow",
          "[router]") {
  for (const auto& row : routes()) {
    auto allowed = methods_of_path(row);
    auto allow = allowed.text();
    const auto& first = first_of_path(row);
    for (const auto& path : paths_of(row)) {
      for (auto method : every_method) {
        // OPTIONS on the API is a preflight (the next test).
        if (allowed.contains(method)
            || (row.kind == route_kind::api && method == http::verb::options))
          continue;
        auto req = make_request(method, path);
        INFO(path << " " << req.method_string());
        auto d = route(req, context());
        auto expected_name = row.kind == route_kind::page ? std::string_view{path} : row.name();
        CHECK(d.route == expected_name);
        response res;
        if (row.kind == route_kind::api && row.call) {
          // A call of the route, counted and shown its quota.
          REQUIRE(d.call);
          CHECK(d.call->kind == *first.call);
          CHECK(d.call->invalid.code == error_code::method_not_allowed);
          api_outcome outcome;
          outcome.error = d.call->invalid;
          res = render_api(outcome, d.call->kind, 11, true);
        } else {
          REQUIRE(d.immediate);
          res = *d.immediate;
        }
        CHECK(res.result() == http::status::method_not_allowed);
        CHECK(res.at(http::field::allow) == allow);
        // A server's page answers every request with a page, errors included.
        if (row.kind == route_kind::server)
          CHECK(res.body().find("<code class=\"error-code\">method_not_allowed</code>")
                != std::string::npos);
        else
          CHECK(body_of(res).at("code") == "method_not_allowed");
        CHECK(res.count(http::field::access_control_allow_origin)
              == (row.kind == route_kind::api ? 1u : 0u));
      }
    }
  }
}

TEST_CASE("router: every API row answers a preflight with its path's methods", "[router]") {
  std::size_t api_rows = 0;
  for (const auto& row : routes()) {
    if (row.kind != route_kind::api)
      continue;
    ++api_rows;
    auto path = sample_path(row);
    INFO(path);
    auto d = route(make_request(http::verb::options, path), context());
    REQUIRE(d.immediate);
    CHECK(d.route == row.name());
    CHECK(d.immediate->result() == http::status::no_content);
    CHECK(d.immediate->at(http::field::access_control_allow_methods)
          == methods_of_path(row).text());
    CHECK(d.immediate->at(http::field::access_control_allow_origin) == "*");
    CHECK(d.immediate->at(http::field::access_control_allow_headers).find("X-API-Key")
          != std::string::npos);
  }
  CHECK(api_rows >= 8);
}

TEST_CASE("router: the API routes are the /api rows, and a refused request shows its row",
          "[router]") {
  std::vector<std::string_view> refused_routes;
  for (const auto& row : routes()) {
    CHECK(is_api_path(row.pattern) == (row.kind == route_kind::api));
    if (row.kind != route_kind::api)
      continue;
    auto path = sample_path(row);
    INFO(path);
    // A header refused before routing, and a target that does not parse, are still calls of
    // the route the path names, so they show its quota; a route the actors do not answer
    // shows the quota of an unknown API path.
    auto framed = route_refused(make_request(http::verb::post, path + "?x=1"), context(),
                                make_failure(error_code::invalid_input, "framed two ways"));
    auto unparsed = route_get(path + "?host=[::1]");
    for (const auto* d : {&framed, &unparsed}) {
      REQUIRE(d->call);
      CHECK(d->call->peek);
      CHECK(d->call->invalid.code == error_code::invalid_input);
      CHECK(d->call->kind == (row.call ? *first_of_path(row).call : call_kind::unknown_api));
      CHECK(d->route == (row.call ? row.name() : std::string_view{"unknown"}));
    }
    if (row.call) {
      refused_routes.push_back(framed.route);
      CHECK(allowed_methods(*row.call) == methods_of_path(row).text());
    }
  }
  // /api/check among them: a refused check shows the check route and its quota.
  for (auto name : {"/api/info", "/api/offer", "/api/check", "/api/account", "/api/account/key"})
    CHECK(std::count(refused_routes.begin(), refused_routes.end(), name) >= 1);
  auto check = route_get("/api/check?host=[::1]");
  REQUIRE(check.call);
  CHECK(check.call->kind == call_kind::check);
  CHECK(endpoint_of(check.call->kind) == endpoint::offer);
}

namespace {

/// The rows refused in a route context, checking how each route answers there.
std::vector<std::string_view> refused_rows(const route_context& rc) {
  std::vector<std::string_view> refused;
  for (const auto& row : routes()) {
    for (const auto& path : paths_of(row)) {
      for (auto method : every_method) {
        if (!row.methods.contains(method))
          continue;
        auto req = make_request(method, path + (row.call == call_kind::info ? "?host=a.com" : ""));
        INFO(path << " " << req.method_string());
        auto d = route(req, rc);
        bool refuses = (rc.draining && row.draining != drain_rule::serve)
                       || (rc.leaving && row.draining == drain_rule::refuse_when_leaving);
        if (refuses) {
          refused.push_back(row.name());
          if (row.kind == route_kind::api) {
            // A call that only looks up the quota for the headers.
            REQUIRE(d.call);
            CHECK(d.call->peek);
            CHECK(d.call->invalid.code == error_code::unavailable);
          } else {
            REQUIRE(d.immediate);
            CHECK(d.immediate->result() == http::status::service_unavailable);
            CHECK_FALSE(d.immediate->keep_alive());
          }
        } else if (d.call) {
          CHECK_FALSE(d.call->peek);
          CHECK(d.call->invalid.code != error_code::unavailable);
        } else {
          REQUIRE(d.immediate);
          CHECK(d.immediate->result() != http::status::service_unavailable);
          CHECK_FALSE(d.immediate->keep_alive());
        }
      }
    }
  }
  std::sort(refused.begin(), refused.end());
  refused.erase(std::unique(refused.begin(), refused.end()), refused.end());
  return refused;
}

} // namespace

TEST_CASE("router: while shutting down, exactly the rows that drain are refused", "[router]") {
  auto rc = context();
  rc.draining = true;
  CHECK(refused_rows(rc)
        == std::vector<std::string_view>{"/api/check", "/api/info", "/api/join", "/api/offer",
                                         "/api/status", "/badge", "/badge.png", "/readyz",
                                         "/server"});
}

TEST_CASE("router: while leaving (the drain period), only /readyz is refused and no connection "
          "is kept alive",
          "[router]") {
  auto rc = context();
  rc.leaving = true;
  CHECK(refused_rows(rc) == std::vector<std::string_view>{"/readyz"});
}

TEST_CASE("router: the routes counted apart and left out of the log are rows", "[router]") {
  auto is_row = [](std::string_view name) {
    for (const auto& row : routes())
      if (row.name() == name)
        return true;
    return false;
  };
  for (std::size_t i = 0; i + 1 < metric_routes.size(); ++i) {
    INFO(metric_routes[i]);
    CHECK(is_row(metric_routes[i]));
  }
  for (const auto& row : routes()) {
    INFO(row.name());
    CHECK(is_probe_route(row.name()) == (row.kind == route_kind::health));
  }
}

TEST_CASE("router: a {parameter} stands for one segment of its route", "[router]") {
  // Two segments are no code of /api/explain: the unknown API path's 404.
  auto d = route_get("/api/explain/a/b");
  REQUIRE(d.call);
  CHECK(d.call->kind == call_kind::unknown_api);
  CHECK(d.call->invalid.code == error_code::not_found);
}

// -- GET and POST /api/status -----------------------------------------------------------------

namespace {

// A status call's validation failure, or "" when the input was valid.
std::string status_invalid(const route_decision& d) {
  REQUIRE(d.call);
  CHECK(d.call->kind == call_kind::status);
  CHECK(d.route == "/api/status");
  if (d.call->invalid.ok())
    return {};
  CHECK(d.call->invalid.code == error_code::invalid_input);
  CHECK_FALSE(d.call->peek);
  return d.call->invalid.message;
}

route_decision post_status(std::string body, std::string content_type = "application/json") {
  auto post = make_request(http::verb::post, "/api/status");
  if (!content_type.empty())
    post.set(http::field::content_type, content_type);
  post.body() = std::move(body);
  post.prepare_payload();
  return route(post, context());
}

} // namespace

TEST_CASE("router: GET /api/status reads the target as info does, and the RakNet port",
          "[router][status]") {
  auto d = route_get("/api/status?host=Play.Example.com");
  CHECK(status_invalid(d).empty());
  CHECK(d.call->where.host == "play.example.com");
  CHECK(d.call->where.port == 19132);
  CHECK(d.call->where.tls == tls_mode::auto_detect);
  CHECK(d.call->raknet_port == 0);
  CHECK(d.target_label == "play.example.com:19132");

  d = route_get("/api/status?host=%5B2001:db8::1%5D&port=19133&tls=false&raknetPort=19134");
  CHECK(status_invalid(d).empty());
  CHECK(d.call->where.host == "2001:db8::1");
  CHECK(d.call->where.port == 19133);
  CHECK(d.call->where.tls == tls_mode::off);
  CHECK(d.call->raknet_port == 19134);
  CHECK(d.route == "/api/status");
  d = route_get("/api/status?host=a.example&raknetPort=65535");
  CHECK(status_invalid(d).empty());
  CHECK(d.call->raknet_port == 65535);
}

TEST_CASE("router: GET /api/status refuses what info refuses, and a bad RakNet port",
          "[router][status]") {
  struct row {
    const char* target;
    const char* says;
  };
  for (auto r : {row{"/api/status", "host is required"},
                 row{"/api/status?host=a..b", "a..b"},
                 row{"/api/status?host=a.example&port=0", "port must be"},
                 row{"/api/status?host=a.example&tls=on", "tls must be"},
                 row{"/api/status?host=a.example&host=b.example", "may each be given once"},
                 row{"/api/status?host=a.example&raknetPort=0", "raknetPort must be an integer"},
                 row{"/api/status?host=a.example&raknetPort=65536", "raknetPort must be"},
                 row{"/api/status?host=a.example&raknetPort=", "raknetPort must be"},
                 row{"/api/status?host=a.example&raknetPort=x1", "raknetPort must be"},
                 row{"/api/status?host=a.example&raknetPort=-1", "raknetPort must be"},
                 row{"/api/status?host=a.example&raknetPort=1&raknetPort=2",
                     "raknetPort may be given once"}}) {
    INFO(r.target);
    auto d = route_get(r.target);
    CHECK_THAT(status_invalid(d), Catch::Contains(r.says));
    CHECK(d.call->raknet_port == 0);
    CHECK(d.target_label.empty());
    // Rendered through the one error table, with the API's headers.
    api_outcome outcome;
    outcome.error = d.call->invalid;
    auto res = render_api(outcome, d.call->kind, 11, true);
    CHECK(res.result() == http::status::bad_request);
    CHECK(body_of(res).at("code") == "invalid_input");
    CHECK(res.at(http::field::access_control_allow_origin) == "*");
  }
}

TEST_CASE("router: POST /api/status becomes a batch call of its targets", "[router][status]") {
  auto d = post_status(R"({"targets":[{"host":"A.example","raknetPort":19140},
                                      {"host":"b.example","port":0},
                                      {"host":"c.example","port":19133,"tls":true}]})");
  REQUIRE(d.call);
  CHECK(d.call->kind == call_kind::status_batch);
  CHECK(d.route == "/api/status");
  CHECK(d.call->invalid.ok());
  CHECK_FALSE(d.call->peek);
  CHECK(d.call->client == "198.51.100.7");
  REQUIRE(d.call->batch.size() == 3);
  CHECK(d.call->batch[0].where.host == "a.example");
  CHECK(d.call->batch[0].raknet_port == 19140);
  // A bad entry is only that entry's.
  CHECK(d.call->batch[1].invalid.code == error_code::invalid_input);
  CHECK_THAT(d.call->batch[1].invalid.message, Catch::StartsWith("targets[1]: port must be"));
  CHECK(d.call->batch[2].invalid.ok());
  CHECK(d.call->batch[2].where.port == 19133);
  CHECK(d.call->batch[2].where.tls == tls_mode::on);
}

TEST_CASE("router: a POST /api/status body that cannot be served is one counted 400",
          "[router][status]") {
  std::string fifty_one = R"({"targets":[)";
  for (int i = 0; i <= 50; ++i)
    fifty_one += std::string{i ? "," : ""} + R"({"host":"a.example"})";
  fifty_one += "]}";
  for (const std::string& body : {std::string{"nope"}, std::string{"[]"}, std::string{"{}"},
                                 std::string{R"({"targets":7})"},
                                 std::string{R"({"targets":[]})"},
                                 std::string{R"({"targets":["a.example"]})"}, fifty_one}) {
    INFO(body.substr(0, 60));
    auto d = post_status(body);
    REQUIRE(d.call);
    CHECK(d.call->kind == call_kind::status_batch);
    CHECK(d.call->invalid.code == error_code::invalid_input);
    CHECK_FALSE(d.call->peek);
    CHECK(d.call->batch.empty());
  }
  for (const std::string type : {"", "text/plain", "application/x-ndjson"}) {
    auto d = post_status(R"({"targets":[{"host":"a.example"}]})", type);
    REQUIRE(d.call);
    CHECK(d.call->invalid.code == error_code::unsupported_media_type);
  }
  // An oversized body is refused naming the server's limit, as for the offer.
  auto post = make_request(http::verb::post, "/api/status");
  post.set(http::field::content_type, "application/json");
  auto d = route_oversized(post, context(), 16384);
  REQUIRE(d.call);
  CHECK(d.call->kind == call_kind::status_batch);
  CHECK(d.call->invalid.code == error_code::payload_too_large);
}

TEST_CASE("router: /api/status takes GET and POST, with a preflight and a 405 for the rest",
          "[router][status]") {
  auto pre = route(make_request(http::verb::options, "/api/status"), context());
  REQUIRE(pre.immediate);
  CHECK(pre.immediate->result() == http::status::no_content);
  CHECK(pre.immediate->at(http::field::access_control_allow_methods) == "GET, POST");
  auto d = route(make_request(http::verb::put, "/api/status"), context());
  REQUIRE(d.call);
  CHECK(d.call->invalid.code == error_code::method_not_allowed);
  api_outcome outcome;
  outcome.error = d.call->invalid;
  auto res = render_api(outcome, d.call->kind, 11, true);
  CHECK(res.result() == http::status::method_not_allowed);
  CHECK(res.at(http::field::allow) == "GET, POST");
  CHECK(allowed_methods(call_kind::status) == "GET, POST");
  CHECK(allowed_methods(call_kind::status_batch) == "GET, POST");

  // Both are refused while shutting down, shown the caller's quota.
  auto rc = context();
  rc.draining = true;
  auto get = route(make_request(http::verb::get, "/api/status?host=a.example"), rc);
  REQUIRE(get.call);
  CHECK(get.call->peek);
  CHECK(get.call->invalid.code == error_code::unavailable);
  auto post = make_request(http::verb::post, "/api/status");
  post.set(http::field::content_type, "application/json");
  post.body() = R"({"targets":[{"host":"a.example"}]})";
  post.prepare_payload();
  auto posted = route(post, rc);
  REQUIRE(posted.call);
  CHECK(posted.call->kind == call_kind::status_batch);
  CHECK(posted.call->peek);
  CHECK(posted.call->invalid.code == error_code::unavailable);
}

TEST_CASE("router: a status outcome renders as info does", "[router][status]") {
  api_outcome ok;
  ok.body = R"({"ok":true,"online":true})";
  ok.has_quota = true;
  ok.quota.limit = 200;
  ok.quota.remaining = 150;
  ok.quota.reset = 1798761600;
  auto res = render_api(ok, call_kind::status, 11, true);
  CHECK(res.result() == http::status::ok);
  CHECK(res.body() == ok.body);
  CHECK(res.at(http::field::content_type) == "application/json");
  CHECK(res.at("X-RateLimit-Remaining") == "150");
  CHECK(res.at(http::field::access_control_allow_origin) == "*");
  api_outcome bad;
  bad.error = make_failure(error_code::forbidden_target, "internal");
  res = render_api(bad, call_kind::status, 11, true);
  CHECK(res.result() == http::status::forbidden);
  CHECK(body_of(res).at("code") == "forbidden_target");
}

TEST_CASE("router: a batch's error is a plain JSON error, its head the start of a stream",
          "[router][status]") {
  api_outcome refused;
  refused.error = make_failure(error_code::quota_exhausted, "no calls left");
  refused.error.retry_after = 60;
  refused.streaming = true; // an error is a whole reply, whatever else the outcome says
  refused.has_quota = true;
  refused.quota.limit = 200;
  CHECK_FALSE(is_stream_head(refused, call_kind::status_batch));
  auto res = render_api(refused, call_kind::status_batch, 11, true);
  CHECK(res.result() == http::status::too_many_requests);
  CHECK(res.at(http::field::content_type) == "application/json");
  CHECK(body_of(res).at("code") == "quota_exhausted");
  CHECK(res.at(http::field::retry_after) == "60");
  CHECK(res.at("X-RateLimit-Limit") == "200");
  CHECK(res.at(http::field::content_length) == std::to_string(res.body().size()));
  CHECK_FALSE(res.chunked());

  api_outcome head;
  head.streaming = true;
  head.has_quota = true;
  head.quota.scope = quota_scope::key;
  head.quota.limit = 20000;
  head.quota.remaining = 19950;
  head.quota.reset = 1798761600;
  CHECK(is_stream_head(head, call_kind::status_batch));
  CHECK_FALSE(is_stream_head(head, call_kind::status));
  res = render_api(head, call_kind::status_batch, 11, true);
  CHECK(res.result() == http::status::ok);
  CHECK(res.at(http::field::content_type) == "application/x-ndjson");
  CHECK(res.chunked());
  CHECK(res.find(http::field::content_length) == res.end());
  CHECK(res.keep_alive());
  CHECK(res.body().empty());
  CHECK(res.at(http::field::cache_control) == "no-store");
  CHECK(res.at("X-Content-Type-Options") == "nosniff");
  CHECK(res.at(http::field::access_control_allow_origin) == "*");
  CHECK(res.at("X-RateLimit-Scope") == "key");
  CHECK(res.at("X-RateLimit-Remaining") == "19950");

  // HTTP/1.0 has no chunks: the body ends with the connection, whatever the client asked.
  res = render_api(head, call_kind::status_batch, 10, true);
  CHECK(res.result() == http::status::ok);
  CHECK_FALSE(res.chunked());
  CHECK(res.find(http::field::transfer_encoding) == res.end());
  CHECK(res.find(http::field::content_length) == res.end());
  CHECK(res.at(http::field::connection) == "close");
  CHECK_FALSE(res.keep_alive());
  CHECK(res.at("X-RateLimit-Limit") == "20000");
}
