// End to end: the GitHub sign-in flow against the fake provider, with the real service.
#include <catch2/catch.hpp>

#include <boost/url/parse.hpp>

#include "support/fake_oauth.hpp"
#include "support/http.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

using options = fake_oauth_options;

/// The service configured for a provider; the callback's public base is a dummy, because the
/// test plays the browser and sends the callback to the service itself.
service_process signin_service(const fake_oauth_provider& provider,
                               std::vector<std::string> extra = {},
                               const std::string& base = "http://127.0.0.1:9") {
  std::vector<std::string> args{"--github-client-id", "test-client",
                                "--github-authorize-url", provider.authorize_url(),
                                "--github-token-url", provider.token_url(),
                                "--github-api-url", provider.api_url(),
                                "--public-base-url", base,
                                "--status-timeout-ms", "1500"};
  args.insert(args.end(), extra.begin(), extra.end());
  return service_process{args, {"NETHERSCOPE_GITHUB_CLIENT_SECRET=test-secret"}};
}

/// What the browser holds after each step.
struct browser_trip {
  http_reply login;
  std::string cookie;
  std::string callback;
  http_reply page;
};

// "ns_oauth_state=VALUE" from a Set-Cookie header.
std::string cookie_pair(const std::string& set_cookie) {
  return set_cookie.substr(0, set_cookie.find(';'));
}

// The path and query of the callback URL the provider redirected to.
std::string local_target(const std::string& url) {
  auto parsed = boost::urls::parse_absolute_uri(url);
  REQUIRE(parsed);
  auto target = std::string{parsed->encoded_path()};
  if (parsed->has_query())
    target += "?" + std::string{parsed->encoded_query()};
  return target;
}

browser_trip sign_in(const service_process& svc, const std::string& cookie_override = "none") {
  browser_trip trip;
  trip.login = http_request(svc.port(), "GET", "/auth/github/login");
  REQUIRE(trip.login.status == 302);
  trip.cookie = cookie_pair(trip.login.header("set-cookie"));
  trip.callback = follow_authorize(trip.login.header("location"));
  REQUIRE_FALSE(trip.callback.empty());
  auto cookie = cookie_override == "none" ? trip.cookie : cookie_override;
  header_list headers;
  if (!cookie.empty())
    headers.push_back({"Cookie", cookie});
  trip.page = http_request(svc.port(), "GET", local_target(trip.callback), headers);
  return trip;
}

std::string key_on_page(const std::string& page) {
  auto start = page.find("<pre id=\"api-key\">");
  if (start == std::string::npos)
    return {};
  start += 18;
  return page.substr(start, page.find("</pre>", start) - start);
}

/// The machine code an error page shows, or empty when it shows none.
std::string code_on_page(const std::string& page) {
  const std::string open = "<code id=\"error-code\">";
  auto start = page.find(open);
  if (start == std::string::npos)
    return {};
  start += open.size();
  return page.substr(start, page.find("</code>", start) - start);
}

} // namespace

