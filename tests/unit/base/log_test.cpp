// The structured log's sampler: what keeps a failure that repeats on every call from flooding
// the log.
#include <catch2/catch.hpp>

#include <chrono>

#include "base/log.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

TEST_CASE("log sampler: one line per period, and the next one counts what was held back",
          "[log]") {
  using namespace std::chrono_literals;
  log::sampler sampled{10s};
  auto t0 = log::sampler::clock_type::time_point{} + 1h;
  auto first = sampled.admit(t0);
  REQUIRE(first);
  CHECK(*first == 0);
  CHECK_FALSE(sampled.admit(t0 + 1s));
  CHECK_FALSE(sampled.admit(t0 + 9s));
  auto next = sampled.admit(t0 + 10s);
  REQUIRE(next);
  CHECK(*next == 2);
  CHECK_FALSE(sampled.admit(t0 + 19s));
  auto later = sampled.admit(t0 + 60s);
  REQUIRE(later);
  CHECK(*later == 1);
}
