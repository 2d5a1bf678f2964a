// End to end: GET /badge on the real binary, with the fake NetherNet target as a real process
// on loopback.
#include <catch2/catch.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/json.hpp>

#include "support/http.hpp"
#include "support/wait.hpp"
#include "support/xml_check.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

const std::string dot = "\xC2\xB7";

http_reply get_badge(const service_process& svc, const std::string& query,
                     const header_list& headers = {}) {
  return http_request(svc.port(), "GET", "/badge?" + query, headers);
}

std::string target_query(unsigned port) {
  return "host=127.0.0.1&port=" + std::to_string(port);
}

std::vector<std::string> strings(const boost::json::value& array) {
  std::vector<std::string> out;
  for (auto& item : array.as_array())
    out.emplace_back(item.as_string());
  return out;
}

} // namespace

TEST_CASE("badge e2e: an online server's badge, its name kept as text", "[e2e][badge]") {
  std::string name = "<script>alert(1)</script>";
  fake_target_process fake{{"--info", R"({"name":"<script>alert(1)</script>","players":3,)"
                                      R"("maxPlayers":10,"protocol":2193})"}};
  service_process svc;
  auto reply = get_badge(svc, target_query(fake.port()));
  REQUIRE(reply.error.empty());
  CHECK(reply.status == 200);
  CHECK(reply.header("content-type") == "image/svg+xml");
  CHECK(reply.header("cache-control") == "max-age=60");
  CHECK(reply.header("x-content-type-options") == "nosniff");
  CHECK(reply.header("content-security-policy")
        == "default-src 'none'; style-src 'unsafe-inline'");
  CHECK(reply.header("x-ratelimit-scope") == "ip");
  CHECK(reply.body.find("<script") == std::string::npos);
  auto doc = parse_svg(reply.body);
  INFO(reply.body);
  REQUIRE_FALSE(doc.contains("error"));
  CHECK(strings(doc.at("texts")) == std::vector<std::string>{"bedrock", "online " + dot + " 3/10"});
  CHECK(strings(doc.at("title")).at(0).find(name) != std::string::npos);
  CHECK(fake.stats().at("status_requests") == 1);

  // Nothing answers: offline, still a 200 image a page can show.
  auto down = get_badge(svc, target_query(unused_port()));
  CHECK(down.status == 200);
  CHECK(down.header("content-type") == "image/svg+xml");
  auto down_doc = parse_svg(down.body);
  REQUIRE_FALSE(down_doc.contains("error"));
  CHECK(strings(down_doc.at("texts")).at(1) == "offline");
  // Badges are counted apart in /metrics, not as /api/info. A response is counted once its
  // write has completed, which may be just after we read it: wait for the counter.
  const std::string badges = "netherscope_requests_total{route=\"/badge\",status=\"2xx\"}";
  CHECK(wait_until([&] { return metric(svc, badges) == 2; }, 5s));
  CHECK(metric(svc, "netherscope_requests_total{route=\"/api/info\",status=\"2xx\"}") == 0);
}

TEST_CASE("badge e2e: a server that answers only RakNet is online, with the pong's counts",
          "[e2e][badge][raknet]") {
  fake_target_process fake{{"--raknet", "only"}};
  service_process svc;
  auto reply = get_badge(svc, target_query(fake.port()));
  REQUIRE(reply.error.empty());
  CHECK(reply.status == 200);
  auto doc = parse_svg(reply.body);
  INFO(reply.body);
  REQUIRE_FALSE(doc.contains("error"));
  // The fake's pong says 0 of 10 players, in BDS's style.
  CHECK(strings(doc.at("texts")) == std::vector<std::string>{"bedrock", "online " + dot + " 0/10"});
  CHECK(strings(doc.at("title")).at(0).find("Fake BDS") != std::string::npos);
  CHECK(fake.stats().at("raknet_pongs") == 1);
}

TEST_CASE("badge e2e: badges share the address's info quota and ignore API keys",
          "[e2e][badge][quota]") {
  service_process svc{{"--limit-info-ip", "2"}};
  auto first = get_badge(svc, target_query(unused_port()));
  CHECK(first.status == 200);
  CHECK(first.header("x-ratelimit-remaining") == "1");
  // Invalid input is a counted call too, and still an image.
  auto invalid = get_badge(svc, "port=19132");
  CHECK(invalid.status == 400);
  CHECK(invalid.header("content-type") == "image/svg+xml");
  CHECK(invalid.header("x-ratelimit-remaining") == "0");
  auto invalid_doc = parse_svg(invalid.body);
  REQUIRE_FALSE(invalid_doc.contains("error"));
  CHECK(strings(invalid_doc.at("texts")).at(1) == "error");

  // The quota is the one /api/info uses; a key sent with a badge neither fails as unknown
  // nor moves the call to a key's quota.
  auto over = get_badge(svc, target_query(unused_port()),
                        {{"X-API-Key", "nsk_not_a_key_of_this_service"}});
  CHECK(over.status == 429);
  CHECK(over.header("content-type") == "image/svg+xml");
  CHECK(over.header("x-ratelimit-scope") == "ip");
  CHECK_FALSE(over.header("retry-after").empty());
  CHECK(over.header("cache-control") == "no-store");
  auto over_doc = parse_svg(over.body);
  REQUIRE_FALSE(over_doc.contains("error"));
  CHECK(strings(over_doc.at("texts")).at(1) == "error");
  auto info = get_info(svc, target_query(unused_port()));
  CHECK(info.status == 429);
  CHECK(info.code() == "quota_exhausted");
}
