// GET /api/explain: the data file, the lookup, the route, and the links from /api/offer errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include <boost/json.hpp>

#include "app/service.hpp"
#include "core/api_json.hpp"
#include "core/explain.hpp"
#include "net/http/router.hpp"
#include "net/nethernet/sdp_answer.hpp"
#include "net/report/raknet_status.hpp"
#include "core/verdict.hpp"
#include "net/xbox/xerr.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
namespace http = boost::beast::http;

namespace {

boost::json::object explained(std::string_view code) {
  auto body = render_explanation(code);
  REQUIRE(body);
  auto parsed = boost::json::parse(*body);
  REQUIRE(parsed.is_object());
  return parsed.as_object();
}

request make_request(http::verb method, std::string target) {
  request req{method, target, 11};
  req.set(http::field::host, "netherscope.test");
  req.prepare_payload();
  return req;
}

boost::json::value body_of(const response& res) {
  return boost::json::parse(res.body());
}

} // namespace

TEST_CASE("explain: the embedded data file is sound", "[explain]") {
  auto problems = explanation_problems();
  INFO(boost::json::serialize(boost::json::value_from(problems)));
  CHECK(problems.empty());
}

TEST_CASE("explain: every NetherNet error number the answer reader names is explained",
          "[explain]") {
  // The offer reply names these numbers (reason); each must link somewhere that answers.
  for (std::int64_t code = 0; !nethernet_error_name(code).empty(); ++code) {
    INFO("code " << code);
    auto path = explanation_path(code);
    CHECK(path == "/api/explain/" + std::to_string(code));
    auto entry = explained(std::to_string(code));
    CHECK(entry.at("kind") == "signalling_error");
    // The two tables agree on the name, or the explanation lists the reader's as an alias.
    auto name = std::string{nethernet_error_name(code)};
    auto same = entry.at("name") == name.c_str();
    if (!same && entry.contains("aliases"))
      for (auto& alias : entry.at("aliases").as_array())
        same = same || alias == name.c_str();
    CHECK(same);
  }
  CHECK(explanation_path(-1).empty());
  CHECK(explanation_path(38).empty());
  CHECK(explanation_path(1000000).empty());
}

TEST_CASE("explain: an entry carries its meaning, causes, checks and resolved sources",
          "[explain]") {
  auto e = explained("37");
  CHECK(e.at("ok") == true);
  CHECK(e.at("code") == "37");
  CHECK(e.at("name") == "IdentityVerificationFailed");
  CHECK(e.at("aliases").as_array().size() == 1);
  CHECK(e.at("aliases").at(0) == "IdentityNotAllowed");
  CHECK(e.at("evidence") == "source_code");
  CHECK_FALSE(e.at("meaning").as_string().empty());
  CHECK_FALSE(e.at("causes").as_array().empty());
  CHECK_FALSE(e.at("checks").as_array().empty());
  CHECK_FALSE(e.contains("variant"));
  // Sources come back as {url, what}, resolved from the file's keys.
  auto& sources = e.at("sources").as_array();
  REQUIRE_FALSE(sources.empty());
  CHECK(sources.at(0).at("url")
        == "https://github.com/df-mc/go-nethernet/blob/a5399f4686486e57b5fba74832626dfc11ad285f/"
           "signal.go");
}

TEST_CASE("explain: every entry cites public sources and says how well it is founded",
          "[explain]") {
  auto index = boost::json::parse(render_explanation_index()).as_object();
  CHECK(index.at("ok") == true);
  auto& codes = index.at("codes").as_array();
  CHECK(codes.size() >= 38 + 1);
  std::size_t codewords = 0;
  for (auto& item : codes) {
    auto code = std::string{item.at("code").as_string()};
    INFO(code);
    CHECK(item.at("href") == ("/api/explain/" + code).c_str());
    auto e = explained(code);
    CHECK(e.at("code") == code.c_str());
    CHECK(e.at("kind") == item.at("kind"));
    for (auto& source : e.at("sources").as_array())
      CHECK(std::string_view{source.at("url").as_string()}.substr(0, 8) == "https://");
    auto evidence = e.at("evidence").as_string();
    CHECK((evidence == "source_code" || evidence == "reports" || evidence == "name_only"));
    if (e.at("kind") == "client_codeword") {
      ++codewords;
      // No codeword is documented by Mojang: each must say where its record is thin or
      // what its number means, never stand as established fact.
      CHECK(evidence == "reports");
      CHECK(e.contains("note"));
    }
  }
  CHECK(codewords >= 1);
}