TEST_CASE("signin e2e: the whole flow issues a working key", "[e2e][signin]") {
  fake_oauth_provider provider;
  auto svc = signin_service(provider);
  auto trip = sign_in(svc);
  // The redirect asked for read:user only, with our callback and a state.
  auto query = provider.last_authorize_query();
  CHECK(query.find("client_id=test-client") != std::string::npos);
  CHECK(query.find("scope=read%3Auser") != std::string::npos);
  CHECK(query.find("redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fauth%2Fgithub%2Fcallback")
        != std::string::npos);
  auto set_cookie = trip.login.header("set-cookie");
  CHECK(set_cookie.find("HttpOnly") != std::string::npos);
  CHECK(set_cookie.find("SameSite=Lax") != std::string::npos);
  CHECK(set_cookie.find("Secure") == std::string::npos); // served over plain HTTP here
  REQUIRE(trip.page.status == 200);
  CHECK(trip.page.header("content-type").find("text/html") == 0);
  CHECK(code_on_page(trip.page.body).empty());
  CHECK(trip.page.body.find("octocat") != std::string::npos);
  auto key = key_on_page(trip.page.body);
  REQUIRE(key.rfind("nsk_", 0) == 0);
  // The state cookie is single-use.
  CHECK(trip.page.header("set-cookie").find("Max-Age=0") != std::string::npos);
  // What the service sent the provider.
  CHECK(provider.last_token_accept() == "application/json");
  CHECK(provider.last_token_body().find("client_secret=test-secret") != std::string::npos);
  CHECK(provider.last_user_authorization() == "Bearer gho_fake_token");
  CHECK_FALSE(provider.last_user_agent().empty());
  // The key works, and the account is the provider's numeric id and login.
  auto account = http_request(svc.port(), "GET", "/api/account", {{"X-API-Key", key}});
  REQUIRE(account.status == 200);
  CHECK(account.json().at("login") == "octocat");
  CHECK(account.json().at("userId") == 4242);
  CHECK(account.header("x-ratelimit-scope") == "key");
  // Nothing secret reached the log.
  for (auto& line : svc.process().lines()) {
    CHECK(line.find(key) == std::string::npos);
    CHECK(line.find("test-secret") == std::string::npos);
    CHECK(line.find("gho_fake_token") == std::string::npos);
  }
}

TEST_CASE("signin e2e: signing in again replaces the key", "[e2e][signin]") {
  fake_oauth_provider provider;
  auto svc = signin_service(provider);
  auto first = key_on_page(sign_in(svc).page.body);
  auto second = key_on_page(sign_in(svc).page.body);
  REQUIRE_FALSE(first.empty());
  REQUIRE_FALSE(second.empty());
  CHECK(first != second);
  CHECK(http_request(svc.port(), "GET", "/api/account", {{"X-API-Key", first}}).status == 401);
  auto account = http_request(svc.port(), "GET", "/api/account", {{"X-API-Key", second}});
  CHECK(account.status == 200);
  CHECK(account.json().at("userId") == 4242);
}

TEST_CASE("signin e2e: a state that does not match the browser is refused", "[e2e][signin]") {
  fake_oauth_provider provider;
  auto svc = signin_service(provider);
  auto forged = sign_in(svc, "ns_oauth_state=someone-elses-state");
  CHECK(forged.page.status == 400);
  CHECK(code_on_page(forged.page.body) == "invalid_input");
  CHECK(key_on_page(forged.page.body).empty());
  auto no_cookie = sign_in(svc, "");
  CHECK(no_cookie.page.status == 400);
  CHECK(code_on_page(no_cookie.page.body) == "invalid_input");
  // Neither reached the token endpoint.
  CHECK(provider.token_requests() == 0);
}

TEST_CASE("signin e2e: a sign-in cancelled at the provider", "[e2e][signin]") {
  options o;
  o.authorize = options::authorize_mode::deny;
  fake_oauth_provider provider{o};
  auto svc = signin_service(provider);
  auto trip = sign_in(svc);
  CHECK(trip.page.status == 403);
  CHECK(trip.page.header("content-type").find("text/html") == 0);
  CHECK(code_on_page(trip.page.body) == "signin_cancelled");
  CHECK(key_on_page(trip.page.body).empty());
  // The state cookie is cleared: that sign-in is over.
  CHECK(trip.page.header("set-cookie").find("Max-Age=0") != std::string::npos);
  CHECK(provider.token_requests() == 0);
}

