#include <catch2/catch.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "net/report/replies.hpp"
#include "core/api_json.hpp"
#include "net/report/bodies.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

TEST_CASE("info: a JSON object body becomes info", "[api_json]") {
  auto body = boost::json::parse(render_info(200, true, R"({"name":"x","players":2})"));
  CHECK(body.at("ok") == true);
  CHECK(body.at("status") == 200);
  CHECK(body.at("tls") == true);
  CHECK(body.at("info").at("players") == 2);
  CHECK(body.at("infoError").is_null());
  CHECK(body.at("infoErrorCode").is_null());
}

TEST_CASE("info: the name's formatting codes are read into motd", "[api_json]") {
  auto body = boost::json::parse(
    render_info(200, false, "{\"name\":\"\u00a7l\u00a7qEmerald \u00a7rIsle\"}"));
  CHECK(body.at("motd").at("raw") == "\xC2\xA7l\xC2\xA7qEmerald \xC2\xA7rIsle");
  CHECK(body.at("motd").at("clean") == "Emerald Isle");
  CHECK(body.at("motd").at("html") == "<span class=\"mc-q mc-l\">Emerald </span>Isle");
  // No name, or a name of another type (left out as field_types), gives no motd.
  CHECK(boost::json::parse(render_info(200, false, R"({"players":2})")).at("motd").is_null());
  CHECK(boost::json::parse(render_info(200, false, R"({"name":7})")).at("motd").is_null());
  CHECK(boost::json::parse(render_info(200, false, "")).at("motd").is_null());
}

TEST_CASE("info: BDS's status body, with and without a byte order mark", "[api_json]") {
  // PROTOCOL.md §1.2, as BDS 1.26.51.1 sent it.
  const std::string bds = R"({"name":"Dedicated Server","protocol":2193,"version":"1.26.51",)"
                          R"("level":"Bedrock level","players":0,"maxPlayers":10,"gameType":0})";
  for (const auto& text : {bds, "\xEF\xBB\xBF" + bds, "\xEF\xBB\xBF\r\n " + bds + "\n"}) {
    auto body = boost::json::parse(render_info(200, false, text));
    CHECK(body.at("info") == boost::json::parse(bds));
    CHECK(body.at("infoErrorCode").is_null());
  }
}

TEST_CASE("info: an empty body is null without an error", "[api_json]") {
  for (auto text : {"", "   ", "\r\n", "\xEF\xBB\xBF"}) {
    auto body = boost::json::parse(render_info(200, false, text));
    CHECK(body.at("ok") == true);
    CHECK(body.at("info").is_null());
    CHECK(body.at("infoError").is_null());
    CHECK(body.at("infoErrorCode").is_null());
  }
}

TEST_CASE("info: bodies that are not JSON objects say so", "[api_json]") {
  struct bad {
    const char* text;
    const char* code;
  };
  for (auto c : {bad{"not json", "not_json"}, bad{"{\"a\":", "not_json"},
                 bad{"{} trailing", "not_json"}, bad{"[1,2]", "not_object"},
                 bad{"42", "not_object"}, bad{"\"text\"", "not_object"},
                 bad{"null", "not_object"}, bad{"true", "not_object"}}) {
    INFO(c.text);
    auto body = boost::json::parse(render_info(200, false, c.text));
    CHECK(body.at("ok") == true);
    CHECK(body.at("info").is_null());
    CHECK(body.at("infoErrorCode") == c.code);
    std::string message{body.at("infoError").as_string()};
    // A sentence, never one ending in an empty quote.
    CHECK(message.back() == '.');
    CHECK(message.find("\"\"") == std::string::npos);
  }
}

TEST_CASE("info: documented fields of the wrong type are left out, the rest kept",
          "[api_json]") {
  auto body = boost::json::parse(render_info(
    200, false,
    R"({"name":7,"protocol":"2193","version":"1.26.51","level":null,"players":1.5,)"
    R"("maxPlayers":10.0,"gameType":0,"stack":"werift"})"));
  CHECK(body.at("infoErrorCode") == "field_types");
  auto& info = body.at("info").as_object();
  // Valid documented fields and unknown fields stay as sent; 10.0 is a whole number.
  CHECK(info == boost::json::parse(R"({"version":"1.26.51","maxPlayers":10.0,"gameType":0,)"
                                   R"("stack":"werift"})"));
  // The message names each field left out.
  std::string message{body.at("infoError").as_string()};
  for (auto name : {"name", "protocol", "level", "players"})
    CHECK(message.find(name) != std::string::npos);
}

