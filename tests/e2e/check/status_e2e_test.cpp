// End to end: GET and POST /api/status on the real binary, both transports at once, against
// the fake target's NetherNet signalling and its RakNet responder (tools/fake_target --raknet).
#include <catch2/catch.hpp>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/json.hpp>

#include "support/http.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace json = boost::json;

namespace {

http_reply get_status(const service_process& svc, unsigned port, const std::string& extra = {}) {
  return http_request(svc.port(), "GET",
                      "/api/status?host=127.0.0.1&tls=false&port=" + std::to_string(port) + extra,
                      {}, {}, 30s);
}

http_reply post_status(const service_process& svc, const std::string& body) {
  return http_request(svc.port(), "POST", "/api/status",
                      {{"Content-Type", "application/json"}}, body, 60s);
}

/// The lines of an NDJSON body, each parsed; a line that is not a JSON object fails the test.
std::vector<json::object> lines_of(const std::string& body) {
  std::vector<json::object> out;
  std::istringstream in{body};
  std::string line;
  while (std::getline(in, line)) {
    INFO("line: " << line);
    auto value = json::parse(line);
    REQUIRE(value.is_object());
    out.push_back(value.as_object());
  }
  return out;
}

} // namespace

TEST_CASE("status e2e: a server on both transports shows both, with the clients", "[e2e][status]") {
  fake_target_process fake{{"--raknet", "on"}};
  service_process svc{{"--limit-info-ip", "10"}};
  auto reply = get_status(svc, fake.port());
  INFO(reply.body);
  REQUIRE(reply.status == 200);
  auto body = body_of(reply);
  CHECK(body.at("ok") == true);
  CHECK(body.at("online") == true);
  CHECK(body.at("nethernet").at("ok") == true);
  CHECK(body.at("nethernet").at("info").at("name") == "Fake BDS");
  CHECK(body.at("raknet").at("ok") == true);
  CHECK(body.at("raknet").at("motdPlain") == "Fake BDS");
  // The join status's name and the pong's two lines, formatted (core/motd).
  CHECK(body.at("motd").at("clean") == "Fake BDS");
  CHECK(body.at("motd").at("html") == "Fake BDS");
  CHECK(body.at("raknet").at("motdFormatted").at("clean") == "Fake BDS\nBedrock level");
  CHECK(body.at("raknet").at("motdFormatted").at("html") == "Fake BDS<br>Bedrock level");
  CHECK(body.at("clients").at("nethernet") == true);
  CHECK(body.at("clients").at("raknet") == true);
  // Charged as one info call.
  CHECK(reply.header("x-ratelimit-limit") == "10");
  CHECK(remaining(reply) == 9);
  CHECK(fake.stats().at("status_requests") == 1);
  CHECK(fake.stats().at("raknet_pongs") == 1);
}

TEST_CASE("status e2e: a RakNet-only server is online, one that answers neither is not",
          "[e2e][status]") {
  service_process svc;
  SECTION("RakNet only") {
    fake_target_process fake{{"--raknet", "only"}};
    auto reply = get_status(svc, fake.port());
    INFO(reply.body);
    REQUIRE(reply.status == 200);
    auto body = body_of(reply);
    CHECK(body.at("online") == true);
    CHECK(body.at("nethernet").at("ok") == false);
    CHECK(body.at("nethernet").at("code") == "upstream_failure");
    CHECK(body.at("raknet").at("ok") == true);
    CHECK(body.at("clients").at("nethernet") == false);
  }
  SECTION("neither: 200 and offline, each transport saying why") {
    auto reply = get_status(svc, unused_port());
    INFO(reply.body);
    REQUIRE(reply.status == 200);
    auto body = body_of(reply);
    CHECK(body.at("online") == false);
    CHECK(body.at("nethernet").at("ok") == false);
    CHECK(body.at("raknet").at("ok") == false);
    CHECK(body.at("raknet").at("code").is_string());
  }
  SECTION("raknetPort pings another UDP port") {
    fake_target_process fake{{"--raknet", "on"}};
    auto reply = get_status(svc, fake.port(), "&raknetPort=" + std::to_string(unused_port()));
    INFO(reply.body);
    REQUIRE(reply.status == 200);
    auto body = body_of(reply);
    CHECK(body.at("nethernet").at("ok") == true);
    CHECK(body.at("raknet").at("ok") == false);
    CHECK(fake.stats().at("raknet_pings") == 0);
  }
}

