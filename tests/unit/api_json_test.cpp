#include <catch2/catch.hpp>

#include <boost/json/parse.hpp>

#include "net/report/replies.hpp"
#include "net/api/api_json.hpp"
#include "net/report/bodies.hpp"

using namespace netherscope;
using namespace netherscope::net;

TEST_CASE("info: a JSON object body becomes info", "[api_json]") {
  auto body = boost::json::parse(render_info(200, true, R"({"name":"x","players":2})"));
  CHECK(body.at("ok") == true);
  CHECK(body.at("status") == 200);
  CHECK(body.at("tls") == true);
  CHECK(body.at("info").at("players") == 2);
}

TEST_CASE("info: empty, non-JSON and non-object bodies give null", "[api_json]") {
  for (auto text : {"", "   ", "not json", "[1,2]", "42", "\"text\"", "{\"a\":", "{} trailing"}) {
    auto body = boost::json::parse(render_info(200, false, text));
    CHECK(body.at("info").is_null());
    CHECK(body.at("ok") == true);
  }
}

TEST_CASE("quoted bodies stay valid UTF-8 and within 2 KiB", "[api_json]") {
  CHECK(quote_body("plain") == "plain");
  CHECK(quote_body("a\xff" "b") == "a\xEF\xBF\xBD" "b");
  // A multi-byte sequence is never split at the limit.
  std::string text(2047, 'x');
  text += "\xC3\xA9";
  CHECK(quote_body(text).size() == 2047);
  CHECK(quote_body(std::string(10000, 'y')).size() == 2048);
}

TEST_CASE("info replies: 2xx is success, other statuses are upstream_status", "[api_json]") {
  net::fetch_result fetched;
  fetched.status = 204;
  fetched.tls = false;
  auto reply = make_info_reply(std::move(fetched));
  CHECK(reply.error.ok());
  CHECK(boost::json::parse(reply.body).at("status") == 204);

  net::fetch_result redirect;
  redirect.status = 302;
  redirect.body = "moved";
  reply = make_info_reply(std::move(redirect));
  CHECK(reply.error.code == error_code::upstream_status);
  CHECK(reply.error.http_status == 302);
  CHECK(reply.error.body == "moved");

  net::fetch_result failed;
  failed.error = make_failure(error_code::upstream_timeout, "slow");
  reply = make_info_reply(std::move(failed));
  CHECK(reply.error.code == error_code::upstream_timeout);
}