TEST_CASE("quoted bodies stay valid UTF-8 and within 2 KiB", "[api_json]") {
  CHECK(quote_body("plain").text == "plain");
  CHECK_FALSE(quote_body("plain").truncated);
  CHECK(quote_body("a\xff" "b").text == "a\xEF\xBF\xBD" "b");
  // A multi-byte sequence is never split at the limit.
  std::string text(2047, 'x');
  text += "\xC3\xA9";
  CHECK(quote_body(text).text.size() == 2047);
  CHECK(quote_body(text).truncated);
  CHECK(quote_body(std::string(10000, 'y')).text.size() == 2048);
  CHECK(quote_body(std::string(2048, 'y')).text.size() == 2048);
  CHECK_FALSE(quote_body(std::string(2048, 'y')).truncated);
}

TEST_CASE("info replies: 2xx is success, other statuses are upstream_status", "[api_json]") {
  net::upstream::fetch_result fetched;
  fetched.status = 204;
  fetched.tls = false;
  auto reply = make_info_reply(std::move(fetched));
  CHECK(reply.error.ok());
  CHECK(boost::json::parse(reply.body).at("status") == 204);

  net::upstream::fetch_result redirect;
  redirect.status = 302;
  redirect.body = "moved";
  reply = make_info_reply(std::move(redirect));
  CHECK(reply.error.code == error_code::upstream_status);
  CHECK(reply.error.http_status == 302);
  CHECK(reply.error.body == "moved");

  net::upstream::fetch_result failed;
  failed.error = make_failure(error_code::upstream_timeout, "slow");
  reply = make_info_reply(std::move(failed));
  CHECK(reply.error.code == error_code::upstream_timeout);
}

TEST_CASE("valid_utf8 passes only what RFC 3629 allows", "[api_json]") {
  const std::string replacement = "\xEF\xBF\xBD";
  // Well-formed sequences of each length pass unchanged.
  for (std::string ok : {"a", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF",
                         "\xED\x9F\xBF"})
    CHECK(valid_utf8(ok) == ok);
  // Overlong forms, surrogates, code points past U+10FFFF and stray bytes become U+FFFD.
  for (std::string bad : {"\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xED\xA0\x80", "\xF0\x80\x80\x80",
                          "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xFF", "\x80"}) {
    INFO("bytes " << bad.size());
    auto out = valid_utf8(bad);
    CHECK(out.find(replacement) == 0);
    // Whatever came in, the result is text a JSON parser reads back.
    boost::system::error_code ec;
    boost::json::parse(boost::json::serialize(boost::json::value(out)), ec);
    CHECK_FALSE(ec);
  }
}

TEST_CASE("cache fields splice into an empty object too", "[api_json]") {
  cache_fields fields;
  fields.retrieved_at = 0;
  auto spliced = with_cache_fields("{}", fields);
  boost::system::error_code ec;
  auto parsed = boost::json::parse(spliced, ec);
  REQUIRE_FALSE(ec);
  CHECK(parsed.at("retrievedAt") == "1970-01-01T00:00:00Z");
}

TEST_CASE("info: numbers JSON cannot write become null, with a code", "[api_json]") {
  auto rendered = render_info(200, false, R"({"name":"x","extra":[1e400,-1e400,2]})");
  boost::system::error_code ec;
  auto body = boost::json::parse(rendered, ec);
  REQUIRE_FALSE(ec);
  CHECK(body.at("info").at("extra").at(0).is_null());
  CHECK(body.at("info").at("extra").at(1).is_null());
  CHECK(body.at("info").at("extra").at(2) == 2);
  CHECK(body.at("infoErrorCode") == "numbers_out_of_range");
}
