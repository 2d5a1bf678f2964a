// End to end: what a cached offer says about its age (retrievedAt, expiresAt, the Age header)
// and the expectPorts check, with the netherscope binary and the fake NetherNet target as
// real processes on loopback.
#include <catch2/catch.hpp>

#include <signal.h>

#include <ctime>
#include <optional>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/json.hpp>

#include "support/http.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace json = boost::json;

namespace {

// Unix seconds of an RFC 3339 UTC time with second precision (2026-11-23T14:05:09Z), or
// nullopt when the text has any other form.
std::optional<std::int64_t> utc_seconds(const json::value& value) {
  if (!value.is_string())
    return std::nullopt;
  std::string text{value.as_string()};
  if (text.size() != 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T'
      || text[13] != ':' || text[16] != ':' || text[19] != 'Z')
    return std::nullopt;
  std::tm tm{};
  auto end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (end == nullptr || *end != '\0')
    return std::nullopt;
  return static_cast<std::int64_t>(timegm(&tm));
}

std::optional<std::int64_t> age_header(const http_reply& reply) {
  auto text = reply.header("age");
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoll(text);
}

std::int64_t unix_now() {
  return static_cast<std::int64_t>(std::time(nullptr));
}

// A UDP port on 127.0.0.1 that was free a moment ago.
unsigned short free_udp_port() {
  boost::asio::io_context ioc;
  boost::asio::ip::udp::socket socket{ioc, {boost::asio::ip::make_address("127.0.0.1"), 0}};
  return socket.local_endpoint().port();
}

std::size_t warning_count(const json::object& body) {
  return body.contains("warnings") && body.at("warnings").is_array()
           ? body.at("warnings").as_array().size()
           : 0;
}

} // namespace

TEST_CASE("cache e2e: fresh, cached and stale replies say when the answer was retrieved",
          "[e2e][cache]") {
  fake_target_process fake;
  service_process svc;
  auto before = unix_now();
  auto first = post_offer(svc, fake.port());
  auto after = unix_now();
  INFO("first: " << shown(first));
  REQUIRE(first.status == 200);
  auto body = body_of(first);
  CHECK_FALSE(body.contains("cached"));
  // A fresh reply: when it was fetched, and no expiry or age, since nobody kept it yet.
  auto retrieved = utc_seconds(body["retrievedAt"]);
  REQUIRE(retrieved);
  CHECK(*retrieved >= before);
  CHECK(*retrieved <= after);
  CHECK_FALSE(body.contains("expiresAt"));
  CHECK(first.header("age").empty());

  // A hit: the same retrieval time, the end of its 120 s and an Age header that agrees with
  // how long ago that was.
  auto second = post_offer(svc, fake.port());
  auto now = unix_now();
  INFO("second: " << shown(second));
  REQUIRE(second.status == 200);
  body = body_of(second);
  CHECK(body["cached"] == true);
  CHECK(utc_seconds(body["retrievedAt"]) == retrieved);
  CHECK(utc_seconds(body["expiresAt"]) == *retrieved + 120);
  auto age = age_header(second);
  REQUIRE(age);
  // The cache measures age from when it stored the answer, within the second of retrieval.
  CHECK(*age >= 0);
  CHECK(*age <= now - *retrieved + 1);
  CHECK(second.header("access-control-expose-headers").find("Age") != std::string::npos);
  CHECK(fake.stats().at("offers") == 1);

  // The target goes away; a refresh fails and the kept answer stands in, stale, with the
  // same times.
  fake.process().signal(SIGTERM);
  REQUIRE(fake.process().wait(5s) == 0);
  auto stale = post_offer(svc, fake.port(), R"(,"fresh":true)");
  INFO("stale: " << shown(stale));
  REQUIRE(stale.status == 200);
  body = body_of(stale);
  CHECK(body["cached"] == true);
  CHECK(body["stale"] == true);
  CHECK(utc_seconds(body["retrievedAt"]) == retrieved);
  CHECK(utc_seconds(body["expiresAt"]) == *retrieved + 120);
  CHECK(age_header(stale).has_value());
}

TEST_CASE("cache e2e: expectPorts warns per call without splitting the cache",
          "[e2e][cache]") {
  auto udp = free_udp_port();
  fake_target_process fake{{"--udp-ports", std::to_string(udp)}};
  service_process svc;
  auto other = static_cast<unsigned short>(udp == 65535 ? udp - 1 : udp + 1);

  // The port the target really advertises: no warning beyond what the answer has anyway.
  auto matching = post_offer(svc, fake.port(), ",\"expectPorts\":[" + std::to_string(udp) + "]");
  INFO("matching: " << shown(matching));
  REQUIRE(matching.status == 200);
  auto plain = post_offer(svc, fake.port());
  INFO("plain: " << shown(plain));
  REQUIRE(plain.status == 200);
  CHECK(body_of(plain)["cached"] == true);
  auto baseline = warning_count(body_of(plain));
  CHECK(warning_count(body_of(matching)) == baseline);

  // Ports the target does not advertise: the same cached answer, plus one warning naming
  // the expected ports and the one in use.
  auto missed = post_offer(svc, fake.port(),
                           ",\"expectPorts\":[" + std::to_string(other) + ",19132]");
  INFO("missed: " << shown(missed));
  REQUIRE(missed.status == 200);
  auto body = body_of(missed);
  CHECK(body["cached"] == true);
  CHECK(body["answer"] == body_of(plain)["answer"]);
  REQUIRE(warning_count(body) == baseline + 1);
  std::string warning{body["warnings"].as_array().back().as_string()};
  CHECK(warning.find(std::to_string(other) + ", 19132") != std::string::npos);
  CHECK(warning.find(std::to_string(udp)) != std::string::npos);
  // The cache's fields survive the added warning.
  CHECK(utc_seconds(body["expiresAt"]).has_value());
  CHECK(age_header(missed).has_value());
  CHECK(fake.stats().at("offers") == 1);

  // Invalid entries are refused naming the field, and the call still counts.
  auto bad = post_offer(svc, fake.port(), R"(,"expectPorts":[19132,70000])");
  CHECK(bad.status == 400);
  CHECK(bad.code() == "invalid_input");
  CHECK(body_of(bad)["error"].as_string().find("expectPorts[1]") != json::string::npos);
  CHECK(bad.header("x-ratelimit-remaining") == "196");
  CHECK(fake.stats().at("offers") == 1);
}
