// The web page's routes: its embedded files, their headers, conditional GETs, and what the
// page's HTML may refer to under its own Content-Security-Policy.
#include <catch2/catch.hpp>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "net/http/account_page.hpp"
#include "net/http/page.hpp"
#include "net/http/router.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
namespace http = boost::beast::http;

namespace {

request page_request(http::verb method, std::string target) {
  request req{method, target, 11};
  req.set(http::field::host, "127.0.0.1:8080");
  return req;
}

route_context page_test_context() {
  route_context rc;
  rc.client = identify_client(boost::asio::ip::make_address("198.51.100.7"), "", {});
  rc.openapi_json = R"({"openapi":"3.1.0"})";
  return rc;
}

response answer_of(http::verb method, std::string target, std::string if_none_match = {}) {
  auto req = page_request(method, std::move(target));
  if (!if_none_match.empty())
    req.set(http::field::if_none_match, if_none_match);
  auto decision = route(req, page_test_context());
  REQUIRE(decision.immediate);
  REQUIRE_FALSE(decision.call);
  return std::move(*decision.immediate);
}

std::string field_of(const response& res, std::string_view name) {
  return std::string{res[name]};
}

} // namespace

TEST_CASE("page: GET / serves the page with its security headers", "[page]") {
  auto res = answer_of(http::verb::get, "/");
  CHECK(res.result() == http::status::ok);
  CHECK(field_of(res, "Content-Type") == "text/html; charset=utf-8");
  CHECK(res.body().find("<h1>") != std::string::npos);
  auto csp = field_of(res, "Content-Security-Policy");
  CHECK(csp.find("default-src 'self'") != std::string::npos);
  CHECK(csp.find("script-src 'self'") != std::string::npos);
  CHECK(csp.find("frame-ancestors 'none'") != std::string::npos);
  CHECK(csp.find("unsafe") == std::string::npos);
  CHECK(field_of(res, "X-Content-Type-Options") == "nosniff");
  CHECK(field_of(res, "Referrer-Policy") == "no-referrer");
  CHECK(field_of(res, "Cache-Control") == "no-cache");
  auto etag = field_of(res, "ETag");
  REQUIRE(etag.size() > 2);
  CHECK(etag.front() == '"');
  CHECK(etag.back() == '"');
  CHECK(field_of(res, "Content-Length") == std::to_string(res.body().size()));
}

TEST_CASE("page: every file is served with its type, and unknown ones are 404", "[page]") {
  REQUIRE(page_asset_count >= 5);
  std::set<std::string> etags;
  for (std::size_t i = 0; i < page_asset_count; ++i) {
    const auto& asset = page_assets[i];
    auto decision = route(page_request(http::verb::get, std::string{asset.path}), page_test_context());
    REQUIRE(decision.immediate);
    CHECK(decision.route == asset.path);
    CHECK(decision.immediate->result() == http::status::ok);
    CHECK(decision.immediate->body() == asset.body);
    CHECK(field_of(*decision.immediate, "Content-Type") == asset.content_type);
    etags.insert(std::string{asset.etag});
  }
  CHECK(etags.size() == page_asset_count);
  CHECK(answer_of(http::verb::get, "/page.js").result() == http::status::ok);
  CHECK(field_of(answer_of(http::verb::get, "/page.js"), "Content-Type")
        == "text/javascript; charset=utf-8");
  CHECK(answer_of(http::verb::get, "/page.jsx").result() == http::status::not_found);
  CHECK(answer_of(http::verb::get, "/index.html").result() == http::status::not_found);
}

TEST_CASE("page: a matching If-None-Match gets 304 without a body", "[page]") {
  auto etag = field_of(answer_of(http::verb::get, "/page.css"), "ETag");
  for (auto value : {etag, "W/" + etag, "\"other\", " + etag, std::string{"*"}}) {
    auto res = answer_of(http::verb::get, "/page.css", value);
    CHECK(res.result() == http::status::not_modified);
    CHECK(res.body().empty());
    CHECK(field_of(res, "ETag") == etag);
    CHECK(field_of(res, "Cache-Control") == "no-cache");
  }
  CHECK(answer_of(http::verb::get, "/page.css", "\"other\"").result() == http::status::ok);
  CHECK(answer_of(http::verb::get, "/page.css", "\"\"").result() == http::status::ok);
}

