#include <catch2/catch.hpp>

#include <cctype>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/params_view.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

#include "support/fake_oauth.hpp"
#include "support/wait.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
namespace urls = boost::urls;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

constexpr const char* callback = "http://127.0.0.1:9/auth/github/callback";

// RFC 7636 Appendix B's example: a verifier and its S256 challenge.
constexpr const char* rfc_verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
constexpr const char* rfc_challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

struct exchange_reply {
  int status = 0;
  std::map<std::string, std::string> headers; // names in lower case
  std::string body;
  std::string error;

  std::string header(const std::string& name) const {
    auto i = headers.find(name);
    return i == headers.end() ? std::string{} : i->second;
  }
  json::value json_body() const {
    boost::system::error_code ec;
    auto v = json::parse(body, ec);
    return ec ? json::value{} : v;
  }
};

struct outgoing {
  http::verb method = http::verb::get;
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

std::string lower(std::string s) {
  for (auto& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Sends the requests one after another on a single keep-alive connection to 127.0.0.1:port.
std::vector<exchange_reply> call_all(unsigned port, const std::vector<outgoing>& out,
                                     std::chrono::milliseconds timeout = 10s) {
  asio::io_context ioc;
  beast::tcp_stream stream{ioc};
  beast::flat_buffer buffer;
  std::vector<exchange_reply> replies(out.size());
  http::request<http::string_body> req;
  std::optional<http::response_parser<http::string_body>> parser;
  std::function<void(std::size_t)> step = [&](std::size_t n) {
    if (n == out.size())
      return;
    req = {out[n].method, out[n].target, 11};
    req.set(http::field::host, "127.0.0.1:" + std::to_string(port));
    for (auto& [name, value] : out[n].headers)
      req.set(name, value);
    if (out[n].method == http::verb::post) {
      req.body() = out[n].body;
      req.prepare_payload();
    }
    http::async_write(stream, req, [&, n](beast::error_code ec, std::size_t) {
      if (ec) {
        replies[n].error = "write: " + ec.message();
        return;
      }
      parser.emplace();
      http::async_read(stream, buffer, *parser, [&, n](beast::error_code ec, std::size_t) {
        if (ec) {
          replies[n].error = "read: " + ec.message();
          return;
        }
        auto& res = parser->get();
        replies[n].status = static_cast<int>(res.result_int());
        for (auto& field : res)
          replies[n].headers[lower(std::string{field.name_string()})] =
            std::string{field.value()};
        replies[n].body = res.body();
        step(n + 1);
      });
    });
  };
  tcp::endpoint ep{asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)};
  stream.async_connect(ep, [&](beast::error_code ec) {
    if (ec) {
      replies[0].error = "connect: " + ec.message();
      return;
    }
    step(0);
  });
  ioc.run_for(timeout);
  for (auto& r : replies)
    if (r.status == 0 && r.error.empty())
      r.error = "timeout";
  return replies;
}

exchange_reply call(unsigned port, outgoing out, std::chrono::milliseconds timeout = 10s) {
  return call_all(port, {std::move(out)}, timeout).front();
}

std::string enc(const std::string& s) {
  return urls::encode(s, urls::unreserved_chars);
}

std::string authorize_query(const std::string& client_id, const std::string& redirect_uri,
                            const std::string& scope, const std::string& state,
                            const std::string& challenge = rfc_challenge,
                            const std::string& method = "S256") {
  auto query = "client_id=" + enc(client_id) + "&redirect_uri=" + enc(redirect_uri)
               + "&scope=" + enc(scope) + "&state=" + enc(state);
  if (!challenge.empty())
    query += "&code_challenge=" + enc(challenge) + "&code_challenge_method=" + enc(method);
  return query;
}

// The decoded query parameters of a URL (+ as space, as form decoders read it).
std::multimap<std::string, std::string> query_of(const std::string& url) {
  std::multimap<std::string, std::string> out;
  auto u = urls::parse_uri(url);
  REQUIRE(u);
  for (auto p : u->params())
    out.emplace(p.key, p.value);
  return out;
}

std::string first(const std::multimap<std::string, std::string>& m, const std::string& key) {
  auto i = m.find(key);
  return i == m.end() ? std::string{"<absent>"} : i->second;
}

outgoing token_request(const std::string& body, const std::string& accept = "application/json") {
  outgoing o{http::verb::post, "/login/oauth/access_token", {}, body};
  o.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
  if (!accept.empty())
    o.headers.emplace_back("Accept", accept);
  o.headers.emplace_back("User-Agent", "netherscope-test");
  return o;
}

std::string token_form(const std::string& code = "good-code",
                       const std::string& secret = "test-secret",
                       const std::string& redirect_uri = callback,
                       const std::string& verifier = rfc_verifier) {
  auto form = "client_id=test-client&client_secret=" + enc(secret) + "&code=" + enc(code)
              + "&redirect_uri=" + enc(redirect_uri);
  if (!verifier.empty())
    form += "&code_verifier=" + enc(verifier);
  return form;
}

outgoing user_request(const std::string& authorization, const std::string& agent = "netherscope") {
  outgoing o{http::verb::get, "/user", {}, {}};
  o.headers.emplace_back("Accept", "application/vnd.github+json");
  if (!authorization.empty())
    o.headers.emplace_back("Authorization", authorization);
  if (!agent.empty())
    o.headers.emplace_back("User-Agent", agent);
  return o;
}

} // namespace

TEST_CASE("fake oauth consent redirect carries code and state and keeps the callback query",
          "[fake_oauth]") {
  fake_oauth_provider gh;
  std::string redirect = std::string{callback} + "?next=%2Fhome&lang=en";
  std::string state = "s+t /=&ü";
  auto query = authorize_query("test-client", redirect, "read:user", state);
  auto location = follow_authorize(gh.authorize_url() + "?" + query);
  REQUIRE_FALSE(location.empty());
  CHECK(location.rfind(std::string{callback} + "?next=%2Fhome&lang=en&", 0) == 0);
  auto params = query_of(location);
  CHECK(first(params, "next") == "/home");
  CHECK(first(params, "lang") == "en");
  CHECK(first(params, "code") == "good-code");
  CHECK(first(params, "state") == state);
  CHECK(params.count("error") == 0);
  CHECK(gh.authorize_requests() == 1);
  CHECK(gh.last_authorize_query() == query);
  CHECK(gh.token_requests() == 0);
}

TEST_CASE("fake oauth consent without a callback query starts one", "[fake_oauth]") {
  fake_oauth_options o;
  o.code = "c/1+2";
  fake_oauth_provider gh{o};
  auto location = follow_authorize(gh.authorize_url() + "?"
                                   + authorize_query("test-client", callback,
                                                     "read:user", "abc"));
  CHECK(location == std::string{callback} + "?code=c%2F1%2B2&state=abc");
}

TEST_CASE("fake oauth deny mode redirects with access_denied", "[fake_oauth]") {
  fake_oauth_options o;
  o.authorize = fake_oauth_options::authorize_mode::deny;
  fake_oauth_provider gh{o};
  auto location = follow_authorize(gh.authorize_url() + "?"
                                   + authorize_query("test-client", callback,
                                                     "read:user", "xyz"));
  REQUIRE_FALSE(location.empty());
  CHECK(location.rfind(std::string{callback} + "?error=access_denied&", 0) == 0);
  auto params = query_of(location);
  CHECK(first(params, "error") == "access_denied");
  CHECK(first(params, "error_description") == "The user has denied your application access.");
  CHECK(first(params, "error_uri").rfind("https://docs.github.com/", 0) == 0);
  CHECK(first(params, "state") == "xyz");
  CHECK(params.count("code") == 0);
}

TEST_CASE("fake oauth authorize rejects a wrong client_id with 404", "[fake_oauth]") {
  fake_oauth_provider gh;
  auto query = authorize_query("other-client", callback, "read:user", "s");
  CHECK(follow_authorize(gh.authorize_url() + "?" + query).empty());
  auto r = call(gh.port(), {http::verb::get, "/login/oauth/authorize?" + query, {}, {}});
  CHECK(r.status == 404);
  CHECK(r.body == "client_id unknown");
  CHECK(r.header("location").empty());
  CHECK(gh.authorize_requests() == 2);
}

TEST_CASE("fake oauth authorize rejects bad scope and redirect_uri with 400", "[fake_oauth]") {
  fake_oauth_provider gh;
  auto status = [&](const std::string& query) {
    return call(gh.port(), {http::verb::get, "/login/oauth/authorize?" + query, {}, {}}).status;
  };
  CHECK(status(authorize_query("test-client", callback, "read:user repo", "s")) == 400);
  CHECK(status(authorize_query("test-client", callback, "user", "s")) == 400);
  CHECK(status(authorize_query("test-client", callback, "", "s")) == 400);
  CHECK(status("client_id=test-client&scope=read%3Auser&state=s") == 400);
  CHECK(status(authorize_query("test-client", "ftp://127.0.0.1/cb", "read:user", "s")) == 400);
  CHECK(status(authorize_query("test-client", "not a url", "read:user", "s")) == 400);
  // '+' is a space in the query, so this asks for read:user twice, which is fine.
  CHECK(status("client_id=test-client&redirect_uri=" + enc(callback)
                + "&scope=read%3Auser+read%3Auser&state=s&code_challenge=" + rfc_challenge
                + "&code_challenge_method=S256")
        == 302);
}

TEST_CASE("fake oauth token exchange succeeds with a JSON Accept", "[fake_oauth]") {
  fake_oauth_provider gh;
  auto body = token_form();
  auto r = call(gh.port(), token_request(body));
  REQUIRE(r.error.empty());
  CHECK(r.status == 200);
  CHECK(r.header("content-type") == "application/json; charset=utf-8");
  auto v = r.json_body();
  REQUIRE(v.is_object());
  CHECK(v.at("access_token") == "gho_fake_token");
  CHECK(v.at("token_type") == "bearer");
  CHECK(v.at("scope") == "read:user");
  CHECK(gh.token_requests() == 1);
  CHECK(gh.tokens_issued() == 1);
  CHECK(gh.last_token_body() == body);
  CHECK(gh.last_token_accept() == "application/json");
}

TEST_CASE("fake oauth token exchange answers form-encoded without a JSON Accept",
          "[fake_oauth]") {
  fake_oauth_provider gh;
  auto r = call(gh.port(), token_request(token_form(), ""));
  CHECK(r.status == 200);
  CHECK(r.header("content-type").rfind("application/x-www-form-urlencoded", 0) == 0);
  CHECK(r.body == "access_token=gho_fake_token&scope=read%3Auser&token_type=bearer");
  CHECK(gh.last_token_accept().empty());
}

TEST_CASE("fake oauth code works once and a new consent makes it valid again",
          "[fake_oauth]") {
  fake_oauth_provider gh;
  auto replies = call_all(gh.port(), {token_request(token_form()), token_request(token_form())});
  CHECK(replies[0].json_body().at("access_token") == "gho_fake_token");
  CHECK(replies[1].status == 200);
  auto err = replies[1].json_body();
  REQUIRE(err.is_object());
  CHECK(err.at("error") == "bad_verification_code");
  CHECK(err.at("error_description") == "The code passed is incorrect or expired.");
  CHECK(err.as_object().contains("error_uri"));
  CHECK_FALSE(err.as_object().contains("access_token"));

  REQUIRE_FALSE(follow_authorize(gh.authorize_url() + "?"
                                 + authorize_query("test-client", callback, "read:user", "s"))
                  .empty());
  CHECK(call(gh.port(), token_request(token_form())).json_body().at("access_token")
        == "gho_fake_token");
  CHECK(gh.token_requests() == 3);
  CHECK(gh.tokens_issued() == 2);
}

TEST_CASE("fake oauth wrong code is bad_verification_code at HTTP 200", "[fake_oauth]") {
  fake_oauth_provider gh;
  auto r = call(gh.port(), token_request(token_form("bad-code")));
  CHECK(r.status == 200);
  CHECK(r.json_body().at("error") == "bad_verification_code");
  // Not JSON-accepting clients get the error form-encoded, like GitHub does.
  auto form = call(gh.port(), token_request(token_form("bad-code"), ""));
  CHECK(form.status == 200);
  CHECK(form.body.rfind("error=bad_verification_code&", 0) == 0);
  CHECK(gh.tokens_issued() == 0);
}

TEST_CASE("fake oauth wrong secret is incorrect_client_credentials", "[fake_oauth]") {
  fake_oauth_provider gh;
  auto r = call(gh.port(), token_request(token_form("good-code", "wrong-secret")));
  CHECK(r.status == 200);
  auto v = r.json_body();
  REQUIRE(v.is_object());
  CHECK(v.at("error") == "incorrect_client_credentials");
  CHECK_FALSE(v.as_object().contains("access_token"));
  // The rejected attempt did not use up the code.
  CHECK(call(gh.port(), token_request(token_form())).json_body().at("access_token")
        == "gho_fake_token");
}

TEST_CASE("fake oauth token redirect_uri must match the authorized one", "[fake_oauth]") {
  fake_oauth_provider gh;
  REQUIRE_FALSE(follow_authorize(gh.authorize_url() + "?"
                                 + authorize_query("test-client", callback, "read:user", "s"))
                  .empty());
  auto r = call(gh.port(), token_request(token_form("good-code", "test-secret",
                                                    "http://127.0.0.1:9/elsewhere")));
  CHECK(r.json_body().at("error") == "redirect_uri_mismatch");
  CHECK(call(gh.port(), token_request(token_form())).json_body().at("access_token")
        == "gho_fake_token");
}

TEST_CASE("fake oauth token error_json mode always fails", "[fake_oauth]") {
  fake_oauth_options o;
  o.token = fake_oauth_options::token_mode::error_json;
  fake_oauth_provider gh{o};
  auto r = call(gh.port(), token_request(token_form()));
  CHECK(r.status == 200);
  CHECK(r.header("content-type") == "application/json; charset=utf-8");
  CHECK(r.json_body().at("error") == "bad_verification_code");
  CHECK(gh.tokens_issued() == 0);
}

TEST_CASE("fake oauth token http_500 mode answers 500 with HTML", "[fake_oauth]") {
  fake_oauth_options o;
  o.token = fake_oauth_options::token_mode::http_500;
  fake_oauth_provider gh{o};
  auto r = call(gh.port(), token_request(token_form()));
  CHECK(r.status == 500);
  CHECK(r.header("content-type").rfind("text/html", 0) == 0);
  CHECK(r.json_body().is_null());
  CHECK(gh.token_requests() == 1);
}

TEST_CASE("fake oauth token not_json mode answers 200 with HTML", "[fake_oauth]") {
  fake_oauth_options o;
  o.token = fake_oauth_options::token_mode::not_json;
  fake_oauth_provider gh{o};
  auto r = call(gh.port(), token_request(token_form()));
  CHECK(r.status == 200);
  CHECK(r.header("content-type").rfind("text/html", 0) == 0);
  CHECK_FALSE(r.body.empty());
  CHECK(r.json_body().is_null());
}

TEST_CASE("fake oauth user endpoint returns id login and much more", "[fake_oauth]") {
  fake_oauth_options o;
  o.user_id = 18446744073709551615ull;
  o.login = "mona";
  fake_oauth_provider gh{o};
  auto r = call(gh.port(), user_request("Bearer gho_fake_token", "netherscope/1.0"));
  REQUIRE(r.status == 200);
  CHECK(r.header("content-type") == "application/json; charset=utf-8");
  auto v = r.json_body();
  REQUIRE(v.is_object());
  auto& user = v.as_object();
  CHECK(user.at("id") == 18446744073709551615ull);
  CHECK(user.at("login") == "mona");
  CHECK(user.at("type") == "User");
  CHECK(user.at("site_admin") == false);
  CHECK(user.at("email").is_null());
  for (auto key : {"node_id", "avatar_url", "html_url", "name", "created_at", "updated_at",
                   "followers", "public_repos"})
    CHECK(user.contains(key));
  CHECK(user.size() >= 20);
  CHECK(gh.user_requests() == 1);
  CHECK(gh.last_user_authorization() == "Bearer gho_fake_token");
  CHECK(gh.last_user_agent() == "netherscope/1.0");
  // GitHub's legacy scheme works as well.
  auto legacy = call(gh.port(), user_request("token gho_fake_token"));
  CHECK(legacy.status == 200);
  CHECK(gh.last_user_authorization() == "token gho_fake_token");
}

TEST_CASE("fake oauth user endpoint needs a User-Agent", "[fake_oauth]") {
  fake_oauth_provider gh;
  auto r = call(gh.port(), user_request("Bearer gho_fake_token", ""));
  CHECK(r.status == 403);
  // GitHub's own wording, which the fake copies: here the text is what is under test.
  CHECK(r.body.find("User-Agent") != std::string::npos);
  CHECK(gh.user_requests() == 1);
  CHECK(gh.last_user_agent().empty());
}

TEST_CASE("fake oauth user endpoint rejects a bad or missing token with 401", "[fake_oauth]") {
  fake_oauth_provider gh;
  for (auto auth : {"Bearer wrong", "", "Basic gho_fake_token", "gho_fake_token"}) {
    auto r = call(gh.port(), user_request(auth));
    INFO("Authorization: " << auth);
    CHECK(r.status == 401);
    auto v = r.json_body();
    REQUIRE(v.is_object());
    CHECK(v.at("message") == "Bad credentials");
    CHECK(v.at("documentation_url") == "https://docs.github.com/rest");
  }
  CHECK(gh.user_requests() == 4);
}

TEST_CASE("fake oauth user unauthorized mode always answers 401", "[fake_oauth]") {
  fake_oauth_options o;
  o.user = fake_oauth_options::user_mode::unauthorized;
  fake_oauth_provider gh{o};
  CHECK(call(gh.port(), user_request("Bearer gho_fake_token")).status == 401);
}

TEST_CASE("fake oauth user missing_id mode leaves out the id", "[fake_oauth]") {
  fake_oauth_options o;
  o.user = fake_oauth_options::user_mode::missing_id;
  fake_oauth_provider gh{o};
  auto r = call(gh.port(), user_request("Bearer gho_fake_token"));
  CHECK(r.status == 200);
  auto v = r.json_body();
  REQUIRE(v.is_object());
  CHECK_FALSE(v.as_object().contains("id"));
  CHECK(v.at("login") == "octocat");
}

TEST_CASE("fake oauth unknown paths answer 404 JSON", "[fake_oauth]") {
  fake_oauth_provider gh;
  auto r = call(gh.port(), {http::verb::get, "/user/repos", {{"User-Agent", "x"}}, {}});
  CHECK(r.status == 404);
  CHECK(r.json_body().at("message") == "Not Found");
  CHECK(call(gh.port(), {http::verb::get, "/login/oauth/access_token", {}, {}}).status == 404);
  CHECK(gh.user_requests() == 0);
}

TEST_CASE("fake oauth slow token mode delays without blocking other requests",
          "[fake_oauth]") {
  fake_oauth_options o;
  o.token = fake_oauth_options::token_mode::slow;
  o.user = fake_oauth_options::user_mode::slow;
  o.slow = 800ms;
  fake_oauth_provider gh{o};
  auto start = std::chrono::steady_clock::now();
  auto slow_token = std::async(std::launch::async, [&] {
    auto r = call(gh.port(), token_request(token_form()));
    return std::make_pair(r, std::chrono::steady_clock::now() - start);
  });
  auto slow_user = std::async(std::launch::async, [&] {
    auto r = call(gh.port(), user_request("Bearer gho_fake_token"));
    return std::make_pair(r, std::chrono::steady_clock::now() - start);
  });
  // Meanwhile, a quick request on its own connection is answered at once. Both slow ones
  // must have arrived first, well inside their 800 ms.
  INFO("waiting for the two slow requests to arrive");
  REQUIRE(wait_until([&] { return gh.token_requests() == 1 && gh.user_requests() == 1; },
                     700ms, 5ms));
  auto quick = call(gh.port(), {http::verb::get, "/nothing", {}, {}});
  auto quick_done = std::chrono::steady_clock::now() - start;
  CHECK(quick.status == 404);
  CHECK(quick_done < 800ms);

  auto [token, token_elapsed] = slow_token.get();
  CHECK(token.status == 200);
  CHECK(token.json_body().at("access_token") == "gho_fake_token");
  CHECK(token_elapsed >= 800ms);
  auto [user, user_elapsed] = slow_user.get();
  CHECK(user.status == 200);
  CHECK(user.json_body().at("login") == "octocat");
  CHECK(user_elapsed >= 800ms);
}

TEST_CASE("fake oauth stops promptly with a slow response pending", "[fake_oauth]") {
  fake_oauth_options o;
  o.token = fake_oauth_options::token_mode::slow;
  o.slow = 30s;
  auto gh = std::make_unique<fake_oauth_provider>(o);
  auto port = gh->port();
  auto pending = std::async(std::launch::async,
                            [port] { return call(port, token_request(token_form()), 20s); });
  INFO("waiting for the slow token request to arrive");
  REQUIRE(wait_until([&] { return gh->token_requests() == 1; }, 5s, 5ms));
  auto stop_start = std::chrono::steady_clock::now();
  gh.reset();
  CHECK(std::chrono::steady_clock::now() - stop_start < 2s);
  auto r = pending.get();
  CHECK(r.status == 0);
  CHECK(r.error.rfind("read:", 0) == 0);
  CHECK(std::chrono::steady_clock::now() - stop_start < 5s);
  // Nothing listens there any more.
  CHECK(call(port, {http::verb::get, "/user", {}, {}}, 2s).error.rfind("connect:", 0) == 0);
}

TEST_CASE("fake oauth providers run side by side on their own ports", "[fake_oauth]") {
  fake_oauth_options a_opts;
  a_opts.login = "alice";
  fake_oauth_options b_opts;
  b_opts.login = "bob";
  b_opts.access_token = "gho_bob";
  fake_oauth_provider a{a_opts};
  fake_oauth_provider b{b_opts};
  CHECK(a.port() != b.port());
  CHECK(a.base_url() == "http://127.0.0.1:" + std::to_string(a.port()));
  CHECK(a.authorize_url() == a.base_url() + "/login/oauth/authorize");
  CHECK(a.token_url() == a.base_url() + "/login/oauth/access_token");
  CHECK(a.api_url() == a.base_url());
  CHECK(call(a.port(), user_request("Bearer gho_fake_token")).json_body().at("login")
        == "alice");
  CHECK(call(b.port(), user_request("Bearer gho_bob")).json_body().at("login") == "bob");
  CHECK(call(b.port(), user_request("Bearer gho_fake_token")).status == 401);
  CHECK(a.user_requests() == 1);
  CHECK(b.user_requests() == 2);
}

TEST_CASE("fake oauth full flow over one keep-alive connection", "[fake_oauth]") {
  fake_oauth_provider gh;
  auto location = follow_authorize(gh.authorize_url() + "?"
                                   + authorize_query("test-client", callback, "read:user", "st"));
  auto code = first(query_of(location), "code");
  auto replies = call_all(gh.port(), {token_request(token_form(code)),
                                      user_request("Bearer gho_fake_token")});
  REQUIRE(replies[1].error.empty());
  CHECK(replies[0].json_body().at("access_token") == "gho_fake_token");
  CHECK(replies[1].json_body().at("id") == 4242);
  CHECK(replies[1].json_body().at("login") == "octocat");
}

TEST_CASE("fake oauth checks the PKCE verifier of the code it granted", "[fake_oauth]") {
  fake_oauth_provider gh;
  auto consent = [&] {
    REQUIRE_FALSE(follow_authorize(gh.authorize_url() + "?"
                                   + authorize_query("test-client", callback, "read:user", "s"))
                    .empty());
  };
  consent();
  // A wrong verifier, then none at all: refused like a bad code, and the code stays unused.
  auto wrong = call(gh.port(), token_request(token_form("good-code", "test-secret", callback,
                                                        "not-the-verifier-of-that-challenge")));
  CHECK(wrong.json_body().at("error") == "bad_verification_code");
  auto missing = call(gh.port(), token_request(token_form("good-code", "test-secret", callback,
                                                          "")));
  CHECK(missing.json_body().at("error") == "bad_verification_code");
  CHECK(gh.pkce_failures() == 2);
  CHECK(gh.tokens_issued() == 0);
  // RFC 7636 Appendix B's pair is accepted.
  CHECK(call(gh.port(), token_request(token_form())).json_body().at("access_token")
        == "gho_fake_token");
  CHECK(gh.tokens_issued() == 1);
}

TEST_CASE("fake oauth refuses authorize requests without S256 PKCE", "[fake_oauth]") {
  fake_oauth_provider gh;
  auto status = [&](const std::string& query) {
    return call(gh.port(), {http::verb::get, "/login/oauth/authorize?" + query, {}, {}}).status;
  };
  CHECK(status(authorize_query("test-client", callback, "read:user", "s", "")) == 400);
  CHECK(status(authorize_query("test-client", callback, "read:user", "s", rfc_verifier,
                               "plain"))
        == 400);
  CHECK(status(authorize_query("test-client", callback, "read:user", "s")) == 302);
  // Like GitHub, a provider that does not require PKCE lets a request without it through.
  fake_oauth_options o;
  o.require_pkce = false;
  fake_oauth_provider lax{o};
  CHECK(call(lax.port(), {http::verb::get,
                          "/login/oauth/authorize?"
                            + authorize_query("test-client", callback, "read:user", "s", ""),
                          {},
                          {}})
          .status
        == 302);
}

TEST_CASE("fake oauth accepts a reused code only when told to", "[fake_oauth]") {
  fake_oauth_options o;
  o.accept_reused_code = true;
  fake_oauth_provider gh{o};
  REQUIRE_FALSE(follow_authorize(gh.authorize_url() + "?"
                                 + authorize_query("test-client", callback, "read:user", "s"))
                  .empty());
  auto replies = call_all(gh.port(), {token_request(token_form()), token_request(token_form())});
  CHECK(replies[0].json_body().at("access_token") == "gho_fake_token");
  CHECK(replies[1].json_body().at("access_token") == "gho_fake_token");
  CHECK(gh.tokens_issued() == 2);
}
