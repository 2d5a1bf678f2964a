#include <catch2/catch.hpp>

#include "net/upstream/offer_limiter.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

TEST_CASE("offer limiter: N per minute per server then a wait", "[offer_limiter]") {
  offer_limiter limiter{2};
  auto t0 = offer_limiter::clock_type::now();
  std::vector<std::string> server{"203.0.113.7:19132"};
  CHECK(limiter.try_start(server, t0) == 0s);
  limiter.finish(server);
  CHECK(limiter.try_start(server, t0 + 10s) == 0s);
  limiter.finish(server);
  auto wait = limiter.try_start(server, t0 + 20s);
  CHECK(wait >= 40s);
  CHECK(wait <= 41s);
  // A refused start records nothing: a minute after the first, one slot is free again.
  CHECK(limiter.try_start(server, t0 + 61s) == 0s);
}

TEST_CASE("offer limiter: one offer at a time per server", "[offer_limiter]") {
  offer_limiter limiter{6};
  auto t0 = offer_limiter::clock_type::now();
  std::vector<std::string> server{"203.0.113.7:19132"};
  CHECK(limiter.try_start(server, t0) == 0s);
  CHECK(limiter.try_start(server, t0 + 1s) >= 1s);
  limiter.finish(server);
  CHECK(limiter.try_start(server, t0 + 2s) == 0s);
}

TEST_CASE("offer limiter: a join's two players may be in flight together, not three",
          "[offer_limiter]") {
  offer_limiter limiter{6};
  auto t0 = offer_limiter::clock_type::now();
  std::vector<std::string> server{"203.0.113.7:19132"};
  CHECK(limiter.try_start(server, t0, 2) == 0s);
  CHECK(limiter.try_start(server, t0, 2) == 0s);
  CHECK(limiter.try_start(server, t0, 2) >= 1s);
  // An offer still goes only with nothing in flight, and each player counted in the minute.
  limiter.finish(server);
  CHECK(limiter.try_start(server, t0 + 1s) >= 1s);
  limiter.finish(server);
  for (int i = 0; i < 4; ++i) {
    CHECK(limiter.try_start(server, t0 + 2s) == 0s);
    limiter.finish(server);
  }
  CHECK(limiter.try_start(server, t0 + 3s, 2) >= 50s);
}

TEST_CASE("offer limiter: any of a name's addresses at its limit refuses", "[offer_limiter]") {
  offer_limiter limiter{1};
  auto t0 = offer_limiter::clock_type::now();
  CHECK(limiter.try_start({"203.0.113.7:19132"}, t0) == 0s);
  limiter.finish({"203.0.113.7:19132"});
  CHECK(limiter.try_start({"[2001:db8::7]:19132", "203.0.113.7:19132"}, t0 + 1s) > 0s);
  CHECK(limiter.try_start({"203.0.113.7:19133"}, t0 + 1s) == 0s);
}

TEST_CASE("offer limiter: idle servers are forgotten", "[offer_limiter]") {
  // tracked() sweeps at the real clock, so the offers are made two minutes in the past.
  offer_limiter limiter{1};
  auto t0 = offer_limiter::clock_type::now() - 2min;
  std::vector<std::vector<std::string>> servers;
  for (int i = 0; i < 100; ++i)
    servers.push_back({"198.51.100." + std::to_string(i) + ":19132"});
  for (auto& one : servers) {
    CHECK(limiter.try_start(one, t0) == 0s);
    limiter.finish(one);
  }
  // They were recorded: at that time each was at its limit of one a minute. (A refused start
  // records nothing, so asking does not change what follows.)
  for (auto& one : servers)
    CHECK(limiter.try_start(one, t0 + 1s) > 0s);
  // A minute and more later, nothing is left of them.
  CHECK(limiter.tracked() == 0);
}

TEST_CASE("offer limiter: a start the shared gate refused is taken back whole",
          "[offer_limiter]") {
  offer_limiter limiter{1};
  auto t0 = offer_limiter::clock_type::now();
  std::vector<std::string> server{"203.0.113.7:19132"};
  CHECK(limiter.try_start(server, t0) == 0s);
  // Another replica had the server's offer: this one never went, so it neither holds the
  // server nor uses up its minute.
  limiter.cancel(server);
  CHECK(limiter.try_start(server, t0 + 1s) == 0s);
  limiter.finish(server);
  CHECK(limiter.try_start(server, t0 + 2s) > 0s);
}
