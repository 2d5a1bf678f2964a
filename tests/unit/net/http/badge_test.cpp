// GET /badge: the SVG renderer (checked with an XML parser we did not write), the reading of
// info replies and failures, and the route's headers and statuses.
#include <catch2/catch.hpp>

#include <boost/json.hpp>

#include "app/service.hpp"
#include "net/http/badge.hpp"
#include "net/http/router.hpp"
#include "core/status.hpp"
#include "support/xml_check.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using netherscope::test::parse_svg;
namespace http = boost::beast::http;

namespace {

const std::string dot = "\xC2\xB7";
const std::string dash = "\xE2\x80\x94";

badge_view online(std::int64_t players, std::int64_t max, std::string name) {
  badge_view v;
  v.state = badge_state::online;
  v.players = players;
  v.max_players = max;
  v.name = std::move(name);
  return v;
}

std::vector<std::string> strings(const boost::json::value& array) {
  std::vector<std::string> out;
  for (auto& item : array.as_array())
    out.emplace_back(item.as_string());
  return out;
}

request badge_request(std::string target) {
  request req{http::verb::get, target, 11};
  req.set(http::field::host, "netherscope.test");
  return req;
}

api_outcome info_outcome(std::string body) {
  api_outcome outcome;
  outcome.body = std::move(body);
  outcome.has_quota = true;
  outcome.quota.limit = 100;
  outcome.quota.remaining = 99;
  outcome.quota.reset = 1900000000;
  return outcome;
}

} // namespace

TEST_CASE("badge: an online badge is well-formed SVG with the label, the value and the name",
          "[badge]") {
  auto svg = render_badge(online(3, 10, "Fake BDS"));
  auto doc = parse_svg(svg);
  INFO(svg);
  REQUIRE_FALSE(doc.contains("error"));
  CHECK(doc.at("root") == "svg");
  CHECK(doc.at("xmlns") == "http://www.w3.org/2000/svg");
  CHECK(doc.at("height") == "20");
  CHECK(strings(doc.at("texts")) == std::vector<std::string>{"bedrock", "online " + dot + " 3/10"});
  CHECK(strings(doc.at("title"))
        == std::vector<std::string>{"bedrock: online " + dot + " 3/10 " + dash + " Fake BDS"});
  CHECK(doc.at("aria") == ("bedrock: online " + dot + " 3/10").c_str());
  // Nothing that could run or load anything.
  for (auto& element : strings(doc.at("elements")))
    CHECK((element == "title" || element == "clipPath" || element == "rect" || element == "g"
           || element == "text"));
  // The badge is as wide as its two halves: each text plus 6 px either side.
  auto label = badge_text_width("bedrock");
  auto value = badge_text_width("online " + dot + " 3/10");
  CHECK(doc.at("width") == std::to_string(label + value + 24).c_str());
  CHECK(strings(doc.at("lengths"))
        == std::vector<std::string>{std::to_string(label), std::to_string(value)});
}

TEST_CASE("badge: a server's name is text, never markup", "[badge]") {
  std::string hostile = R"(<script>alert("x")</script> & 'quotes' ]]> <!-- -->)";
  auto svg = render_badge(online(1, 2, hostile));
  CHECK(svg.find("<script") == std::string::npos);
  auto doc = parse_svg(svg);
  INFO(svg);
  REQUIRE_FALSE(doc.contains("error"));
  // The parser gives back exactly what the server sent, as the title's text.
  CHECK(strings(doc.at("title"))
        == std::vector<std::string>{"bedrock: online " + dot + " 1/2 " + dash + " " + hostile});
  for (auto& element : strings(doc.at("elements")))
    CHECK(element != "script");

  // Bytes XML cannot hold (controls, invalid UTF-8, U+FFFF) still give a well-formed document.
  // Split literals: a hex escape would otherwise swallow the letter after it.
  auto odd = render_badge(online(0, 0, std::string{"a\x01" "b\x1F" "\xFF" "\xEF\xBF\xBF" "z\tq"}));
  auto odd_doc = parse_svg(odd);
  INFO(odd);
  REQUIRE_FALSE(odd_doc.contains("error"));
  auto replacement = std::string{"\xEF\xBF\xBD"};
  CHECK(strings(odd_doc.at("title")).at(0)
        == "bedrock: online " + dot + " 0/0 " + dash + " a" + replacement + "b" + replacement
             + replacement + replacement + "z q");
}

