// A server's page without sockets: the route reads its address in every spelling, the view
// is read from the actors' outcome, the HTML is drawn from it, and errors are pages too.
#include <catch2/catch.hpp>

#include <string>

#include <boost/json.hpp>

#include "core/error_table.hpp"
#include "net/http/badge.hpp"
#include "net/http/badge_png.hpp"
#include "net/http/page_frame.hpp"
#include "net/http/router.hpp"
#include "net/http/server_page.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
namespace http = boost::beast::http;

namespace {

request sp_request(http::verb method, std::string target) {
  request req{method, target, 11};
  req.set(http::field::host, "127.0.0.1:8080");
  return req;
}

route_context sp_context() {
  route_context rc;
  rc.client = identify_client(boost::asio::ip::make_address("198.51.100.7"), "", {});
  return rc;
}

route_decision sp_get(std::string target) {
  return route(sp_request(http::verb::get, std::move(target)), sp_context());
}

bool has(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

std::size_t occurrences(const std::string& text, std::string_view part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++n;
  return n;
}

// A status body as the badge's status gives it (core/status render_badge_status).
std::string sp_status_body(bool with_check) {
  boost::json::object nethernet{{"ok", true},
                                {"status", 200},
                                {"info",
                                 {{"name", "\xC2\xA7" "c<script>x</script>"},
                                  {"players", 3},
                                  {"maxPlayers", 10},
                                  {"version", "1.26.0"}}}};
  boost::json::object body{{"ok", true}, {"online", true}, {"nethernet", nethernet},
                           {"raknet", nullptr}};
  if (with_check)
    body["latestCheck"] = {{"at", 1796684400},
                           {"verdict", "join_failed"},
                           {"join", {{"joined", false}, {"stage", "dtls"}, {"outcome", "dtls_failed"}}}};
  return boost::json::serialize(body);
}

} // namespace

TEST_CASE("server page: the address is read in each spelling, brackets raw or encoded",
          "[server_page][router]") {
  struct spelling {
    const char* path;
    const char* host;
    unsigned port;
  };
  for (auto s : {spelling{"/server/Play.Example.com", "play.example.com", 19132},
                 spelling{"/server/play.example.com:19133", "play.example.com", 19133},
                 spelling{"/server/[2001:db8::1]", "2001:db8::1", 19132},
                 spelling{"/server/[2001:db8::1]:19140", "2001:db8::1", 19140},
                 spelling{"/server/%5B2001:db8::1%5D:19140", "2001:db8::1", 19140},
                 spelling{"/server/2001:db8::1", "2001:db8::1", 19132},
                 spelling{"/server/203.0.113.9?tls=false", "203.0.113.9", 19132}}) {
    INFO(s.path);
    auto d = sp_get(s.path);
    REQUIRE(d.call);
    CHECK(d.call->kind == call_kind::server_page);
    CHECK(d.call->invalid.ok());
    CHECK(d.call->where.host == s.host);
    CHECK(d.call->where.port == s.port);
    CHECK_FALSE(d.call->page_check);
    CHECK(d.route == "/server");
  }
}

TEST_CASE("server page: a key is never the page's, and check=1 asks for a check",
          "[server_page][router]") {
  auto req = sp_request(http::verb::get, "/server/play.example.com?check=1");
  req.set("X-API-Key", "nsk_some_key");
  auto d = route(req, sp_context());
  REQUIRE(d.call);
  CHECK(d.call->key_hash.empty());
  CHECK(d.call->client == "198.51.100.7");
  CHECK(d.call->page_check);
  for (auto target : {"/server/play.example.com?check=2", "/server/play.example.com?check=1&check=1",
                      "/server/play.example.com?check=", "/server/bad_host!",
                      "/server/play.example.com:0", "/server/play.example.com:70000",
                      "/server/[::1"}) {
    INFO(target);
    auto bad = sp_get(target);
    REQUIRE(bad.call);
    CHECK(bad.call->invalid.code == error_code::invalid_input);
    CHECK_FALSE(bad.call->page_check);
  }
}

TEST_CASE("server page: paths that are no server's page get HTML pages, not JSON",
          "[server_page][router]") {
  for (auto target : {"/server/a/b", "/server/", "/server"}) {
    INFO(target);
    auto d = sp_get(target);
    REQUIRE(d.immediate);
    CHECK(d.immediate->result() == http::status::not_found);
    CHECK(d.immediate->at(http::field::content_type) == "text/html; charset=utf-8");
    CHECK(d.immediate->at("Content-Security-Policy") == page_content_security_policy());
    CHECK(has(d.immediate->body(), "<code class=\"error-code\">not_found</code>"));
  }
  auto post = route(sp_request(http::verb::post, "/server/play.example.com"), sp_context());
  REQUIRE(post.immediate);
  CHECK(post.immediate->result() == http::status::method_not_allowed);
  CHECK(post.immediate->at(http::field::allow) == "GET");
  CHECK(has(post.immediate->body(), "<code class=\"error-code\">method_not_allowed</code>"));
  // A broken %-escape is no target at all: the page says so, as HTML.
  auto broken = sp_get("/server/%zz");
  REQUIRE(broken.immediate);
  CHECK(broken.immediate->result() == http::status::bad_request);
  CHECK(broken.immediate->at(http::field::content_type) == "text/html; charset=utf-8");
}

TEST_CASE("server page: a refusal is an HTML page with Retry-After and the quota",
          "[server_page]") {
  api_outcome outcome;
  outcome.error = make_failure(error_code::quota_exhausted, "this month's calls are used up");
  outcome.error.retry_after = 3600;
  outcome.has_quota = true;
  outcome.quota.limit = 100;
  outcome.quota.remaining = 0;
  outcome.quota.reset = 1798761600;
  auto res = render_api(outcome, call_kind::server_page, 11, true);
  CHECK(res.result() == http::status::too_many_requests);
  CHECK(res.at(http::field::content_type) == "text/html; charset=utf-8");
  CHECK(res.at(http::field::retry_after) == "3600");
  CHECK(res.at("X-RateLimit-Scope") == "ip");
  CHECK(res.at("X-RateLimit-Remaining") == "0");
  CHECK(res.at(http::field::cache_control) == "no-store");
  CHECK(res.at("X-Frame-Options") == "DENY");
  CHECK(has(res.body(), "<code class=\"error-code\">quota_exhausted</code>"));
  CHECK_FALSE(has(res.body(), "<script"));
  CHECK(res.count("X-Robots-Tag") == 0);
}

TEST_CASE("server page: address labels and paths", "[server_page]") {
  target where;
  where.host = "play.example.com";
  CHECK(address_label(where) == "play.example.com");
  CHECK(server_page_path(where) == "/server/play.example.com");
  where.port = 19133;
  CHECK(address_label(where) == "play.example.com:19133");
  where.host = "2001:db8::1";
  CHECK(address_label(where) == "[2001:db8::1]:19133");
  CHECK(server_page_path(where) == "/server/%5B2001:db8::1%5D:19133");
  where.port = 19132;
  CHECK(address_label(where) == "[2001:db8::1]");
}

TEST_CASE("server page: the timeline follows where the join stopped", "[server_page]") {
  using s = stage_state;
  CHECK(timeline_of(page_join{"game", "joined", true})
        == std::array<s, 6>{s::passed, s::passed, s::passed, s::passed, s::passed, s::passed});
  CHECK(timeline_of(page_join{"ice", "ice_failed", false})
        == std::array<s, 6>{s::passed, s::failed, s::not_reached, s::not_reached,
                            s::not_reached, s::not_reached});
  CHECK(timeline_of(page_join{"channels", "channels_refused", false})
        == std::array<s, 6>{s::passed, s::passed, s::passed, s::passed, s::failed,
                            s::not_reached});
  CHECK(timeline_of(std::nullopt)
        == std::array<s, 6>{s::failed, s::not_reached, s::not_reached, s::not_reached,
                            s::not_reached, s::not_reached});
}

TEST_CASE("server page: a status with a watch's check, drawn escaped, with its unfurl tags",
          "[server_page]") {
  api_outcome outcome;
  outcome.page_of.host = "play.example.com";
  outcome.page_of.port = 19133;
  outcome.body = sp_status_body(true);
  auto view = server_page_view_of(outcome, 1796688000);
  CHECK(view.online);
  CHECK(view.players == 3);
  CHECK(view.max_players == 10);
  CHECK(view.version == "1.26.0");
  CHECK(view.has_check);
  CHECK_FALSE(view.checked_now);
  CHECK(view.verdict == "join_failed");
  CHECK(view.checked_at == 1796684400);
  REQUIRE(view.join);
  CHECK(view.join->stage == "dtls");

  auto page = render_server_page(view, "https://ns.example");
  INFO(page);
  CHECK_FALSE(has(page, "<script"));
  CHECK(has(page, "&lt;script&gt;x&lt;/script&gt;"));
  CHECK(has(page, "<span class=\"mc-c\">"));
  CHECK(has(page, "<h1 class=\"server-address\">play.example.com:19133</h1>"));
  CHECK(has(page, "<meta property=\"og:url\" content=\"https://ns.example/server/play.example.com:19133\">"));
  CHECK(has(page, "<meta property=\"og:image\" content=\"https://ns.example/badge.png?host=play.example.com&amp;port=19133\">"));
  CHECK(has(page, "<meta name=\"twitter:card\" content=\"summary\">"));
  CHECK(has(page, "content=\"Online \xC2\xB7 3/10 players \xC2\xB7 1.26.0 \xC2\xB7 join_failed\""));
  CHECK_FALSE(has(page, "noindex"));
  CHECK(has(page, "<code class=\"verdict-code\">join_failed</code>"));
  CHECK(occurrences(page, "<li class=\"stage passed\">") == 2);
  CHECK(occurrences(page, "<li class=\"stage failed\">dtls") == 1);
  CHECK(occurrences(page, "<li class=\"stage not-reached\">") == 3);
  // No public watch: no chart, no peaks, no chart snippet.
  CHECK_FALSE(has(page, "class=\"chart\""));
  CHECK_FALSE(has(page, "chart.svg"));
  CHECK(has(page, "<form class=\"check-form\" method=\"get\" action=\"/server/play.example.com:19133\">"));
  CHECK(has(page, "[![bedrock status](https://ns.example/badge?host=play.example.com&amp;port=19133)]"
                  "(https://ns.example/server/play.example.com:19133)"));
}

TEST_CASE("server page: a check the visitor asked for shows its reasons and is not indexed",
          "[server_page]") {
  boost::json::object check{
    {"ok", true},
    {"verdict", "joinable"},
    {"reasons", {"A player's connection reached the game & <b>played</b>."}},
    {"nextSteps", boost::json::array{}},
    {"info", {{"ok", false}, {"code", "upstream_failure"}}},
    {"raknet", {{"ok", true}, {"motd", "\xC2\xA7" "aRak"}, {"players", 0}, {"maxPlayers", 5},
                {"version", "1.26.1"}}},
    {"join", {{"joined", true}, {"stage", "game"}, {"outcome", "joined"}}}};
  api_outcome outcome;
  outcome.page_of.host = "203.0.113.9";
  outcome.body = boost::json::serialize(check);
  outcome.checked = true;
  auto view = server_page_view_of(outcome, 1796688000);
  CHECK(view.online);
  CHECK(view.name == "\xC2\xA7" "aRak");
  CHECK(view.players == 0);
  CHECK(view.version == "1.26.1");
  CHECK(view.checked_now);
  CHECK(view.checked_at == 1796688000);
  auto page = render_server_page(view, "http://127.0.0.1:8080");
  INFO(page);
  CHECK(has(page, "<meta name=\"robots\" content=\"noindex\">"));
  CHECK((has(page, "<li class=\"reason\">A player&#39;s connection reached the game &amp; "
                   "&lt;b&gt;played&lt;/b&gt;.</li>")
         || has(page, "<li class=\"reason\">A player's connection reached the game &amp; "
                      "&lt;b&gt;played&lt;/b&gt;.</li>")));
  CHECK(occurrences(page, "<li class=\"stage passed\">") == 6);
  CHECK(has(page, "<title>Rak (203.0.113.9) \xC2\xB7 netherscope</title>"));
}

TEST_CASE("server page: a public watch's history gives the chart and the peaks",
          "[server_page]") {
  std::int64_t now = 1796688000;
  auto history = std::make_shared<history_view>();
  history->host = "play.example.com";
  history->port = 19132;
  history->is_public = true;
  history->slice.range = history_range::month;
  history_hour old_hour;
  old_hour.start = hour_start(now - 20 * 86400);
  old_hour.checks = old_hour.online = 4;
  old_hour.player_samples = 4;
  old_hour.players_max = 40;
  old_hour.players_sum = 100;
  history_hour recent;
  recent.start = hour_start(now - 2 * 86400);
  recent.checks = recent.online = 4;
  recent.player_samples = 4;
  recent.players_max = 12;
  recent.players_sum = 30;
  history->slice.hours = {old_hour, recent};
  api_outcome outcome;
  outcome.page_of.host = "play.example.com";
  outcome.body = sp_status_body(false);
  outcome.history = history;
  auto view = server_page_view_of(outcome, now);
  CHECK(view.is_public);
  REQUIRE(view.week);
  REQUIRE(view.month);
  CHECK(view.week->players_max == 12);
  CHECK(view.month->players_max == 40);
  CHECK_FALSE(view.has_check);
  auto page = render_server_page(view, "http://127.0.0.1:8080");
  INFO(page);
  CHECK(has(page, "<img class=\"chart\" src=\"/chart.svg?host=play.example.com&amp;port=19132&amp;range=7d&amp;metric=players\""));
  CHECK(has(page, "This week's peak: <strong>12 players</strong>"));
  CHECK(has(page, "This month's peak: <strong>40 players</strong>"));
  CHECK(has(page, "class=\"not-checked\""));
  CHECK(has(page, "Players chart"));
}

TEST_CASE("server page: the PNG badge is a PNG of the SVG, scaled within bounds",
          "[server_page][badge]") {
  badge_view view;
  view.state = badge_state::online;
  view.players = 3;
  view.max_players = 10;
  auto png = badge_png(render_badge(view));
  REQUIRE(png);
  REQUIRE(png->size() > 24);
  CHECK(png->substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  auto be32 = [&](std::size_t at) {
    auto b = [&](std::size_t i) { return static_cast<unsigned>(static_cast<unsigned char>((*png)[at + i])); };
    return (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3);
  };
  auto width = be32(16);
  auto height = be32(20);
  CHECK(width > 100);
  CHECK(width <= static_cast<unsigned>(badge_png_max_side));
  CHECK(height >= 40);
  CHECK(height <= static_cast<unsigned>(badge_png_max_side));
  // The same badge again is the PNG already drawn; text that is no SVG is none.
  CHECK(badge_png(render_badge(view)) == png);
  CHECK_FALSE(badge_png("not an svg"));
}