TEST_CASE("explain: numbers, names and codewords match in any case, codewords take a number",
          "[explain]") {
  CHECK(explained("037").at("code") == "37");
  CHECK(explained("0").at("code") == "0");
  CHECK(explained("000").at("code") == "0");
  CHECK(explained("identitynotallowed").at("code") == "37");
  CHECK(explained("IDENTITYVERIFICATIONFAILED").at("code") == "37");
  CHECK(explained("door").at("code") == "Door");
  CHECK(explained("DOOR").at("name") == "Door");

  auto door = explained("door-83");
  CHECK(door.at("code") == "Door");
  CHECK(door.at("variant") == "83");
  CHECK(explained("Door-000123").at("variant") == "000123");

  // A number after a signalling error's number or name is no code; nor is anything else.
  for (auto unknown : {"", "38", "99999999999999999999", "nosuchword", "door-", "door-1234567",
                       "-83", "37-1", "identitynotallowed-2", "door-8a", "door 83", "d\xC3\xB6or",
                       "door-83-1"}) {
    INFO("'" << unknown << "'");
    CHECK_FALSE(render_explanation(unknown));
  }
  CHECK_FALSE(render_explanation(std::string(65, 'a')));
  CHECK_FALSE(render_explanation(std::string(1000, '7')));
}

TEST_CASE("explain: an offer error with a NetherNet number links to its explanation",
          "[explain]") {
  failure refused;
  refused.code = error_code::upstream_status;
  refused.http_status = 400;
  refused.body = "Negotiation failed with error code: 37";
  refused.nethernet_error = 37;
  refused.reason = "IdentityVerificationFailed";
  auto error = boost::json::parse(render_error(refused)).at("error");
  CHECK(error.at("explain") == "/api/explain/37");

  // A number nothing explains gets no link, rather than one that answers 404.
  refused.nethernet_error = 4000;
  refused.reason.clear();
  CHECK_FALSE(boost::json::parse(render_error(refused)).at("error").as_object().contains(
    "explain"));
  refused.nethernet_error = -1;
  CHECK_FALSE(boost::json::parse(render_error(refused)).at("error").as_object().contains(
    "explain"));
}

TEST_CASE("explain route: answered at once, outside the quotas, with CORS", "[explain][router]") {
  route_context ctx;
  auto d = route(make_request(http::verb::get, "/api/explain/37"), ctx);
  REQUIRE(d.immediate);
  CHECK_FALSE(d.call);
  CHECK(d.route == "/api/explain");
  auto& res = *d.immediate;
  CHECK(res.result() == http::status::ok);
  CHECK(res[http::field::content_type] == "application/json");
  CHECK(res[http::field::access_control_allow_origin] == "*");
  CHECK(res[http::field::cache_control] == "public, max-age=3600");
  CHECK(res.find("X-RateLimit-Limit") == res.end());
  CHECK(body_of(res).at("name") == "IdentityVerificationFailed");

  // Percent-encoding is decoded before the lookup.
  auto encoded = route(make_request(http::verb::get, "/api/explain/Door%2D83"), ctx);
  REQUIRE(encoded.immediate);
  CHECK(body_of(*encoded.immediate).at("variant") == "83");

  // The bare route lists the codes.
  for (auto target : {"/api/explain", "/api/explain/"}) {
    auto index = route(make_request(http::verb::get, target), ctx);
    REQUIRE(index.immediate);
    CHECK(index.immediate->result() == http::status::ok);
    CHECK(body_of(*index.immediate).at("codes").as_array().size() >= 39);
  }
}