TEST_CASE("badge: offline and error badges are well-formed and say so", "[badge]") {
  auto unreachable = make_failure(error_code::upstream_failure, "connection refused by the target");
  auto offline = badge_from_failure(unreachable);
  CHECK(offline.state == badge_state::offline);
  auto doc = parse_svg(render_badge(offline));
  REQUIRE_FALSE(doc.contains("error"));
  CHECK(strings(doc.at("texts")) == std::vector<std::string>{"bedrock", "offline"});
  CHECK(strings(doc.at("title"))
        == std::vector<std::string>{"bedrock: offline " + dash + " connection refused by the target"});

  auto exhausted = badge_from_failure(make_failure(error_code::quota_exhausted, {}));
  CHECK(exhausted.state == badge_state::error);
  auto error_doc = parse_svg(render_badge(exhausted));
  REQUIRE_FALSE(error_doc.contains("error"));
  CHECK(strings(error_doc.at("texts")) == std::vector<std::string>{"bedrock", "error"});
  // Without a message of its own, the failure's public message from the error table.
  CHECK(strings(error_doc.at("title"))
        == std::vector<std::string>{"bedrock: error " + dash + " quota exhausted"});

  // A non-2xx GET /v1/join is "no NetherNet here": offline, with the status in the tooltip.
  failure not_nethernet;
  not_nethernet.code = error_code::upstream_status;
  not_nethernet.http_status = 404;
  auto status_badge = badge_from_failure(not_nethernet);
  CHECK(status_badge.state == badge_state::offline);
  CHECK(status_badge.detail == "GET /v1/join answered 404");
  for (auto code : {error_code::upstream_timeout, error_code::upstream_invalid_answer})
    CHECK(badge_from_failure(make_failure(code, "x")).state == badge_state::offline);
  for (auto code : {error_code::invalid_input, error_code::forbidden_target,
                    error_code::unavailable, error_code::internal})
    CHECK(badge_from_failure(make_failure(code, "x")).state == badge_state::error);
}

TEST_CASE("badge: a status gives the counts only when both are integers", "[badge]") {
  auto status = [](const std::string& nethernet, const std::string& raknet) {
    auto online = nethernet.find(R"("ok":true)") != std::string::npos
                  || raknet.find(R"("ok":true)") != std::string::npos;
    return std::string{R"({"ok":true,"online":)"} + (online ? "true" : "false")
           + R"(,"nethernet":)" + nethernet + R"(,"raknet":)" + raknet + "}";
  };
  const std::string no_pong = R"({"ok":false,"code":"timeout","error":"no pong in 1 s"})";
  auto full = badge_from_status(status(
    R"({"ok":true,"status":200,"tls":false,"info":{"name":"X","players":3,"maxPlayers":10}})",
    no_pong));
  CHECK(full.state == badge_state::online);
  CHECK(full.name == "X");
  CHECK(badge_value(full) == "online " + dot + " 3/10");

  auto half = badge_from_status(status(R"({"ok":true,"info":{"players":3}})", no_pong));
  CHECK(badge_value(half) == "online");
  // render_info leaves out fields of the wrong type; a body without info is still online.
  CHECK(badge_value(badge_from_status(status(R"({"ok":true,"info":null})", no_pong)))
        == "online");
  CHECK(badge_value(badge_from_status(
          status(R"({"ok":true,"info":{"players":"3","maxPlayers":10}})", no_pong)))
        == "online");
  CHECK(badge_from_status("not json").state == badge_state::error);

  SECTION("a RakNet-only server is online with the pong's name and counts") {
    auto raknet_only = badge_from_status(
      status(R"({"ok":false,"code":"upstream_failure","error":"connection refused"})",
             R"({"ok":true,"motd":"\u00a7aFun","motdPlain":"Fun","players":2,"maxPlayers":20})"));
    CHECK(raknet_only.state == badge_state::online);
    CHECK(raknet_only.name == "Fun");
    CHECK(badge_value(raknet_only) == "online " + dot + " 2/20");
  }
  SECTION("NetherNet's counts come before the pong's") {
    auto both = badge_from_status(
      status(R"({"ok":true,"info":{"name":"N","players":1,"maxPlayers":5}})",
             R"({"ok":true,"motdPlain":"R","players":2,"maxPlayers":20})"));
    CHECK(both.name == "N");
    CHECK(badge_value(both) == "online " + dot + " 1/5");
  }
  SECTION("the name is shown without its formatting codes") {
    auto coloured = badge_from_status(
      status(R"({"ok":true,"info":{"name":"\u00a7l\u00a7aGreen \u00a7mIsle"}})", no_pong));
    CHECK(coloured.name == "Green Isle");
  }
  SECTION("neither transport: offline, with why each did not answer") {
    auto offline = badge_from_status(status(
      R"({"ok":false,"code":"upstream_status","error":{"httpStatus":404,"body":""}})", no_pong));
    CHECK(offline.state == badge_state::offline);
    CHECK(badge_value(offline) == "offline");
    CHECK(offline.detail == "GET /v1/join answered 404; RakNet: no pong in 1 s");
  }
}

