// End to end: the operator's series in GET /metrics (latency per route, upstream outcomes,
// the offer cache, quota refusals, the store) under real traffic from the netherscope binary
// to the fake NetherNet target on loopback, and `promtool check metrics` on the result.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "support/missing_part.hpp"
#include "support/http.hpp"
#include "support/process.hpp"
#include "support/wait.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

std::string target_query(unsigned port) {
  return "host=127.0.0.1&port=" + std::to_string(port);
}

std::string upstream_requests(const std::string& call, const std::string& outcome) {
  return "netherscope_upstream_requests_total{call=\"" + call + "\",outcome=\"" + outcome + "\"}";
}

std::string cache(const std::string& result) {
  return "netherscope_offer_cache_requests_total{result=\"" + result + "\"}";
}

/// promtool from Debian's prometheus package (tools/setup.sh installs it with WITH_TESTS=1).
constexpr const char* promtool = "/usr/bin/promtool";

} // namespace

TEST_CASE("metrics e2e: the operator's series count real traffic", "[e2e][metrics]") {
  fake_target_process fake;
  service_process svc{{"--limit-info-ip", "3"}};
  const auto closed = unused_port();
  // Four info calls against a quota of three: two answered, one unreachable, one refused.
  CHECK(get_info(svc, target_query(fake.port())).status == 200);
  CHECK(get_info(svc, target_query(closed)).status == 502);
  CHECK(get_info(svc, target_query(fake.port())).status == 200);
  CHECK(get_info(svc, target_query(fake.port())).status == 429);
  // Two offers to one target: the first goes upstream, the second is a cache hit.
  CHECK(post_offer(svc, fake.port()).status == 200);
  CHECK(post_offer(svc, fake.port()).status == 200);

  // Responses are counted once written, which may be just after the client read them.
  CHECK(wait_until(
    [&] {
      return metric(svc, "netherscope_http_request_duration_seconds_count{route=\"/api/info\"}")
               == 4
             && metric(svc, "netherscope_http_request_duration_seconds_count{route=\"/api/offer\"}")
                  == 2;
    },
    5s));
  CHECK(metric(svc, "netherscope_http_request_duration_seconds_bucket{route=\"/api/info\","
                    "le=\"+Inf\"}")
        == 4);
  CHECK(metric(svc, upstream_requests("info", "ok")) == 2);
  CHECK(metric(svc, upstream_requests("info", "unreachable")) == 1);
  CHECK(metric(svc, upstream_requests("info", "timeout")) == 0);
  CHECK(metric(svc, upstream_requests("offer", "ok")) == 1);
  CHECK(metric(svc, cache("miss")) == 1);
  CHECK(metric(svc, cache("hit")) == 1);
  CHECK(metric(svc, cache("join")) == 0);
  CHECK(metric(svc, "netherscope_quota_refusals_total{scope=\"ip\"}") == 1);
  CHECK(metric(svc, "netherscope_quota_refusals_total{scope=\"key\"}") == 0);
  // Every charge went through an LMDB transaction; none failed, and Redis is not used.
  CHECK(metric(svc, "netherscope_store_operations_total{backend=\"lmdb\"}") >= 1);
  CHECK(metric(svc, "netherscope_store_errors_total{backend=\"lmdb\"}") == 0);
  CHECK(metric(svc, "netherscope_store_operations_total{backend=\"redis\"}") == 0);
  CHECK_FALSE(metric(svc, "netherscope_redis_up"));
  CHECK(metric(svc, "netherscope_probes") == 2);

  // The exposition is valid Prometheus text, as Prometheus' own checker reads it.
  if (!std::filesystem::exists(promtool)) {
    missing_part("promtool not found at /usr/bin/promtool: the format check did not run "
                 "(WITH_TESTS=1 tools/setup.sh installs Debian's prometheus package, which has it)");
    return;
  }
  auto scrape = http_request(svc.port(), "GET", "/metrics");
  REQUIRE(scrape.status == 200);
  temp_dir dir;
  auto file = dir.path() + "/metrics.txt";
  std::ofstream{file} << scrape.body;
  child_process check{{"/bin/sh", "-c", "exec \"$0\" check metrics < \"$1\" 2>&1", promtool, file}};
  auto status = check.wait(30s);
  std::string said;
  for (auto& line : check.lines())
    said += line + "\n";
  INFO(said);
  CHECK(status == 0);
}

TEST_CASE("metrics e2e: concurrent offers for one target are counted as joins",
          "[e2e][metrics]") {
  // The target takes its time to answer, so the second call arrives while the first's offer
  // is still under way and joins it (single flight). Three seconds leaves room for the
  // sanitizer builds, where a call and a scrape take tens of milliseconds each (under TSan,
  // 800 ms once let the first offer finish before the second call arrived).
  fake_target_process fake{{"--answer-delay-ms", "3000"}};
  service_process svc;
  int first_status = 0;
  std::thread first([&] { first_status = post_offer(svc, fake.port()).status; });
  // The second call goes once the first has started its flight, not after a guessed pause.
  REQUIRE(wait_until([&] { return metric(svc, cache("miss")) == 1; }, 10s));
  auto second = post_offer(svc, fake.port());
  first.join();
  CHECK(first_status == 200);
  CHECK(second.status == 200);
  CHECK(metric(svc, cache("join")) == 1);
  CHECK(metric(svc, cache("miss")) == 1);
  CHECK(metric(svc, upstream_requests("offer", "ok")) == 1);
}
