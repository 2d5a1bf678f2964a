// End to end: the GitHub sign-in flow and the account page against the fake provider, with the
// real service, tried the way an attacker would.
#include <catch2/catch.hpp>

#include <csignal>
#include <ctime>
#include <optional>

#include <boost/url/parse.hpp>

#include "storage/accounts.hpp"
#include "storage/auth_records.hpp"
#include "storage/records.hpp"
#include "support/fake_oauth.hpp"
#include "support/fake_xbox.hpp"
#include "support/http.hpp"
#include "support/redis_server.hpp"
#include "support/store.hpp"
#include "support/rooms.hpp"
#include "support/wait.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

using options = fake_oauth_options;

/// The public base URL the tests' services have; the test plays the browser and sends the
/// callback to the service itself, so nothing listens there.
constexpr const char* public_base = "http://127.0.0.1:9";

/// The service configured for a provider.
service_process signin_service(const fake_oauth_provider& provider,
                               std::vector<std::string> extra = {},
                               const std::string& base_url = public_base,
                               const std::string& data_dir = {}) {
  std::vector<std::string> args{"--github-client-id", "test-client",
                                "--github-authorize-url", provider.authorize_url(),
                                "--github-token-url", provider.token_url(),
                                "--github-api-url", provider.api_url(),
                                "--public-base-url", base_url,
                                "--status-timeout-ms", "1500"};
  args.insert(args.end(), extra.begin(), extra.end());
  return service_process{args, {"NETHERSCOPE_GITHUB_CLIENT_SECRET=test-secret"}, true, data_dir};
}

// "name=VALUE" from a Set-Cookie header.
std::string cookie_pair(const std::string& set_cookie) {
  return set_cookie.substr(0, set_cookie.find(';'));
}

