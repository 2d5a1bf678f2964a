// An io thread's leases (actors/edge_leases.hpp), without threads or actors.
#include <catch2/catch.hpp>

#include <chrono>

#include "actors/edge_leases.hpp"
#include "support/rooms.hpp"
#include "support/dates.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

const std::string id = "offer|key|h";

/// A lease of calls for id, the caller having made made calls of 100, until expires.
edge_grant grant_of(std::uint64_t calls, std::uint64_t made,
                    std::chrono::steady_clock::time_point expires) {
  edge_grant g;
  g.id = id;
  g.calls = calls;
  g.made = made;
  g.verdict.scope = quota_scope::key;
  g.verdict.limit = 100;
  g.verdict.reset = dec_1;
  g.verdict.user_id = 7;
  g.counter.endpoint = "offer";
  g.counter.scope = "key";
  g.counter.subject = "7";
  g.expires = expires;
  return g;
}

} // namespace

TEST_CASE("edge leases: a lease answers its calls, each with the calls made so far",
          "[quota][lease]") {
  edge_leases leases;
  auto now = std::chrono::steady_clock::now();
  CHECK_FALSE(leases.answer(id, now, nov_22).verdict);
  CHECK_FALSE(leases.add(grant_of(3, 40, now + 1s)));
  for (std::uint64_t i = 1; i <= 3; ++i) {
    auto found = leases.answer(id, now, nov_22);
    REQUIRE(found.verdict);
    CHECK(found.verdict->error.ok());
    CHECK(found.verdict->remaining == 100 - 40 - i);
    CHECK(found.verdict->scope == quota_scope::key);
    CHECK(found.verdict->user_id == 7);
    CHECK(found.verdict->reset == dec_1);
    CHECK_FALSE(found.ended);
  }
  // Used up: the next call is not answered here, and nothing is left to give back.
  auto after = leases.answer(id, now, nov_22);
  CHECK_FALSE(after.verdict);
  CHECK_FALSE(after.ended);
  CHECK(leases.size() == 0);
  // Another caller's id finds nothing.
  CHECK(leases.add(grant_of(2, 0, now + 1s)) == std::nullopt);
  CHECK_FALSE(leases.answer("offer|ip|192.0.2.45", now, nov_22).verdict);
}

TEST_CASE("edge leases: a lease ends with its time and its month, and its rest goes back",
          "[quota][lease]") {
  edge_leases leases;
  auto now = std::chrono::steady_clock::now();
  SECTION("its time") {
    leases.add(grant_of(5, 0, now + 1s));
    REQUIRE(leases.answer(id, now, nov_22).verdict);
    auto found = leases.answer(id, now + 1s, nov_22);
    CHECK_FALSE(found.verdict);
    REQUIRE(found.ended);
    CHECK(found.ended->id == id);
    CHECK(found.ended->calls == 4);
    CHECK(found.ended->reset == dec_1);
    CHECK(found.ended->counter.subject == "7");
  }
  SECTION("its month") {
    leases.add(grant_of(5, 0, now + 1s));
    auto found = leases.answer(id, now, dec_1);
    CHECK_FALSE(found.verdict);
    REQUIRE(found.ended);
    CHECK(found.ended->calls == 5);
  }
  CHECK(leases.size() == 0);
}

TEST_CASE("edge leases: a new grant, a recall and the edge's end each return the rest",
          "[quota][lease]") {
  edge_leases leases;
  auto now = std::chrono::steady_clock::now();
  leases.add(grant_of(5, 0, now + 1s));
  leases.answer(id, now, nov_22);
  // A second grant for the same caller replaces the first, whose 4 calls go back.
  auto replaced = leases.add(grant_of(8, 10, now + 2s));
  REQUIRE(replaced);
  CHECK(replaced->calls == 4);
  auto found = leases.answer(id, now, nov_22);
  REQUIRE(found.verdict);
  CHECK(found.verdict->remaining == 100 - 11);

  auto recalled = leases.recall(id);
  REQUIRE(recalled);
  CHECK(recalled->calls == 7);
  CHECK_FALSE(leases.recall(id));
  CHECK_FALSE(leases.answer(id, now, nov_22).verdict);

  leases.add(grant_of(2, 0, now + 1s));
  auto other = grant_of(3, 0, now + 1s);
  other.id = "offer|ip|192.0.2.45";
  leases.add(other);
  auto all = leases.take_all();
  REQUIRE(all.size() == 2);
  CHECK(all[0].calls + all[1].calls == 5);
  CHECK(leases.size() == 0);
}
