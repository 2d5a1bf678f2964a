// The hit board: the cache actor's fresh answers, as an io thread's bridge reads them once
// the updates the cache actor published are applied.
#include <catch2/catch.hpp>

#include "actors/hit_board.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

struct board_fixture {
  offer_cache::clock_type::time_point now{std::chrono::hours(1)};
  offer_cache::limits limits;
  std::unique_ptr<hit_board> board;

  explicit board_fixture(std::size_t max_entries = 10, std::size_t max_bytes = 1 << 20) {
    limits.max_entries = max_entries;
    limits.max_bytes = max_bytes;
    board = std::make_unique<hit_board>(limits, [this] { return now; });
  }

  /// Applies what the cache actor publishes for a new answer stored now.
  void publish(const target& key, std::string body, bool probed) {
    board->apply({key, std::make_shared<const std::string>(std::move(body)), now, probed});
  }

  /// Applies what the cache actor publishes when it no longer holds a fresh answer for key.
  void withdraw(const target& key) {
    board->apply({key, nullptr, now, false});
  }
};

target at(std::uint16_t port) {
  return target{"203.0.113.7", port, tls_mode::auto_detect};
}

} // namespace

TEST_CASE("hit board: an answer is a hit until the cache's lifetime ends, with its age",
          "[cache]") {
  board_fixture f;
  f.publish(at(19132), R"({"cached":true})", false);
  f.now += 119s;
  auto hit = f.board->find(at(19132), false);
  REQUIRE(hit);
  CHECK(*hit->body == R"({"cached":true})");
  CHECK(hit->age == 119);
  f.now += 1s;
  CHECK_FALSE(f.board->find(at(19132), false));
  CHECK_FALSE(f.board->find(at(19133), false));
}

TEST_CASE("hit board: a call that asks for reachability only hits a probed answer",
          "[cache]") {
  board_fixture f;
  f.publish(at(1), "plain", false);
  f.publish(at(2), "probed", true);
  CHECK_FALSE(f.board->find(at(1), true));
  CHECK(f.board->find(at(1), false));
  CHECK(f.board->find(at(2), true));
}

TEST_CASE("hit board: a new answer replaces the old one and withdraw removes it", "[cache]") {
  board_fixture f;
  f.publish(at(1), "old", false);
  f.now += 100s;
  f.publish(at(1), "new", false);
  auto hit = f.board->find(at(1), false);
  REQUIRE(hit);
  CHECK(*hit->body == "new");
  CHECK(hit->age == 0);
  // A body read before the replacement stays valid for its reader.
  f.publish(at(1), "newer", false);
  CHECK(*hit->body == "new");
  f.withdraw(at(1));
  CHECK_FALSE(f.board->find(at(1), false));
  CHECK(f.board->size() == 0);
}

TEST_CASE("hit board: the oldest answers go beyond the bounds of entries and bytes",
          "[cache]") {
  board_fixture f{2, 10};
  f.publish(at(1), "aaaa", false);
  f.publish(at(2), "bbbb", false);
  f.publish(at(3), "cccc", false);
  CHECK(f.board->size() == 2);
  CHECK_FALSE(f.board->find(at(1), false));
  CHECK(f.board->find(at(3), false));
  f.publish(at(4), "dddddddd", false);
  CHECK(f.board->size() == 1);
  CHECK(f.board->find(at(4), false));
}