TEST_CASE("page: etag_matches compares weakly and reads lists", "[page]") {
  CHECK(etag_matches("\"a\"", "\"a\""));
  CHECK(etag_matches("W/\"a\"", "\"a\""));
  CHECK(etag_matches(" \"b\" , \"a\" ", "\"a\""));
  CHECK(etag_matches("*", "\"a\""));
  CHECK_FALSE(etag_matches("", "\"a\""));
  CHECK_FALSE(etag_matches("\"ab\"", "\"a\""));
  CHECK_FALSE(etag_matches("a", "\"a\""));
  CHECK_FALSE(etag_matches(",,", "\"a\""));
}

TEST_CASE("page: HEAD gives the GET's length and no body, other methods 405", "[page]") {
  auto get = answer_of(http::verb::get, "/");
  auto head = answer_of(http::verb::head, "/");
  CHECK(head.result() == http::status::ok);
  CHECK(head.body().empty());
  CHECK(field_of(head, "Content-Length") == std::to_string(get.body().size()));
  for (auto method : {http::verb::post, http::verb::put, http::verb::delete_}) {
    auto res = answer_of(method, "/");
    CHECK(res.result() == http::status::method_not_allowed);
    CHECK(field_of(res, "Allow") == "GET, HEAD");
  }
}

