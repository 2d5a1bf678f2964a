// End to end: targets that answer in ways a careless client gets wrong (issue 13, "Upstream
// hostility"). Interim 1xx responses before the real one, bodies made to grow when escaped,
// and bytes that are not UTF-8: the netherscope binary and tools/fake_target as real
// processes on loopback.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "support/http.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace json = boost::json;

namespace {

/// The answer cap (net/report/bodies.hpp answer_json_limit) and the quoted body cap
/// (core/api_json.hpp quoted_body_limit) as the API documents them.
constexpr std::size_t answer_cap = 64 * 1024;
constexpr std::size_t quoted_body_cap = 2048;

/// The most an offer's answer may be (the service's body limit for it).
const std::string answer_limit = std::to_string(1024 * 1024);

std::string info_query(const fake_target_process& fake) {
  return "host=127.0.0.1&port=" + std::to_string(fake.port()) + "&tls=false";
}

http_reply post_offer(const service_process& svc, const fake_target_process& fake) {
  return http_request(svc.port(), "POST", "/api/offer", {{"Content-Type", "application/json"}},
                      "{\"host\":\"127.0.0.1\",\"port\":" + std::to_string(fake.port())
                        + ",\"tls\":false}");
}

/// The reply's body as a JSON object. Boost.JSON's parser refuses invalid UTF-8 of every
/// form (tests/unit/net/report/hostile_replies_test.cpp holds it to that), so a body that parses is
/// valid JSON in valid UTF-8; the test fails when it does not.
json::object checked_json(const http_reply& reply) {
  INFO("transport error: " << reply.error << "; " << reply.body.size() << " bytes");
  REQUIRE(reply.error.empty());
  boost::system::error_code ec;
  auto value = json::parse(reply.body, ec);
  INFO("parse error: " << ec.message());
  REQUIRE_FALSE(ec);
  REQUIRE(value.is_object());
  return value.as_object();
}

/// "100,100,..." with n statuses.
std::string interims(int n, const std::string& status = "100") {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += (i ? "," : "") + status;
  return out;
}

} // namespace

// -- interim responses ------------------------------------------------------------------------

TEST_CASE("hostile e2e: interim responses before the status are skipped", "[e2e][hostile]") {
  service_process svc;
  SECTION("100, 102 and 103 before a 200") {
    fake_target_process fake{{"--interim", "100,102,103"}};
    auto reply = get_info(svc, info_query(fake));
    CHECK(reply.status == 200);
    auto body = checked_json(reply);
    // Before the fix: upstream_status with httpStatus 100.
    CHECK(body.at("status") == 200);
    CHECK(body.at("info").at("name") == "Fake BDS");
  }
  SECTION("the final status is reported, not the interim one") {
    fake_target_process fake{{"--interim", "100", "--status-code", "503", "--body-mode", "text",
                              "--text", "busy"}};
    auto reply = get_info(svc, info_query(fake));
    CHECK(reply.status == 502);
    auto body = checked_json(reply);
    CHECK(body.at("code") == "upstream_status");
    CHECK(body.at("error").at("httpStatus") == 503);
    CHECK(body.at("error").at("body") == "busy");
  }
  SECTION("eight in a row are accepted") {
    fake_target_process fake{{"--interim", interims(8)}};
    auto reply = get_info(svc, info_query(fake));
    CHECK(reply.status == 200);
    CHECK(checked_json(reply).at("status") == 200);
  }
  SECTION("a ninth is refused") {
    fake_target_process fake{{"--interim", interims(9, "102")}};
    auto reply = get_info(svc, info_query(fake));
    CHECK(reply.status == 502);
    CHECK(checked_json(reply).at("code") == "upstream_failure");
  }
  SECTION("101 Switching Protocols is refused, not skipped") {
    fake_target_process fake{{"--interim", "101"}};
    auto reply = get_info(svc, info_query(fake));
    CHECK(reply.status == 502);
    CHECK(checked_json(reply).at("code") == "upstream_failure");
  }
}

TEST_CASE("hostile e2e: interim responses before the answer are skipped", "[e2e][hostile]") {
  service_process svc;
  SECTION("100 and 103 before the SDP answer") {
    fake_target_process fake{{"--interim", "100,103"}};
    auto reply = post_offer(svc, fake);
    CHECK(reply.status == 200);
    auto body = checked_json(reply);
    CHECK(body.at("ok") == true);
    CHECK(body.at("candidates").as_array().size() == 1);
    CHECK(fake.stats().at("offers") == 1);
  }
  SECTION("before a NetherNet rejection, the rejection is reported") {
    fake_target_process fake{{"--interim", "100", "--style", "go", "--reject-offers", "37"}};
    auto reply = post_offer(svc, fake);
    CHECK(reply.status == 502);
    auto body = checked_json(reply);
    CHECK(body.at("code") == "upstream_status");
    CHECK(body.at("error").at("httpStatus") == 400);
    CHECK(body.at("error").at("nethernetError") == 37);
  }
  SECTION("a ninth is refused") {
    fake_target_process fake{{"--interim", interims(9, "103")}};
    auto reply = post_offer(svc, fake);
    CHECK(reply.status == 502);
    CHECK(checked_json(reply).at("code") == "upstream_failure");
  }
}