TEST_CASE("status e2e: a target the address policy refuses is a 403, and nothing is sent",
          "[e2e][status]") {
  fake_target_process fake{{"--raknet", "on"}};
  service_process strict{{}, {}, false};
  auto reply = get_status(strict, fake.port());
  CHECK(reply.status == 403);
  CHECK(reply.code() == "forbidden_target");
  CHECK(fake.stats().at("status_requests") == 0);
  CHECK(fake.stats().at("raknet_pings") == 0);
}

TEST_CASE("status e2e: 50 targets come back as 50 NDJSON lines, the last ones refused by the "
          "quota",
          "[e2e][status]") {
  fake_target_process dual{{"--raknet", "on"}};
  fake_target_process raknet_only{{"--raknet", "only"}};
  auto closed = unused_port();
  service_process svc{{"--limit-info-ip", "45"}};
  json::array targets;
  std::map<unsigned, std::string> expected;
  for (int i = 0; i < 50; ++i) {
    unsigned port = i % 3 == 0 ? dual.port() : i % 3 == 1 ? raknet_only.port() : closed;
    targets.push_back(json::object{{"host", "127.0.0.1"}, {"port", port}, {"tls", false}});
  }
  auto reply = post_status(svc, json::serialize(json::object{{"targets", targets}}));
  INFO(reply.body.substr(0, 3000));
  REQUIRE(reply.status == 200);
  CHECK(reply.header("content-type") == "application/x-ndjson");
  // The quota as it stood when the call began.
  CHECK(reply.header("x-ratelimit-limit") == "45");
  CHECK(remaining(reply) == 45);
  auto lines = lines_of(reply.body);
  REQUIRE(lines.size() == 50);
  int checked = 0;
  int refused = 0;
  for (const auto& line : lines) {
    CHECK(line.at("host") == "127.0.0.1");
    auto port = line.at("port").to_number<unsigned>();
    if (line.at("ok") == false) {
      CHECK(line.at("code") == "quota_exhausted");
      ++refused;
      continue;
    }
    ++checked;
    CHECK(line.at("online") == (port != closed));
    CHECK(line.at("raknet").at("ok") == (port != closed));
    CHECK(line.at("nethernet").at("ok") == (port == dual.port()));
  }
  CHECK(checked == 45);
  CHECK(refused == 5);
  // Every line was counted: the quota is spent.
  auto after = get_status(svc, dual.port());
  CHECK(after.status == 429);
}

TEST_CASE("status e2e: a batch's bad entries get their own lines, a bad body one error",
          "[e2e][status]") {
  fake_target_process fake{{"--raknet", "on"}};
  service_process svc{{"--limit-info-ip", "10"}};
  auto good = json::object{{"host", "127.0.0.1"}, {"port", fake.port()}, {"tls", false}};
  auto reply = post_status(svc, json::serialize(json::object{
                                  {"targets", json::array{good, json::object{{"host", "a b"}},
                                                          json::object{{"host", "10.0.0.1"}}}}}));
  INFO(reply.body);
  REQUIRE(reply.status == 200);
  auto lines = lines_of(reply.body);
  REQUIRE(lines.size() == 3);
  std::map<std::string, std::string> codes;
  for (const auto& line : lines)
    codes[std::string{line.at("host").as_string()}]
      = line.at("ok") == true ? "ok" : std::string{line.at("code").as_string()};
  CHECK(codes["127.0.0.1"] == "ok");
  CHECK(codes["10.0.0.1"] == "forbidden_target");
  CHECK(codes.size() == 3);

  auto empty = post_status(svc, R"({"targets":[]})");
  CHECK(empty.status == 400);
  CHECK(empty.code() == "invalid_input");
  json::array many;
  for (int i = 0; i < 51; ++i)
    many.push_back(good);
  auto too_many = post_status(svc, json::serialize(json::object{{"targets", many}}));
  CHECK(too_many.status == 400);
  CHECK(too_many.code() == "invalid_input");
  auto not_json = post_status(svc, "targets");
  CHECK(not_json.status == 400);
}