TEST_CASE("page: the HTML needs nothing its policy forbids", "[page]") {
  const auto* index = find_page_asset("/");
  REQUIRE(index != nullptr);
  std::string html{index->body};
  // Inline script, inline event handlers and style attributes would be blocked by the CSP
  // and leave the page broken, so none may be written.
  CHECK_FALSE(std::regex_search(html, std::regex{R"(<script(?![^>]*\ssrc=)[^>]*>)"}));
  CHECK_FALSE(std::regex_search(html, std::regex{R"(\son[a-z]+\s*=)", std::regex::icase}));
  CHECK_FALSE(std::regex_search(html, std::regex{R"(\sstyle\s*=)", std::regex::icase}));
  CHECK(html.find("<style") == std::string::npos);
  CHECK(html.find("<html lang=\"en\">") != std::string::npos);
  // Every file the HTML and the scripts load is one the service serves, from this origin.
  std::regex reference{R"((?:src|href)="([^"#]*)\"|from '\./([^']+)')"};
  std::set<std::string> loaded;
  for (std::size_t i = 0; i < page_asset_count; ++i) {
    std::string text{page_assets[i].body};
    for (std::sregex_iterator it{text.begin(), text.end(), reference}, end; it != end; ++it) {
      auto path = (*it)[1].matched ? (*it)[1].str() : "/" + (*it)[2].str();
      // Routes the service answers itself, not files of the page.
      if (path.rfind("/api/", 0) == 0 || path.rfind("/auth/", 0) == 0 || path == "/openapi.json"
          || path == "/account")
        continue;
      loaded.insert(path);
    }
  }
  CHECK(loaded.count("/page.js") == 1);
  CHECK(loaded.count("/account.js") == 1);
  for (const auto& path : loaded) {
    INFO(path);
    CHECK(find_page_asset(path) != nullptr);
  }
}

// -- the account, as the page at / sees it ------------------------------------------------

namespace {

boost::json::object json_of(const response& res) {
  return boost::json::parse(res.body()).as_object();
}

api_outcome signed_in_outcome() {
  api_outcome outcome;
  outcome.account.login = "<b>octocat</b>";
  outcome.account.month = "2026-11";
  outcome.account.info_used = 3;
  outcome.account.info_limit = 20000;
  outcome.account.offer_used = 2500;
  outcome.account.offer_limit = 2000;
  outcome.account.key_active = true;
  // Neither may reach the page's script.
  outcome.account.csrf = "form-token";
  outcome.account.new_key = "nsk_secret";
  return outcome;
}

} // namespace

TEST_CASE("page: GET /account/session asks the actors with the session, no form token",
          "[page]") {
  auto req = page_request(http::verb::get, "/account/session");
  req.set(http::field::cookie, "other=1; ns_session=abc");
  auto decision = route(req, page_test_context());
  REQUIRE(decision.call);
  CHECK(decision.route == "/account/session");
  CHECK(decision.call->kind == call_kind::page_session);
  CHECK(decision.call->invalid.ok());
  CHECK(decision.call->session_hash.size() == 32);
  // A GET needs no Origin and no token: it changes nothing.
  CHECK(decision.call->csrf.empty());

  // Without the cookie, or with two of them, the actors are told why.
  auto none = route(page_request(http::verb::get, "/account/session"), page_test_context());
  REQUIRE(none.call);
  CHECK(none.call->invalid.code == error_code::unauthorized);
  auto twice = page_request(http::verb::get, "/account/session");
  twice.set(http::field::cookie, "ns_session=a; ns_session=b");
  CHECK(route(twice, page_test_context()).call->invalid.code == error_code::invalid_input);

  auto post = route(page_request(http::verb::post, "/account/session"), page_test_context());
  REQUIRE(post.immediate);
  CHECK(post.immediate->result() == http::status::method_not_allowed);
  CHECK(field_of(*post.immediate, "Allow") == "GET");
}

TEST_CASE("page: the session answer says who is signed in, and never the key or token",
          "[page]") {
  auto res = render_api(signed_in_outcome(), call_kind::page_session, 11, true);
  CHECK(res.result() == http::status::ok);
  CHECK(field_of(res, "Content-Type") == "application/json");
  CHECK(field_of(res, "Cache-Control") == "no-store");
  // A cookie-authenticated answer: no CORS, so no other origin's script may read it.
  CHECK(res.count(http::field::access_control_allow_origin) == 0);
  auto body = json_of(res);
  CHECK(body.at("ok") == true);
  CHECK(body.at("signedIn") == true);
  CHECK(body.at("login") == "<b>octocat</b>"); // JSON; the page sets it as text
  CHECK(body.at("keyActive") == true);
  CHECK(body.at("month") == "2026-11");
  CHECK(body.at("usage").at("info").at("remaining") == 19997);
  CHECK(body.at("usage").at("offer").at("remaining") == 0); // over the limit is 0 left
  CHECK(res.body().find("form-token") == std::string::npos);
  CHECK(res.body().find("nsk_") == std::string::npos);
  CHECK(res.count(http::field::set_cookie) == 0);
}

TEST_CASE("page: not signed in is a 200 that clears a dead session, other errors stay errors",
          "[page]") {
  api_outcome dead;
  dead.error = make_failure(error_code::unauthorized, "not signed in");
  for (bool secure : {false, true}) {
    auto res = render_api(dead, call_kind::page_session, 11, true, secure);
    CHECK(res.result() == http::status::ok);
    auto body = json_of(res);
    CHECK(body.at("signedIn") == false);
    CHECK_FALSE(body.contains("login"));
    auto cookie = field_of(res, "Set-Cookie");
    CHECK(cookie.rfind(secure ? "__Host-ns_session=" : "ns_session=", 0) == 0);
    CHECK(cookie.find("Max-Age=0") != std::string::npos);
  }
  api_outcome down;
  down.error = make_failure(error_code::unavailable, "the store is not answering");
  auto res = render_api(down, call_kind::page_session, 11, true);
  CHECK(res.result() == http::status::service_unavailable);
  CHECK(json_of(res).at("code") == "unavailable");
  CHECK(res.count(http::field::set_cookie) == 0);
}

TEST_CASE("page: the account pages wear the page's stylesheet, header and footer", "[page]") {
  auto view = signed_in_outcome();
  view.account.new_key.clear();
  std::vector<response> pages;
  pages.push_back(render_api(view, call_kind::page_view, 11, true));
  api_outcome first = signed_in_outcome();
  pages.push_back(render_api(first, call_kind::signin_finish, 11, true));
  api_outcome failed;
  failed.error = make_failure(error_code::csrf_rejected, "no");
  pages.push_back(render_api(failed, call_kind::page_new_key, 11, true));
  for (auto& page : pages) {
    const auto& html = page.body();
    INFO(html);
    CHECK(html.find("<link rel=\"stylesheet\" href=\"/page.css\">") != std::string::npos);
    CHECK(html.find("<header class=\"top\">") != std::string::npos);
    CHECK(html.find("<footer class=\"wrap foot\">") != std::string::npos);
    CHECK(html.find("<style") == std::string::npos);
    CHECK_FALSE(std::regex_search(html, std::regex{R"(\sstyle\s*=)", std::regex::icase}));
    auto csp = field_of(page, "Content-Security-Policy");
    CHECK(csp.find("style-src 'self'") != std::string::npos);
    CHECK(csp.find("img-src 'self'") != std::string::npos);
    // Everything the pages load is one of the page's files, which the policy allows.
    std::regex loaded{R"((?:src|rel="stylesheet" href|rel="icon" href)="([^"]+)\")"};
    for (std::sregex_iterator it{html.begin(), html.end(), loaded}, end; it != end; ++it)
      CHECK(find_page_asset((*it)[1].str()) != nullptr);
  }
  // The login is escaped, the numbers grouped like the page's, the form token in the forms.
  CHECK(pages[0].body().find("Signed in as &lt;b&gt;octocat&lt;/b&gt;") != std::string::npos);
  CHECK(pages[0].body().find(">20,000<") != std::string::npos);
  CHECK(pages[0].body().find("name=\"csrf\" value=\"form-token\"") != std::string::npos);
  CHECK(pages[1].body().find("<pre id=\"api-key\">nsk_secret</pre>") != std::string::npos);
  CHECK(pages[2].body().find("<code id=\"error-code\">csrf_rejected</code>") != std::string::npos);
}

namespace {

// An account with two watches: a public one with a webhook that works and one that fails, and
// a private one on an IPv6 address without webhooks.
api_outcome watching_outcome() {
  auto outcome = signed_in_outcome();
  outcome.account.new_key.clear();
  core::watch_answer list;
  list.limit = 10;
  core::watch_view shown{"AAAAAAAAAAAAAAAA", "play.example.com", 19133, 300, true, 1767225600, {}};
  core::webhook_view fine;
  fine.id = "BBBBBBBBBBBBBBBB";
  fine.url = "https://hooks.example/in?token=hush";
  core::webhook_view broken;
  broken.id = "CCCCCCCCCCCCCCCC";
  broken.url = "https://discord.com/api/webhooks/1/x";
  broken.format = webhook_format::discord;
  broken.failing = true;
  broken.failing_since = 1767225700;
  broken.last_failure_at = 1767225700;
  broken.last_failure = "<refused>";
  shown.webhooks = {fine, broken};
  list.watches.push_back(shown);
  list.watches.push_back({"DDDDDDDDDDDDDDDD", "2001:db8::1", 19132, 7200, false, 1767225600, {}});
  outcome.account_watches = std::make_shared<const core::watch_answer>(std::move(list));
  return outcome;
}

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++n;
  return n;
}

} // namespace

TEST_CASE("page: the account page lists the watches, their webhooks and each one's state",
          "[page]") {
  auto res = render_api(watching_outcome(), call_kind::page_view, 11, true);
  CHECK(res.result() == http::status::ok);
  const auto& html = res.body();
  INFO(html);
  CHECK(html.find("<h2 id=\"watch-title\">Watched servers</h2>") != std::string::npos);
  CHECK(html.find("<strong class=\"watch-target\">play.example.com:19133</strong>")
        != std::string::npos);
  CHECK(html.find("<strong class=\"watch-target\">[2001:db8::1]:19132</strong>")
        != std::string::npos);
  CHECK(html.find("Checked every 5 minutes") != std::string::npos);
  CHECK(html.find("Checked every 2 hours") != std::string::npos);
  CHECK(html.find("<span class=\"scope public\">public</span>") != std::string::npos);
  CHECK(html.find("<span class=\"scope\">private</span>") != std::string::npos);
  CHECK(html.find("<time datetime=\"2026-01-01T00:00:00Z\">") != std::string::npos);
  // The chart is public history only, so only the public watch links it.
  CHECK(count_of(html, "href=\"/chart.svg?") == 1);
  CHECK(html.find("href=\"/chart.svg?host=play.example.com&amp;port=19133\"") != std::string::npos);
  CHECK(count_of(html, "href=\"/api/history?") == 2);
  // Each webhook's state, as the API names it; a failing one with when and why, escaped.
  CHECK(html.find("<span class=\"webhook-state good\">ok</span>") != std::string::npos);
  CHECK(html.find("<span class=\"webhook-state bad\">failing</span>") != std::string::npos);
  CHECK(html.find("&lt;refused&gt;") != std::string::npos);
  CHECK(html.find("<refused>") == std::string::npos);
  CHECK(html.find("<span class=\"webhook-format\">discord</span>") != std::string::npos);
  // A URL's query (a receiver's token) stays off the page.
  CHECK(html.find("https://hooks.example/in?…") != std::string::npos);
  CHECK(html.find("hush") == std::string::npos);
  // Every form carries the session's token; the buttons name what they act on.
  CHECK(count_of(html, "<form ") == count_of(html, "name=\"csrf\" value=\"form-token\""));
  CHECK(html.find("action=\"/account/watch\"") != std::string::npos);
  CHECK(count_of(html, "action=\"/account/watch/delete\"") == 2);
  CHECK(count_of(html, "action=\"/account/webhook/delete\"") == 2);
  CHECK(count_of(html, "action=\"/account/webhook\"") == 2);
  CHECK(html.find("name=\"webhook\" value=\"CCCCCCCCCCCCCCCC\"") != std::string::npos);
  CHECK(html.find("name=\"watch\" value=\"DDDDDDDDDDDDDDDD\"") != std::string::npos);
  CHECK(html.find("2 of 10 watches.") != std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK_FALSE(std::regex_search(html, std::regex{R"(\sstyle\s*=)", std::regex::icase}));
}

TEST_CASE("page: no watches, watches that could not be read, and a new webhook's secret",
          "[page]") {
  auto none = signed_in_outcome();
  none.account.new_key.clear();
  none.account_watches = std::make_shared<const core::watch_answer>();
  auto empty = render_api(none, call_kind::page_view, 11, true).body();
  CHECK(empty.find("You watch no servers yet.") != std::string::npos);
  CHECK(empty.find("action=\"/account/watch\"") != std::string::npos);
  // A sign-in that made the account asked for no watches: it has none.
  auto first = render_api(signed_in_outcome(), call_kind::signin_finish, 11, true).body();
  CHECK(first.find("You watch no servers yet.") != std::string::npos);
  auto lost = signed_in_outcome();
  core::watch_answer failed;
  failed.error = make_failure(error_code::unavailable, "down");
  lost.account_watches = std::make_shared<const core::watch_answer>(failed);
  auto unread = render_api(lost, call_kind::page_view, 11, true);
  CHECK(unread.result() == http::status::ok);
  CHECK(unread.body().find("could not be read just now") != std::string::npos);
  // A new webhook: its secret on the page, this once.
  auto made = watching_outcome();
  made.new_webhook.url = "https://hooks.example/in?token=hush";
  made.new_webhook_secret = "whsec_shown_once";
  auto shown = render_api(made, call_kind::page_webhook_add, 11, true);
  CHECK(shown.result() == http::status::ok);
  CHECK(shown.body().find("<pre id=\"webhook-secret\">whsec_shown_once</pre>") != std::string::npos);
  CHECK(shown.body().find("hush") == std::string::npos);
}

TEST_CASE("page: the watch forms send the browser back to the page, or show the error",
          "[page]") {
  for (auto kind : {call_kind::page_watch_add, call_kind::page_watch_delete,
                    call_kind::page_webhook_delete}) {
    auto done = render_api(api_outcome{}, kind, 11, true);
    CHECK(done.result() == http::status::see_other);
    CHECK(field_of(done, "Location") == "/account");
    api_outcome refused;
    refused.error = make_failure(error_code::watch_limit_reached, "this account watches 10");
    auto page = render_api(refused, kind, 11, true);
    CHECK(page.result() == http::status::conflict);
    CHECK(page.body().find("<code id=\"error-code\">watch_limit_reached</code>")
          != std::string::npos);
    CHECK(page.body().find("href=\"/account\"") != std::string::npos);
    CHECK(field_of(page, "Content-Security-Policy").find("form-action 'self'")
          != std::string::npos);
  }
}

TEST_CASE("page: periods and webhook URLs as the account page writes them", "[page]") {
  CHECK(period_text(60) == "1 minute");
  CHECK(period_text(300) == "5 minutes");
  CHECK(period_text(90) == "90 seconds");
  CHECK(period_text(3600) == "1 hour");
  CHECK(period_text(86400) == "24 hours");
  CHECK(webhook_url_shown("https://hooks.example") == "https://hooks.example/");
  CHECK(webhook_url_shown("https://hooks.example:8443/in/x?token=1#") == "https://hooks.example:8443/in/x?…");
  CHECK(webhook_url_shown("http://[::1]:9/hook") == "http://[::1]:9/hook");
  CHECK(webhook_url_shown("not a url") == "(a URL that does not parse)");
}

TEST_CASE("page: group_digits writes thousands like the page", "[page]") {
  CHECK(group_digits(0) == "0");
  CHECK(group_digits(999) == "999");
  CHECK(group_digits(1000) == "1,000");
  CHECK(group_digits(20000) == "20,000");
  CHECK(group_digits(1234567) == "1,234,567");
  CHECK(group_digits(18446744073709551615ULL) == "18,446,744,073,709,551,615");
}

TEST_CASE("page: the scripts never parse data as HTML, store anything or ask for a key",
          "[page]") {
  for (auto path : {"/page.js", "/api.js", "/account.js"}) {
    const auto* asset = find_page_asset(path);
    REQUIRE(asset != nullptr);
    std::string text{asset->body};
    INFO(path);
    for (auto sink : {"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write",
                      "localStorage", "sessionStorage", "document.cookie", "eval("})
      CHECK(text.find(sink) == std::string::npos);
  }
  std::string html{find_page_asset("/")->body};
  CHECK(html.find("type=\"password\"") == std::string::npos);
  CHECK(html.find("/auth/github/login") != std::string::npos);
  CHECK(html.find("href=\"/account\"") != std::string::npos);
}