TEST_CASE("explain route: an unknown code is 404 unknown_code, other methods are refused",
          "[explain][router]") {
  route_context ctx;
  auto missing = route(make_request(http::verb::get, "/api/explain/%3Cnope%3E"), ctx);
  REQUIRE(missing.immediate);
  CHECK(missing.immediate->result() == http::status::not_found);
  CHECK((*missing.immediate)[http::field::access_control_allow_origin] == "*");
  auto body = body_of(*missing.immediate);
  CHECK(body.at("ok") == false);
  CHECK(body.at("code") == "unknown_code");

  auto post = route(make_request(http::verb::post, "/api/explain/37"), ctx);
  REQUIRE(post.immediate);
  CHECK(post.immediate->result() == http::status::method_not_allowed);
  CHECK((*post.immediate)[http::field::allow] == "GET");
  CHECK(body_of(*post.immediate).at("code") == "method_not_allowed");

  auto preflight = route(make_request(http::verb::options, "/api/explain/37"), ctx);
  REQUIRE(preflight.immediate);
  CHECK(preflight.immediate->result() == http::status::no_content);
  CHECK((*preflight.immediate)[http::field::access_control_allow_methods] == "GET");

  // Only /api/explain and what is below it: a longer word is still an unknown route.
  auto other = route(make_request(http::verb::get, "/api/explainer"), ctx);
  REQUIRE(other.call);
  CHECK(other.call->invalid.code == error_code::not_found);
}

TEST_CASE("explain: the OpenAPI document describes the routes and the link", "[explain][openapi]") {
  auto doc = boost::json::parse(openapi_document);
  auto& paths = doc.at("paths").as_object();
  REQUIRE(paths.contains("/api/explain"));
  REQUIRE(paths.contains("/api/explain/{code}"));
  auto& get = paths.at("/api/explain/{code}").at("get").as_object();
  CHECK(get.at("responses").as_object().contains("404"));
  CHECK(get.at("parameters").at(0).at("in") == "path");
  CHECK(doc.at("components").at("schemas").at("UpstreamStatus").at("properties").as_object()
          .contains("explain"));
  // Each field the route returns is in the schema.
  auto& properties = doc.at("components").at("schemas").at("Explanation").at("properties")
                       .as_object();
  for (auto& [key, value] : explained("door-83"))
    CHECK(properties.contains(key));
  for (auto& [key, value] : explained("37"))
    CHECK(properties.contains(key));
}

TEST_CASE("explain: the new verdicts and the RakNet status codes are explained",
          "[explain][raknet_status][verdict]") {
  // The verdicts an operator may not know from their sentence alone.
  for (auto kind : {verdict_kind::auth_required, verdict_kind::raknet_only}) {
    auto code = std::string{to_string(kind)};
    INFO(code);
    auto e = explained(code);
    CHECK(e.at("kind") == "check_verdict");
    CHECK(e.at("code") == code.c_str());
    CHECK(e.contains("note"));
  }
  // Each code a RakNet status reports about the server itself; the others (a refused target,
  // a name that does not resolve) are the API's own errors.
  for (auto outcome : {udp_outcome::no_listener, udp_outcome::timeout, udp_outcome::malformed}) {
    udp_exchange_result result;
    result.outcome = outcome;
    auto code = make_raknet_reply(result, 19132, raknet_pings{}).code;
    INFO(code);
    auto e = explained(code);
    CHECK(e.at("kind") == "raknet_status");
    CHECK_FALSE(e.at("sources").as_array().empty());
  }
  CHECK(explained("AUTH_REQUIRED").at("code") == "auth_required");
  CHECK(explained("xbox sign-in required").at("code") == "auth_required");
  CHECK_FALSE(render_explanation("auth_required-2"));
}