TEST_CASE("hostile e2e: interim responses do not stretch the deadline", "[e2e][hostile]") {
  fake_target_process fake{{"--interim", "100,103", "--fault", "hang"}};
  service_process svc{{"--status-timeout-ms", "1500", "--connect-timeout-ms", "500"}};
  auto start = std::chrono::steady_clock::now();
  auto reply = get_info(svc, info_query(fake));
  auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(reply.status == 504);
  CHECK(checked_json(reply).at("code") == "upstream_timeout");
  // The upper bound is loose because CI machines are slow, not because it is fuzzy.
  CHECK(elapsed >= 1400ms);
  CHECK(elapsed < 6000ms);
}

// -- bounded replies --------------------------------------------------------------------------

TEST_CASE("hostile e2e: an answer of 1 MiB of control bytes is echoed within the cap",
          "[e2e][hostile]") {
  fake_target_process fake{{"--offer-fault", "control-answer", "--oversize-bytes", answer_limit}};
  service_process svc;
  auto reply = post_offer(svc, fake);
  INFO("reply of " << reply.body.size() << " bytes");
  CHECK(reply.status == 200);
  // Before the cap: about 6 MB, each byte escaped to \u00XX.
  CHECK(reply.body.size() < 4 * answer_cap);
  auto body = checked_json(reply);
  CHECK(body.at("ok") == true);
  CHECK(body.at("answerTruncated") == true);
  CHECK(json::serialize(body.at("answer")).size() - 2 <= answer_cap);
  CHECK(body.at("answer").as_string().starts_with("v=0\r\n"));
}

TEST_CASE("hostile e2e: error bodies of control bytes are quoted within the cap",
          "[e2e][hostile]") {
  service_process svc;
  SECTION("offer: a 400 of 1 MiB") {
    fake_target_process fake{
      {"--offer-fault", "control-error", "--oversize-bytes", answer_limit}};
    auto reply = post_offer(svc, fake);
    INFO("reply of " << reply.body.size() << " bytes");
    CHECK(reply.status == 502);
    CHECK(reply.body.size() < 4 * quoted_body_cap);
    auto body = checked_json(reply);
    CHECK(body.at("code") == "upstream_status");
    CHECK(body.at("error").at("httpStatus") == 400);
    CHECK(body.at("error").at("bodyTruncated") == true);
  }
  SECTION("info: a 500 of 64 KiB, the most a status body may be") {
    fake_target_process fake{{"--fault", "control-bytes", "--status-code", "500",
                              "--oversize-bytes", "65536"}};
    auto reply = get_info(svc, info_query(fake));
    INFO("reply of " << reply.body.size() << " bytes");
    CHECK(reply.status == 502);
    CHECK(reply.body.size() < 4 * quoted_body_cap);
    auto body = checked_json(reply);
    CHECK(body.at("error").at("httpStatus") == 500);
    CHECK(body.at("error").at("bodyTruncated") == true);
  }
  SECTION("info: a 200 of 1 MiB is past the status body limit") {
    fake_target_process fake{{"--fault", "control-bytes", "--oversize-bytes", answer_limit}};
    auto reply = get_info(svc, info_query(fake));
    CHECK(reply.status == 502);
    CHECK(checked_json(reply).at("code") == "upstream_failure");
  }
  SECTION("info: a 200 of 64 KiB is no JSON, and quoted briefly") {
    fake_target_process fake{{"--fault", "control-bytes", "--oversize-bytes", "65536"}};
    auto reply = get_info(svc, info_query(fake));
    CHECK(reply.status == 200);
    CHECK(reply.body.size() < 4 * quoted_body_cap);
    CHECK(checked_json(reply).at("infoErrorCode") == "not_json");
  }
}

// -- UTF-8 in what is echoed ------------------------------------------------------------------

TEST_CASE("hostile e2e: a host or a path that is not UTF-8 is echoed as valid UTF-8",
          "[e2e][hostile]") {
  service_process svc;
  // A host of bytes that are not UTF-8 (percent-decoded by the router) is refused, naming it.
  auto host = get_info(svc, "host=%FF%FE%C0%AF.example&port=19132");
  CHECK(host.status == 400);
  CHECK(checked_json(host).at("code") == "invalid_input");
  // A path no route has is named in the 404.
  auto path = http_request(svc.port(), "GET", "/api/\xFF\xED\xA0\x80");
  CHECK(path.status / 100 == 4);
  checked_json(path);
}