TEST_CASE("signin e2e: provider failures are 502 pages without a key", "[e2e][signin]") {
  struct row {
    options::token_mode token;
    options::user_mode user;
  };
  for (auto r : {row{options::token_mode::error_json, options::user_mode::ok},
                 row{options::token_mode::http_500, options::user_mode::ok},
                 row{options::token_mode::not_json, options::user_mode::ok},
                 row{options::token_mode::ok, options::user_mode::unauthorized},
                 row{options::token_mode::ok, options::user_mode::missing_id}}) {
    options o;
    o.token = r.token;
    o.user = r.user;
    fake_oauth_provider provider{o};
    auto svc = signin_service(provider);
    auto trip = sign_in(svc);
    INFO(trip.page.body);
    CHECK(trip.page.status == 502);
    CHECK(code_on_page(trip.page.body) == "upstream_failure");
    CHECK(key_on_page(trip.page.body).empty());
    CHECK(svc.process().wait(0ms) == std::nullopt); // still running
  }
}

TEST_CASE("signin e2e: a slow provider times out", "[e2e][signin]") {
  options o;
  o.token = options::token_mode::slow;
  o.slow = 5000ms;
  fake_oauth_provider provider{o};
  auto svc = signin_service(provider);
  auto start = std::chrono::steady_clock::now();
  auto trip = sign_in(svc);
  CHECK(trip.page.status == 504);
  CHECK(code_on_page(trip.page.body) == "upstream_timeout");
  CHECK(std::chrono::steady_clock::now() - start < 4500ms);
}

TEST_CASE("signin e2e: cookies are Secure behind an HTTPS base URL", "[e2e][signin]") {
  fake_oauth_provider provider;
  auto svc = signin_service(provider, {}, "https://netherscope.example");
  auto login = http_request(svc.port(), "GET", "/auth/github/login");
  CHECK(login.status == 302);
  CHECK(login.header("set-cookie").find("; Secure") != std::string::npos);
  CHECK(login.header("location").find("redirect_uri=https%3A%2F%2Fnetherscope.example")
        != std::string::npos);
}

TEST_CASE("signin e2e: without credentials sign-in is unavailable", "[e2e][signin]") {
  service_process svc;
  auto login = http_request(svc.port(), "GET", "/auth/github/login");
  CHECK(login.status == 503);
  CHECK(code_on_page(login.body) == "unavailable");
}

TEST_CASE("signin e2e: made-up and replayed states never reach the provider", "[e2e][signin]") {
  fake_oauth_provider provider;
  auto svc = signin_service(provider);
  // A script can send any state with a matching cookie; it was not issued by us.
  auto forged = http_request(svc.port(), "GET", "/auth/github/callback?code=x&state=abc",
                             {{"Cookie", "ns_oauth_state=abc"}});
  CHECK(forged.status == 400);
  CHECK(code_on_page(forged.body) == "invalid_input");
  CHECK(provider.token_requests() == 0);
  // A real sign-in, then its callback replayed with another code.
  auto trip = sign_in(svc);
  REQUIRE(trip.page.status == 200);
  CHECK(provider.token_requests() == 1);
  auto target = local_target(trip.callback);
  auto replay = target.substr(0, target.find("code=")) + "code=other"
                + target.substr(target.find('&', target.find("code=")));
  auto again = http_request(svc.port(), "GET", replay, {{"Cookie", trip.cookie}});
  CHECK(again.status == 400);
  CHECK(code_on_page(again.body) == "invalid_input");
  CHECK(provider.token_requests() == 1);
}

TEST_CASE("signin e2e: callbacks count against the address quota", "[e2e][signin]") {
  fake_oauth_provider provider;
  auto svc = signin_service(provider, {"--limit-info-ip", "2"});
  for (int i = 0; i < 2; ++i)
    CHECK(http_request(svc.port(), "GET", "/auth/github/callback?code=x&state=abc",
                       {{"Cookie", "ns_oauth_state=abc"}})
            .status
          == 400);
  auto over = http_request(svc.port(), "GET", "/auth/github/callback?code=x&state=abc",
                           {{"Cookie", "ns_oauth_state=abc"}});
  CHECK(over.status == 429);
  CHECK(code_on_page(over.body) == "quota_exhausted");
}