TEST_CASE("badge: a recent public watch check decides whether players can join",
          "[badge][join]") {
  core::info_reply info;
  info.status = 200;
  info.body = R"({"ok":true,"status":200,"tls":false,"info":{"name":"X","players":3,)"
              R"("maxPlayers":10}})";
  core::raknet_reply raknet;
  core::history_row check;
  check.at = 1800000000;
  check.verdict = verdict_code::joinable;
  check.join = join_summary{join_stage_code::game, join_outcome_code::joined, 15000};
  auto badge_of = [&](const std::optional<history_row>& latest) {
    return badge_from_status(render_badge_status(info, raknet, latest));
  };

  auto joined = badge_of(check);
  CHECK(joined.state == badge_state::joinable);
  CHECK(badge_value(joined) == "joinable " + dot + " 3/10");
  auto joined_doc = parse_svg(render_badge(joined));
  CHECK(strings(joined_doc.at("title")).at(0).find("X") != std::string::npos);

  // Turned away at DTLS: amber, and the tooltip says why.
  check.verdict = verdict_code::join_failed;
  check.join = join_summary{join_stage_code::dtls, join_outcome_code::dtls_failed, std::nullopt};
  auto failed = badge_of(check);
  CHECK(failed.state == badge_state::not_joinable);
  CHECK(badge_value(failed) == "can't join " + dot + " 3/10");
  CHECK(failed.detail == "join_failed: dtls_failed at dtls");
  auto svg = render_badge(failed);
  CHECK(svg.find("#b7791f") != std::string::npos);
  CHECK(strings(parse_svg(svg).at("title")).at(0).find("dtls_failed at dtls") != std::string::npos);

  // Another version: named by the verdict and the outcome.
  check.verdict = verdict_code::version_mismatch;
  check.join = join_summary{join_stage_code::game, join_outcome_code::outdated_client, 9000};
  CHECK(badge_of(check).detail == "version_mismatch: outdated_client at game");
  // A verdict without a join (candidates the policy refused) still says players cannot.
  check.verdict = verdict_code::private_candidates;
  check.join.reset();
  CHECK(badge_of(check).state == badge_state::not_joinable);
  CHECK(badge_of(check).detail == "private_candidates");

  // The check found it offline, but the status answers now: online, no verdict claimed.
  check.verdict = verdict_code::offline;
  CHECK(badge_of(check).state == badge_state::online);
  // No check: the status alone.
  CHECK(badge_value(badge_of(std::nullopt)) == "online " + dot + " 3/10");
  // Offline now wins over a joinable check.
  check.verdict = verdict_code::joinable;
  core::info_reply down;
  down.error = core::make_failure(core::error_code::upstream_failure, "connection refused");
  CHECK(badge_from_status(render_badge_status(down, raknet, check)).state
        == badge_state::offline);
}

TEST_CASE("badge: only a recent check of the same server counts", "[badge][join]") {
  std::vector<core::watched_check> checks(2);
  checks[0].host = "play.example.com";
  checks[0].port = 19132;
  checks[0].last.at = 1800000000;
  checks[1].host = "play.example.com";
  checks[1].port = 19133;
  checks[1].last.at = 1800000000;
  core::target where{"play.example.com", 19133, core::tls_mode::auto_detect};
  auto found = recent_check(checks, where, 1800000000 + 60);
  REQUIRE(found);
  CHECK(found->at == 1800000000);
  CHECK(recent_check(checks, where, 1800000000 + badge_check_max_age_seconds));
  CHECK_FALSE(recent_check(checks, where, 1800000000 + badge_check_max_age_seconds + 1));
  // A check from the future (a replica's clock ahead) is not taken either.
  CHECK_FALSE(recent_check(checks, where, 1800000000 - 1));
  where.port = 19134;
  CHECK_FALSE(recent_check(checks, where, 1800000000 + 60));
}

TEST_CASE("badge: text widths grow with the text and its letters", "[badge]") {
  // Verdana 11 px: "bedrock" is about 44 px.
  CHECK(badge_text_width("bedrock") >= 40);
  CHECK(badge_text_width("bedrock") <= 48);
  CHECK(badge_text_width("") == 0);
  CHECK(badge_text_width("WWW") > badge_text_width("iii"));
  CHECK(badge_text_width("online " + dot + " 3/10") > badge_text_width("online"));
  // A wide script counts about an em per character.
  CHECK(badge_text_width("\xE4\xB8\xAD\xE6\x96\x87") >= 20);
  // Invalid UTF-8 is measured, not trusted.
  CHECK(badge_text_width("\xFF\xFF") > 0);
}