TEST_CASE("explain: the Xbox sign-in errors are those of net/xbox's table, no more and no fewer",
          "[explain][xbox]") {
  // admin xbox-status and the service log read net/xbox/xerr.cpp's table, which is made from
  // the data file's summary and fix of each Xbox error; /api/explain serves the rest of it.
  std::map<std::string, std::string> explained_codes;
  auto index = boost::json::parse(render_explanation_index()).as_object();
  for (auto& item : index.at("codes").as_array())
    if (item.at("kind") == "xbox_error")
      explained_codes.emplace(item.at("code").as_string().c_str(),
                              item.at("name").as_string().c_str());
  std::map<std::string, std::string> table_codes;
  for (const auto& info : xerr_table()) {
    table_codes.emplace(std::to_string(info.code), std::string{info.name});
    CHECK_FALSE(info.summary.empty());
    CHECK_FALSE(info.fix.empty());
  }
  CHECK(std::is_sorted(xerr_table().begin(), xerr_table().end(),
                       [](const auto& a, const auto& b) { return a.code < b.code; }));
  CHECK(explained_codes == table_codes);

  for (const auto& info : xerr_table()) {
    auto decimal = std::to_string(info.code);
    INFO("XErr " << decimal << " " << info.name);
    auto e = explained(decimal);
    CHECK(e.at("kind") == "xbox_error");
    CHECK(e.at("code") == decimal.c_str());
    CHECK(e.at("name") == std::string{info.name}.c_str());
    CHECK_FALSE(e.at("causes").as_array().empty());
    CHECK_FALSE(e.at("checks").as_array().empty());
    CHECK_FALSE(e.at("sources").as_array().empty());
    // The operator's short words stay out of the reply, which has the full explanation.
    CHECK_FALSE(e.contains("summary"));
    CHECK_FALSE(e.contains("fix"));
    // Each spelling an operator may paste finds it: the hex Microsoft writes and the name.
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%08X", static_cast<unsigned>(info.code));
    CHECK(explained(hex).at("code") == decimal.c_str());
    CHECK(explained(info.name).at("code") == decimal.c_str());
  }
}

TEST_CASE("explain: an Xbox error answers to its decimal and its hex spelling only",
          "[explain][xbox]") {
  auto e = explained("2148916233");
  CHECK(e.at("kind") == "xbox_error");
  CHECK(e.at("name") == "XO_E_ACCOUNT_CREATION_REQUIRED");
  CHECK(e.at("evidence") == "source_code");
  CHECK(std::string_view{e.at("sources").at(0).at("url").as_string()}.find("xbox-live-api")
        != std::string_view::npos);
  for (auto spelling : {"0x8015DC09", "0x8015dc09", "0X8015DC09", "0x08015DC09", "02148916233",
                        "xo_e_account_creation_required"}) {
    INFO(spelling);
    CHECK(explained(spelling).at("code") == "2148916233");
  }

  // The index lists the Xbox errors with their links.
  auto index = boost::json::parse(render_explanation_index()).as_object();
  std::size_t xbox_errors = 0;
  for (auto& item : index.at("codes").as_array())
    if (item.at("kind") == "xbox_error") {
      ++xbox_errors;
      if (item.at("code") == "2148916233")
        CHECK(item.at("href") == "/api/explain/2148916233");
    }
  CHECK(xbox_errors == xerr_table().size());

  // A signalling number keeps its meaning, and hex never reaches a signalling error.
  CHECK(explained("37").at("kind") == "signalling_error");
  CHECK(explained("0").at("kind") == "signalling_error");
  for (auto unknown : {"0x25", "0x0", "0x8015DCFF", "0x8015DC07", "0x", "0x-1", "0x+25",
                       "0x8015DC09 ", "0x0x8015DC09", "0x18015DC09", "0xFFFFFFFFF", "4294967296",
                       "2148916233-1"}) {
    INFO("'" << unknown << "'");
    CHECK_FALSE(render_explanation(unknown));
  }

  // Through the route, as an operator pastes it from a log.
  route_context ctx;
  auto d = route(make_request(http::verb::get, "/api/explain/0x8015DC09"), ctx);
  REQUIRE(d.immediate);
  CHECK(d.immediate->result() == http::status::ok);
  CHECK(body_of(*d.immediate).at("code") == "2148916233");
}