// The value of a cookie a response set, or empty.
std::string cookie_set(const http_reply& reply, const std::string& name) {
  for (auto& set : reply.set_cookies) {
    auto pair = cookie_pair(set);
    if (pair.rfind(name + "=", 0) == 0)
      return pair.substr(name.size() + 1);
  }
  return {};
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

// The still-encoded value of a query parameter of a URL or target.
std::string query_value(const std::string& target, const std::string& name) {
  auto at = target.find(name + "=");
  REQUIRE(at != std::string::npos);
  at += name.size() + 1;
  return target.substr(at, target.find('&', at) - at);
}

// The target with one query parameter's value replaced.
std::string with_query_value(const std::string& target, const std::string& name,
                             const std::string& value) {
  auto at = target.find(name + "=");
  REQUIRE(at != std::string::npos);
  at += name.size() + 1;
  auto end = target.find('&', at);
  return target.substr(0, at) + value + (end == std::string::npos ? "" : target.substr(end));
}

/// What the browser holds after each step.
struct browser_trip {
  http_reply login;
  /// "ns_signin=VALUE".
  std::string cookie;
  std::string callback;
  http_reply page;
};

browser_trip sign_in(const service_process& svc, const std::string& cookie_override = "none",
                     const header_list& extra = {}) {
  browser_trip trip;
  trip.login = http_request(svc.port(), "GET", "/auth/github/login");
  REQUIRE(trip.login.status == 302);
  trip.cookie = cookie_pair(trip.login.header("set-cookie"));
  trip.callback = follow_authorize(trip.login.header("location"));
  REQUIRE_FALSE(trip.callback.empty());
  auto cookie = cookie_override == "none" ? trip.cookie : cookie_override;
  header_list headers = extra;
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

/// The form token the account page carries.
std::string csrf_on_page(const std::string& page) {
  const std::string open = "name=\"csrf\" value=\"";
  auto start = page.find(open);
  if (start == std::string::npos)
    return {};
  start += open.size();
  return page.substr(start, page.find('"', start) - start);
}

/// A POST of one of the account page's forms with the given body, as a browser sends it from
/// our own page (Origin and Sec-Fetch-Site) unless told otherwise.
http_reply page_form(const service_process& svc, const std::string& target,
                     const std::string& session, const std::string& body,
                     header_list headers = {{"Origin", public_base}, {"Sec-Fetch-Site", "same-origin"}}) {
  headers.push_back({"Cookie", "ns_session=" + session});
  headers.push_back({"Content-Type", "application/x-www-form-urlencoded"});
  return http_request(svc.port(), "POST", target, headers, body);
}

/// A POST of a form of the account page that sends only the token.
http_reply page_post(const service_process& svc, const std::string& target,
                     const std::string& session, const std::string& csrf,
                     header_list headers = {{"Origin", public_base}, {"Sec-Fetch-Site", "same-origin"}}) {
  return page_form(svc, target, session, "csrf=" + csrf, std::move(headers));
}

/// The value of the first hidden field of a form on the page with this name, or empty.
std::string field_on_page(const std::string& page, const std::string& name) {
  const std::string open = "name=\"" + name + "\" value=\"";
  auto start = page.find(open);
  if (start == std::string::npos)
    return {};
  start += open.size();
  return page.substr(start, page.find('"', start) - start);
}

int account_status(const service_process& svc, const std::string& key) {
  return http_request(svc.port(), "GET", "/api/account", {{"X-API-Key", key}}).status;
}

void check_page_headers(const http_reply& page) {
  CHECK(page.header("content-security-policy").find("frame-ancestors 'none'")
        != std::string::npos);
  CHECK(page.header("content-security-policy").find("unsafe-inline") == std::string::npos);
  CHECK(page.header("referrer-policy") == "no-referrer");
  CHECK(page.header("x-content-type-options") == "nosniff");
}

/// Key records in a service's store, read from the test process (LMDB allows several
/// processes, each opening the store once).
std::size_t key_records(const std::string& data_dir) {
  namespace storage = netherscope::storage;
  auto store = open_lmdb(data_dir).store;
  std::size_t n = 0;
  in_records(*store, false, [&](storage::record_txn& t) {
    n = 0;
    REQUIRE_FALSE(t.for_each_prefix(storage::record_table::accounts, "k|",
                                    [&](std::string_view, std::string_view) {
                                      ++n;
                                      return true;
                                    }));
  });
  return n;
}

} // namespace

TEST_CASE("signin e2e: the whole flow issues a working key", "[e2e][signin]") {
  fake_oauth_provider provider;
  auto svc = signin_service(provider);
  auto trip = sign_in(svc);
  // The redirect asked for read:user only, with our callback, a state and PKCE S256.
  auto query = provider.last_authorize_query();
  CHECK(query.find("client_id=test-client") != std::string::npos);
  CHECK(query.find("scope=read%3Auser") != std::string::npos);
  CHECK(query.find("redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fauth%2Fgithub%2Fcallback")
        != std::string::npos);
  CHECK(query.find("code_challenge_method=S256") != std::string::npos);
  auto set_cookie = trip.login.header("set-cookie");
  CHECK(set_cookie.rfind("ns_signin=", 0) == 0);
  CHECK(set_cookie.find("HttpOnly") != std::string::npos);
  CHECK(set_cookie.find("SameSite=Lax") != std::string::npos);
  CHECK(set_cookie.find("Path=/;") != std::string::npos);
  CHECK(set_cookie.find("Secure") == std::string::npos); // served over plain HTTP here
  // The URL's state is not the cookie: the URL alone redeems nothing.
  CHECK(query_value(query, "state") != trip.cookie.substr(trip.cookie.find('=') + 1));
  REQUIRE(trip.page.status == 200);
  CHECK(trip.page.header("content-type").find("text/html") == 0);
  check_page_headers(trip.page);
  CHECK(code_on_page(trip.page.body).empty());
  CHECK(trip.page.body.find("octocat") != std::string::npos);
  auto key = key_on_page(trip.page.body);
  REQUIRE(key.rfind("nsk_", 0) == 0);
  // The binding is single-use, and a session began.
  REQUIRE(trip.page.set_cookies.size() == 2);
  CHECK(trip.page.set_cookies[0].rfind("ns_signin=;", 0) == 0);
  CHECK(trip.page.set_cookies[0].find("Max-Age=0") != std::string::npos);
  CHECK_FALSE(cookie_set(trip.page, "ns_session").empty());
  CHECK(trip.page.set_cookies[1].find("HttpOnly") != std::string::npos);
  // What the service sent the provider: the verifier of the challenge, which it checked.
  CHECK(provider.last_token_accept() == "application/json");
  CHECK(provider.last_token_body().find("client_secret=test-secret") != std::string::npos);
  CHECK(provider.last_token_body().find("code_verifier=") != std::string::npos);
  CHECK(provider.pkce_failures() == 0);
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

TEST_CASE("signin e2e: signing in again leaves the working key alive", "[e2e][signin]") {
  fake_oauth_provider provider;
  auto svc = signin_service(provider);
  auto first = sign_in(svc);
  auto key = key_on_page(first.page.body);
  REQUIRE_FALSE(key.empty());
  // Any site can send a visitor through the sign-in again (GitHub skips consent for an app
  // already approved): it opens the account page and changes no key.
  auto again = sign_in(svc);
  CHECK(again.page.status == 303);
  CHECK(again.page.header("location") == "/account");
  CHECK(key_on_page(again.page.body).empty());
  CHECK(account_status(svc, key) == 200);
  auto session = cookie_set(again.page, "ns_session");
  REQUIRE_FALSE(session.empty());
  CHECK(session != cookie_set(first.page, "ns_session"));
  auto view = http_request(svc.port(), "GET", "/account", {{"Cookie", "ns_session=" + session}});
  CHECK(view.status == 200);
  check_page_headers(view);
  CHECK(view.body.find("Signed in as octocat") != std::string::npos);
  CHECK(view.body.find("Your account has an active API key.") != std::string::npos);
  CHECK(view.body.find("nsk_") == std::string::npos);
  CHECK(account_status(svc, key) == 200);
}

TEST_CASE("signin e2e: a state that does not match the browser is refused", "[e2e][signin]") {
  fake_oauth_provider provider;
  auto svc = signin_service(provider);
  auto forged = sign_in(svc, "ns_signin=someone-elses-binding");
  CHECK(forged.page.status == 400);
  CHECK(code_on_page(forged.page.body) == "invalid_input");
  CHECK(key_on_page(forged.page.body).empty());
  auto no_cookie = sign_in(svc, "");
  CHECK(no_cookie.page.status == 400);
  CHECK(code_on_page(no_cookie.page.body) == "invalid_input");
  // Another attempt's real cookie does not fit this state either.
  auto other = http_request(svc.port(), "GET", "/auth/github/login");
  auto crossed = sign_in(svc, cookie_pair(other.header("set-cookie")));
  CHECK(crossed.page.status == 400);
  CHECK(code_on_page(crossed.page.body) == "invalid_input");
  // Two cookies of the name: neither is trusted, even when one is right.
  auto trip_login = http_request(svc.port(), "GET", "/auth/github/login");
  auto right = cookie_pair(trip_login.header("set-cookie"));
  auto callback = follow_authorize(trip_login.header("location"));
  auto ambiguous = http_request(svc.port(), "GET", local_target(callback),
                                {{"Cookie", right + "; ns_signin=planted"}});
  CHECK(ambiguous.status == 400);
  CHECK(code_on_page(ambiguous.body) == "invalid_input");
  // None of them reached the token endpoint.
  CHECK(provider.token_requests() == 0);
}

TEST_CASE("signin e2e: the callback URL with a cookie made from it is refused",
          "[e2e][signin]") {
  fake_oauth_options o;
  o.accept_reused_code = true;
  fake_oauth_provider provider{o};
  auto svc = signin_service(provider);
  // Someone saw a victim's callback URL (a log, the history, a screenshot) and never had the
  // victim's cookie: copying the URL's state into a cookie must not redeem it.
  auto login = http_request(svc.port(), "GET", "/auth/github/login");
  auto callback = local_target(follow_authorize(login.header("location")));
  auto state = query_value(callback, "state");
  auto stolen = http_request(svc.port(), "GET", callback, {{"Cookie", "ns_signin=" + state}});
  CHECK(stolen.status == 400);
  CHECK(code_on_page(stolen.body) == "invalid_input");
  CHECK(key_on_page(stolen.body).empty());
  CHECK(provider.token_requests() == 0);
}

TEST_CASE("signin e2e: a replayed callback is refused, wherever it arrives", "[e2e][signin]") {
  // The provider here accepts a code twice, so only the service can refuse a replay.
  fake_oauth_options o;
  o.accept_reused_code = true;
  fake_oauth_provider provider{o};
  temp_dir data;
  std::optional<service_process> svc{signin_service(provider, {}, public_base, data.path())};
  auto trip = sign_in(*svc);
  REQUIRE(trip.page.status == 200);
  REQUIRE(provider.tokens_issued() == 1);
  auto target = local_target(trip.callback);
  auto replay = [&](const service_process& to, const std::string& what) {
    auto again = http_request(to.port(), "GET", what, {{"Cookie", trip.cookie}});
    INFO(what);
    CHECK(again.status == 400);
    CHECK(code_on_page(again.body) == "invalid_input");
    CHECK(key_on_page(again.body).empty());
  };
  SECTION("the same callback again, and with another code") {
    replay(*svc, target);
    replay(*svc, with_query_value(target, "code", "other"));
  }
  SECTION("the state padded with '=' (one state, two spellings)") {
    auto state = query_value(target, "state");
    replay(*svc, with_query_value(target, "state", state + "%3D%3D"));
    replay(*svc, with_query_value(target, "state", state + "=="));
  }
  SECTION("to a second instance sharing the store") {
    auto second = signin_service(provider, {}, public_base, data.path());
    replay(second, target);
  }
  SECTION("after a restart") {
    svc.reset();
    auto restarted = signin_service(provider, {}, public_base, data.path());
    replay(restarted, target);
  }
  CHECK(provider.token_requests() == 1);
  CHECK(provider.tokens_issued() == 1);
}

TEST_CASE("signin e2e: on Redis a callback used on one replica is refused by another, and "
          "the session it opened works on both",
          "[e2e][signin][redis]") {
  fake_oauth_options o;
  o.accept_reused_code = true;
  fake_oauth_provider provider{o};
  redis_server redis;
  // Two replicas with data directories of their own: only Redis joins them.
  auto a = signin_service(provider, {"--store", redis.url()});
  auto b = signin_service(provider, {"--store", redis.url()});
  auto trip = sign_in(a);
  REQUIRE(trip.page.status == 200);
  auto key = key_on_page(trip.page.body);
  REQUIRE_FALSE(key.empty());
  auto again = http_request(b.port(), "GET", local_target(trip.callback),
                            {{"Cookie", trip.cookie}});
  CHECK(again.status == 400);
  CHECK(code_on_page(again.body) == "invalid_input");
  CHECK(provider.tokens_issued() == 1);
  // The session opened on a shows the account on b, and b's form acts on the same account.
  auto session = cookie_set(trip.page, "ns_session");
  REQUIRE_FALSE(session.empty());
  auto page = http_request(b.port(), "GET", "/account", {{"Cookie", "ns_session=" + session}});
  REQUIRE(page.status == 200);
  auto csrf = csrf_on_page(page.body);
  REQUIRE(csrf == csrf_on_page(trip.page.body));
  auto rotated = page_post(b, "/account/key", session, csrf);
  REQUIRE(rotated.status == 200);
  auto fresh = key_on_page(rotated.body);
  REQUIRE_FALSE(fresh.empty());
  CHECK(account_status(a, key) == 401);
  CHECK(account_status(a, fresh) == 200);
  // Signed out on a: b no longer knows the session.
  CHECK(page_post(a, "/auth/signout", session, csrf).status < 400);
  CHECK(http_request(b.port(), "GET", "/account", {{"Cookie", "ns_session=" + session}}).status
        == 401);
}

TEST_CASE("signin e2e: a sign-in cancelled at the provider", "[e2e][signin]") {
  options o;
  o.authorize = options::authorize_mode::deny;
  fake_oauth_provider provider{o};
  auto svc = signin_service(provider);
  auto trip = sign_in(svc);
  CHECK(trip.page.status == 403);
  CHECK(trip.page.header("content-type").find("text/html") == 0);
  check_page_headers(trip.page);
  CHECK(code_on_page(trip.page.body) == "signin_cancelled");
  CHECK(key_on_page(trip.page.body).empty());
  // The binding cookie is cleared: that sign-in is over.
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

TEST_CASE("signin e2e: behind an HTTPS base URL, in any letter case, cookies are __Host- and "
          "Secure",
          "[e2e][signin]") {
  fake_oauth_provider provider;
  auto svc = signin_service(provider, {}, "HTTPS://NetherScope.Example");
  auto login = http_request(svc.port(), "GET", "/auth/github/login");
  CHECK(login.status == 302);
  auto cookie = login.header("set-cookie");
  CHECK(cookie.rfind("__Host-ns_signin=", 0) == 0);
  CHECK(cookie.find("; Path=/;") != std::string::npos);
  CHECK(cookie.find("; Secure") != std::string::npos);
  CHECK(cookie.find("Domain") == std::string::npos);
  // The callback URL GitHub compares with the registered one is in canonical form.
  CHECK(login.header("location").find("redirect_uri=https%3A%2F%2Fnetherscope.example%2F")
        != std::string::npos);
  // Only the __Host- cookie is read back: a plain one could have come from anywhere.
  auto callback = follow_authorize(login.header("location"));
  auto value = cookie_pair(cookie).substr(std::string{"__Host-ns_signin="}.size());
  auto plain = http_request(svc.port(), "GET", local_target(callback),
                            {{"Cookie", "ns_signin=" + value}});
  CHECK(plain.status == 400);
  auto hosted = http_request(svc.port(), "GET", local_target(callback),
                             {{"Cookie", "__Host-ns_signin=" + value}});
  CHECK(hosted.status == 200);
  CHECK(cookie_set(hosted, "__Host-ns_session").size() == 43);
  for (auto& set : hosted.set_cookies)
    CHECK(set.find("; Secure") != std::string::npos);
}

TEST_CASE("signin e2e: without credentials sign-in is unavailable", "[e2e][signin]") {
  service_process svc;
  auto login = http_request(svc.port(), "GET", "/auth/github/login");
  CHECK(login.status == 503);
  CHECK(code_on_page(login.body) == "unavailable");
  check_page_headers(login);
}

TEST_CASE("signin e2e: made-up states never reach the provider", "[e2e][signin]") {
  fake_oauth_provider provider;
  auto svc = signin_service(provider);
  // A script can send any state with any cookie; it was not issued by us.
  auto forged = http_request(svc.port(), "GET", "/auth/github/callback?code=x&state=abc",
                             {{"Cookie", "ns_signin=abc"}});
  CHECK(forged.status == 400);
  CHECK(code_on_page(forged.body) == "invalid_input");
  CHECK(provider.token_requests() == 0);
}

TEST_CASE("signin e2e: sign-in has an hourly limit of its own, not the info quota",
          "[e2e][signin]") {
  fake_oauth_provider provider;
  auto svc = signin_service(provider, {"--limit-info-ip", "1", "--limit-signin-per-hour", "3"});
  // A shared address spent its monthly info quota.
  CHECK(get_info(svc, "port=1").status == 400);
  CHECK(get_info(svc, "port=1").status == 429);
  // Signing in still works.
  auto trip = sign_in(svc);
  CHECK(trip.page.status == 200);
  CHECK(key_on_page(trip.page.body).rfind("nsk_", 0) == 0);
  // Made-up callbacks use up the hour's attempts.
  for (int i = 0; i < 2; ++i)
    CHECK(http_request(svc.port(), "GET", "/auth/github/callback?code=x&state=abc",
                       {{"Cookie", "ns_signin=abc"}})
            .status
          == 400);
  auto over = http_request(svc.port(), "GET", "/auth/github/callback?code=x&state=abc",
                           {{"Cookie", "ns_signin=abc"}});
  CHECK(over.status == 429);
  CHECK(code_on_page(over.body) == "signin_rate_limited");
  auto retry = std::stoi(over.header("retry-after"));
  CHECK(retry >= 1);
  CHECK(retry <= 3600);
  CHECK(provider.token_requests() == 1);
}

TEST_CASE("signin e2e: the account page's key actions refuse cross-site requests",
          "[e2e][signin]") {
  fake_oauth_provider provider;
  auto svc = signin_service(provider);
  auto trip = sign_in(svc);
  auto key = key_on_page(trip.page.body);
  auto session = cookie_set(trip.page, "ns_session");
  auto csrf = csrf_on_page(trip.page.body);
  REQUIRE_FALSE(key.empty());
  REQUIRE_FALSE(session.empty());
  REQUIRE(csrf.size() == 43);
  for (auto target : {"/account/key", "/account/key/revoke", "/auth/signout"}) {
    INFO(target);
    // Another site's form: its Origin, and the browser's Sec-Fetch-Site: cross-site. Even
    // with the right token (which that site cannot read) it is refused.
    auto cross = page_post(svc, target, session, csrf,
                           {{"Origin", "https://evil.example"}, {"Sec-Fetch-Site", "cross-site"}});
    CHECK(cross.status == 403);
    CHECK(code_on_page(cross.body) == "csrf_rejected");
    // A site that hides its origin (Origin: null) is refused too.
    auto hidden = page_post(svc, target, session, csrf,
                            {{"Origin", "null"}, {"Sec-Fetch-Site", "cross-site"}});
    CHECK(hidden.status == 403);
    // Our origin with a wrong token.
    auto guessed = page_post(svc, target, session, "not-the-token");
    CHECK(guessed.status == 403);
    CHECK(code_on_page(guessed.body) == "csrf_rejected");
  }
  CHECK(account_status(svc, key) == 200);
  // Our own page's form: Origin null (our pages say no-referrer) and Sec-Fetch-Site.
  auto renewed = page_post(svc, "/account/key", session, csrf,
                           {{"Origin", "null"}, {"Sec-Fetch-Site", "same-origin"}});
  CHECK(renewed.status == 200);
  check_page_headers(renewed);
  auto new_key = key_on_page(renewed.body);
  REQUIRE(new_key.rfind("nsk_", 0) == 0);
  CHECK(account_status(svc, key) == 401);
  CHECK(account_status(svc, new_key) == 200);
  auto revoked = page_post(svc, "/account/key/revoke", session, csrf);
  CHECK(revoked.status == 200);
  CHECK(revoked.body.find("Your account has no active API key.") != std::string::npos);
  CHECK(account_status(svc, new_key) == 401);
  // Signed out, the session opens nothing, and the cookie is cleared.
  auto out = page_post(svc, "/auth/signout", session, csrf);
  CHECK(out.status == 200);
  CHECK(out.header("set-cookie").find("Max-Age=0") != std::string::npos);
  auto after = http_request(svc.port(), "GET", "/account", {{"Cookie", "ns_session=" + session}});
  CHECK(after.status == 401);
  CHECK(code_on_page(after.body) == "unauthorized");
  CHECK(page_post(svc, "/account/key", session, csrf).status == 401);
}

TEST_CASE("signin e2e: the account page lists, adds and stops watches and shows a failing "
          "webhook",
          "[e2e][signin][watch]") {
  fake_oauth_provider provider;
  fake_target_process fake{{"--raknet", "on"}};
  temp_dir keys;
  // Checks every 2 s, and a delivery that fails is not retried, so the webhook (to a port on
  // loopback where nothing listens) is failing after its first alert.
  auto svc = signin_service(provider, {"--watch-min-period", "2", "--webhook-retry-for", "0",
                                       "--secrets-key-file",
                                       write_key_file(keys.path(), "secrets.key")});
  auto trip = sign_in(svc);
  auto session = cookie_set(trip.page, "ns_session");
  auto csrf = csrf_on_page(trip.page.body);
  REQUIRE_FALSE(session.empty());
  REQUIRE(csrf.size() == 43);
  header_list cookie{{"Cookie", "ns_session=" + session}};
  auto account_page = [&] {
    auto page = http_request(svc.port(), "GET", "/account", cookie);
    REQUIRE(page.status == 200);
    return page.body;
  };
  CHECK(trip.page.body.find("You watch no servers yet.") != std::string::npos);
  CHECK(account_page().find("You watch no servers yet.") != std::string::npos);

  auto target = "host=127.0.0.1&port=" + std::to_string(fake.port());
  auto add_body = "csrf=" + csrf + "&" + target + "&periodSeconds=2&public=true";
  // Refused: another site's form, a form without the token or with another, a bad port,
  // and a period below the operator's bound, which the watch actor judges as for the API.
  auto cross = page_form(svc, "/account/watch", session, add_body,
                         {{"Origin", "https://evil.example"}, {"Sec-Fetch-Site", "cross-site"}});
  CHECK(cross.status == 403);
  CHECK(code_on_page(cross.body) == "csrf_rejected");
  auto tokenless = page_form(svc, "/account/watch", session, target + "&periodSeconds=2");
  CHECK(tokenless.status == 403);
  CHECK(code_on_page(tokenless.body) == "csrf_rejected");
  auto guessed = page_form(svc, "/account/watch", session,
                           "csrf=" + std::string(43, 'A') + "&" + target + "&periodSeconds=2");
  CHECK(guessed.status == 403);
  CHECK(code_on_page(guessed.body) == "csrf_rejected");
  auto bad_port = page_form(svc, "/account/watch", session,
                            "csrf=" + csrf + "&host=127.0.0.1&port=70000");
  CHECK(bad_port.status == 400);
  CHECK(code_on_page(bad_port.body) == "invalid_input");
  check_page_headers(bad_port);
  auto too_often = page_form(svc, "/account/watch", session,
                             "csrf=" + csrf + "&" + target + "&periodSeconds=1");
  CHECK(too_often.status == 400);
  CHECK(code_on_page(too_often.body) == "invalid_input");
  CHECK(too_often.body.find("periodSeconds must be from 2") != std::string::npos);
  CHECK(account_page().find("You watch no servers yet.") != std::string::npos);

  // Added: back to the page, which lists it; the same server again is the API's conflict.
  auto added = page_form(svc, "/account/watch", session, add_body);
  CHECK(added.status == 303);
  CHECK(added.header("location") == "/account");
  auto again = page_form(svc, "/account/watch", session, add_body);
  CHECK(again.status == 409);
  CHECK(code_on_page(again.body) == "watch_exists");
  auto page = account_page();
  auto shown = "127.0.0.1:" + std::to_string(fake.port());
  CHECK(page.find("<strong class=\"watch-target\">" + shown + "</strong>") != std::string::npos);
  CHECK(page.find("Checked every 2 seconds") != std::string::npos);
  CHECK(page.find("<span class=\"scope public\">public</span>") != std::string::npos);
  CHECK(page.find("href=\"/chart.svg?host=127.0.0.1&amp;port=" + std::to_string(fake.port())
                  + "\"")
        != std::string::npos);
  auto watch_id = field_on_page(page, "watch");
  REQUIRE(watch_id.size() == 16);
  // The API's list is the page's.
  auto listed = http_request(svc.port(), "GET", "/api/watch", cookie);
  REQUIRE(listed.status == 200);
  CHECK(listed.json().at("watches").at(0).at("id").as_string() == watch_id);

  // A webhook from the page: its secret shown once, its state ok.
  auto hook = page_form(svc, "/account/webhook", session,
                        "csrf=" + csrf + "&watch=" + watch_id
                          + "&url=http%3A%2F%2F127.0.0.1%3A9%2Fhook%3Ftoken%3Dhush&format=json");
  REQUIRE(hook.status == 200);
  check_page_headers(hook);
  CHECK(hook.body.find("<pre id=\"webhook-secret\">") != std::string::npos);
  page = account_page();
  CHECK(page.find("<pre id=\"webhook-secret\">") == std::string::npos);
  CHECK(page.find("<code class=\"webhook-url\">http://127.0.0.1:9/hook?…</code>")
        != std::string::npos);
  CHECK(page.find("hush") == std::string::npos);
  CHECK(page.find("<span class=\"webhook-state good\">ok</span>") != std::string::npos);
  auto hook_id = field_on_page(page, "webhook");
  REQUIRE(hook_id.size() == 16);

  // The server is checked, then goes: the alert's delivery fails, and the page says failing,
  // as GET /api/watch does.
  auto checks = [&] {
    auto history = http_request(svc.port(), "GET",
                                "/api/history?host=127.0.0.1&port=" + std::to_string(fake.port()),
                                cookie);
    return history.status == 200 ? history.json().at("points").as_array().size() : 0;
  };
  REQUIRE(wait_until([&] { return checks() >= 1; }, std::chrono::seconds(40),
                     std::chrono::milliseconds(200)));
  fake.process().signal(SIGKILL);
  fake.process().wait(std::chrono::seconds(5));
  REQUIRE(wait_until(
    [&] { return account_page().find("<span class=\"webhook-state bad\">failing</span>")
                 != std::string::npos; },
    std::chrono::seconds(40), std::chrono::milliseconds(250)));
  CHECK(account_page().find("Last failed delivery") != std::string::npos);
  auto api_view = http_request(svc.port(), "GET", "/api/watch", cookie);
  CHECK(api_view.json().at("watches").at(0).at("webhooks").at(0).at("state") == "failing");

  // Removed with the page's buttons: the webhook, then the watch; a second time it is gone.
  auto unhook = page_form(svc, "/account/webhook/delete", session,
                          "csrf=" + csrf + "&watch=" + watch_id + "&webhook=" + hook_id);
  CHECK(unhook.status == 303);
  page = account_page();
  CHECK(page.find("class=\"webhook-state") == std::string::npos);
  CHECK(page.find("No webhooks") != std::string::npos);
  auto stop_body = "csrf=" + csrf + "&watch=" + watch_id;
  CHECK(page_form(svc, "/account/watch/delete", session, "csrf=wrong&watch=" + watch_id).status
        == 403);
  auto stopped = page_form(svc, "/account/watch/delete", session, stop_body);
  CHECK(stopped.status == 303);
  CHECK(stopped.header("location") == "/account");
  CHECK(account_page().find("You watch no servers yet.") != std::string::npos);
  auto gone = page_form(svc, "/account/watch/delete", session, stop_body);
  CHECK(gone.status == 404);
  CHECK(code_on_page(gone.body) == "unknown_watch");
}

TEST_CASE("signin e2e: key rotation is limited and the store stays bounded", "[e2e][signin]") {
  fake_oauth_provider provider;
  SECTION("five new keys an hour, then 429 with Retry-After") {
    auto svc = signin_service(provider);
    auto key = key_on_page(sign_in(svc).page.body);
    for (int i = 0; i < 5; ++i) {
      auto rotated = http_request(svc.port(), "POST", "/api/account/key", {{"X-API-Key", key}});
      REQUIRE(rotated.status == 200);
      key = std::string{rotated.json().at("key").as_string()};
    }
    auto refused = http_request(svc.port(), "POST", "/api/account/key", {{"X-API-Key", key}});
    CHECK(refused.status == 429);
    CHECK(refused.code() == "rotation_limited");
    auto retry = std::stoi(refused.header("retry-after"));
    CHECK(retry >= 1);
    CHECK(retry <= 3600);
    CHECK(account_status(svc, key) == 200);
  }
  SECTION("a rotation loop without the limit keeps a bounded number of records") {
    auto svc = signin_service(provider, {"--limit-key-rotations-per-hour", "100000"});
    auto key = key_on_page(sign_in(svc).page.body);
    std::size_t after_first_fifty = 0;
    for (int i = 0; i < 150; ++i) {
      auto rotated = http_request(svc.port(), "POST", "/api/account/key", {{"X-API-Key", key}});
      REQUIRE(rotated.status == 200);
      key = std::string{rotated.json().at("key").as_string()};
      if (i == 49)
        after_first_fifty = key_records(svc.data_dir());
    }
    // The active key and the newest revoked ones, however long the loop runs.
    CHECK(after_first_fifty == netherscope::storage::keep_revoked_keys + 1);
    CHECK(key_records(svc.data_dir()) == after_first_fifty);
  }
}

TEST_CASE("signin e2e: netherscope admin prune deletes what expired", "[e2e][signin]") {
  namespace storage = netherscope::storage;
  temp_dir data;
  auto now = static_cast<std::int64_t>(std::time(nullptr));
  {
    // A store as a service leaves it: one state used long ago and one just now, a session
    // that ended an hour ago and a live one, a key revoked 100 days ago, one revoked today,
    // and last hour's rotation counter.
    auto store = open_lmdb(data.path()).store;
    in_records(*store, true, [&](storage::record_txn& r) {
      REQUIRE(*storage::claim_state(r, std::string(24, 'a'), now - 3600, now - 4000));
      REQUIRE(*storage::claim_state(r, std::string(24, 'b'), now + 600, now));
      REQUIRE(storage::open_session(r, 1, now - 7200));
      REQUIRE(storage::open_session(r, 1, now));
      REQUIRE(storage::issue_key(r, 1, "old", now - 200 * 86400));
      REQUIRE(*storage::revoke_active_key(r, 1, now - 100 * 86400));
      REQUIRE(storage::issue_key(r, 2, "new", now));
      REQUIRE(*storage::revoke_active_key(r, 2, now));
      REQUIRE(storage::issue_key(r, 2, "new", now));
      REQUIRE_FALSE(storage::write_count(
        r, storage::usage_key("rotate", "key", "2", storage::hour_of(now - 3600).label), 3));
    });
  }
  auto out = run_admin(data.path(), {"prune"});
  CHECK(out.find("deleted 1 used states, 1 sessions, 1 revoked keys, 1 hourly counters")
        != std::string::npos);
  // A second run finds nothing left to do.
  CHECK(run_admin(data.path(), {"prune"}).find("deleted 0 used states, 0 sessions, 0 revoked")
        != std::string::npos);
  CHECK(key_records(data.path()) == 2);
  CHECK_THROWS(run_admin(data.path(), {"prune", "extra"}));
}