TEST_CASE("badge route: an info call for the address, never for a key", "[badge][router]") {
  route_context ctx;
  ctx.client.subject = "203.0.113.9";
  auto req = badge_request("/badge?host=Play.Example.com&port=19133");
  req.set("X-API-Key", "nsk_0123456789abcdef0123456789abcdef");
  auto d = route(req, ctx);
  REQUIRE(d.call);
  CHECK(d.route == "/badge");
  CHECK(d.call->kind == call_kind::badge);
  CHECK(endpoint_of(d.call->kind) == endpoint::info);
  CHECK(d.call->invalid.ok());
  CHECK(d.call->where.host == "play.example.com");
  CHECK(d.call->where.port == 19133);
  CHECK(d.call->client == "203.0.113.9");
  CHECK(d.call->key_hash.empty());
  CHECK(d.target_label == "play.example.com:19133");

  // Bad input is still a counted call, answered with an error badge.
  auto bad = route(badge_request("/badge?port=1"), ctx);
  REQUIRE(bad.call);
  CHECK(bad.call->invalid.code == error_code::invalid_input);

  auto post = badge_request("/badge?host=a.com");
  post.method(http::verb::post);
  auto refused = route(post, ctx);
  REQUIRE(refused.immediate);
  CHECK(refused.immediate->result() == http::status::method_not_allowed);

  ctx.draining = true;
  auto closing = route(badge_request("/badge?host=a.com"), ctx);
  REQUIRE(closing.immediate);
  CHECK(closing.immediate->result() == http::status::service_unavailable);
  CHECK((*closing.immediate)[http::field::content_type] == "image/svg+xml");
  CHECK_FALSE(parse_svg(closing.immediate->body()).contains("error"));
}

TEST_CASE("badge route: headers for an SVG, cached a minute only when it is a status",
          "[badge][router]") {
  auto ok = render_api(info_outcome(R"({"ok":true,"online":true,"nethernet":{"ok":true,)"
                                    R"("info":{"players":3,"maxPlayers":10}},"raknet":null})"),
                       call_kind::badge, 11, true);
  CHECK(ok.result() == http::status::ok);
  CHECK(ok[http::field::content_type] == "image/svg+xml");
  CHECK(ok[http::field::cache_control] == "max-age=60");
  CHECK(ok["X-Content-Type-Options"] == "nosniff");
  CHECK(ok["Content-Security-Policy"] == "default-src 'none'; style-src 'unsafe-inline'");
  CHECK(ok["X-RateLimit-Remaining"] == "99");
  auto doc = parse_svg(ok.body());
  REQUIRE_FALSE(doc.contains("error"));
  CHECK(strings(doc.at("texts")).at(1) == "online " + dot + " 3/10");

  auto down = info_outcome({});
  down.error = make_failure(error_code::upstream_timeout, "the target did not answer in time");
  auto offline = render_api(down, call_kind::badge, 11, true);
  CHECK(offline.result() == http::status::ok);
  CHECK(offline[http::field::cache_control] == "max-age=60");
  CHECK(strings(parse_svg(offline.body()).at("texts")).at(1) == "offline");

  auto over = info_outcome({});
  over.error = make_failure(error_code::quota_exhausted, "the info quota is used up");
  over.error.retry_after = 120;
  over.quota.remaining = 0;
  auto limited = render_api(over, call_kind::badge, 11, true);
  CHECK(limited.result() == http::status::too_many_requests);
  CHECK(limited[http::field::content_type] == "image/svg+xml");
  CHECK(limited[http::field::cache_control] == "no-store");
  CHECK(limited[http::field::retry_after] == "120");
  CHECK(limited["X-RateLimit-Remaining"] == "0");
  auto limited_doc = parse_svg(limited.body());
  REQUIRE_FALSE(limited_doc.contains("error"));
  CHECK(strings(limited_doc.at("texts")).at(1) == "error");

  auto invalid = info_outcome({});
  invalid.error = make_failure(error_code::invalid_input, "host is required");
  CHECK(render_api(invalid, call_kind::badge, 11, true).result() == http::status::bad_request);
}

TEST_CASE("badge: the OpenAPI document describes GET /badge as an SVG", "[badge][openapi]") {
  auto doc = boost::json::parse(openapi_document);
  auto& get = doc.at("paths").at("/badge").at("get").as_object();
  auto& responses = get.at("responses").as_object();
  for (auto status : {"200", "400", "429"}) {
    INFO(status);
    CHECK(responses.at(status).at("content").as_object().contains("image/svg+xml"));
  }
  CHECK(responses.at("200").at("headers").as_object().contains("Cache-Control"));
  std::vector<std::string> names;
  for (auto& p : get.at("parameters").as_array())
    names.emplace_back(p.at("name").as_string());
  CHECK(names == std::vector<std::string>{"host", "port", "tls"});
}
