// The fake target's --port-count: one process serving the same fake server on a run of
// consecutive ports, as tools/bench/watch_scale.sh uses it to stand for thousands of watched
// servers, with the stats counted together whichever port is asked.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include <boost/json.hpp>

#include "support/http.hpp"
#include "support/process.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

TEST_CASE("fake target: --port-count serves the same server on each port of the run",
          "[e2e][fake_target]") {
  fake_target_process fake{{"--port-count", "3"}};
  auto listening = fake.process().lines().front();
  CHECK(listening.find(R"("port_count":3)") != std::string::npos);

  for (unsigned port = fake.port(); port < fake.port() + 3; ++port) {
    INFO("port " << port);
    auto reply = http_request(port, "GET", "/v1/join", {}, {}, 10s);
    REQUIRE(reply.status == 200);
    CHECK(reply.json().as_object().at("name") == "Fake BDS");
  }
  // One set of counters for the run: the last port reports what the first two were asked.
  auto stats = http_request(fake.port() + 2, "GET", "/_fake/stats", {}, {}, 10s).json();
  REQUIRE(stats.is_object());
  CHECK(stats.as_object().at("status_requests") == 3);
  CHECK(stats.as_object().at("connections") == 4);
}

TEST_CASE("fake target: a run of ports past 65535 is a usage error", "[e2e][fake_target]") {
  child_process past_end{{FAKE_TARGET_BIN, "--port", "65534", "--port-count", "3"}};
  CHECK(past_end.wait(20s) == 2);
  child_process none{{FAKE_TARGET_BIN, "--port-count", "0"}};
  CHECK(none.wait(20s) == 2);
}
