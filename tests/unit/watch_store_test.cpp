// The watch store on both backends (LMDB in a temp dir, Redis on a real redis-server): the
// schedule keeps the transitions of net/api/watch_schedule's model, step for step, across two
// handles as two replicas would hold them; and each server's history is stored, folded into
// hours, pruned within its budget, and read back by range.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <random>

#include "net/api/watch_schedule.hpp"
#include "storage/watch_store.hpp"
#include "support/history_rows.hpp"
#include "support/redis_server.hpp"
#include "support/rooms.hpp"
#include "support/store.hpp"

using namespace netherscope::test;
using api::verdict_code;

namespace {

/// Two handles on one watch store of the backend asked for (on LMDB, the one object a
/// process may open), as two replicas would hold them.
struct watch_store_rig : backend_store {
  std::shared_ptr<storage::watch_store> one;
  std::shared_ptr<storage::watch_store> two;

  explicit watch_store_rig(const std::string& backend)
    : backend_store(backend),
      one(watching),
      two(redis ? open_redis(redis->url()).watching : watching) {
    REQUIRE(one);
    REQUIRE(two);
  }
};

bool same_claims(const std::vector<api::schedule_claim>& a,
                 const std::vector<api::schedule_claim>& b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].key != b[i].key || a[i].due_ms != b[i].due_ms
        || a[i].lease_until_ms != b[i].lease_until_ms || a[i].taken_from != b[i].taken_from)
      return false;
  return true;
}

// 2026-11-27T10:00:00Z in milliseconds.
constexpr std::int64_t t0_ms = 1'795'773'600'000;

} // namespace

TEST_CASE("watch store: the schedule follows the model's transitions on both backends",
          "[store][watch][schedule][redis]") {
  auto backend = GENERATE(as<std::string>{}, "lmdb", "redis");
  if (!backend_available(backend))
    return;
  INFO("backend " << backend);
  watch_store_rig rig{backend};
  api::watch_schedule model;
  std::vector<std::string> keys{"a.example|19132", "b.example|19132", "b.example|19133",
                                "10.0.0.1|7551", "c.example|1"};
  std::vector<std::int64_t> periods{2000, 5000, 60000};
  std::mt19937 draw{20261127};
  auto now = t0_ms;
  std::map<std::string, std::int64_t> wanted;
  // The outstanding claims, as owners hold them.
  std::vector<std::pair<std::string, api::schedule_claim>> held;
  for (int step = 0; step < 400; ++step) {
    INFO("step " << step);
    now += std::uniform_int_distribution<std::int64_t>{0, 1500}(draw);
    auto action = std::uniform_int_distribution<int>{0, 9}(draw);
    if (action == 0) {
      // The watches change: a server added, another's period changed, or one removed.
      auto& key = keys[std::uniform_int_distribution<std::size_t>{0, keys.size() - 1}(draw)];
      if (std::uniform_int_distribution<int>{0, 3}(draw) == 0)
        wanted.erase(key);
      else
        wanted[key] = periods[std::uniform_int_distribution<std::size_t>{0, 2}(draw)];
      std::vector<storage::scheduled_target> targets;
      for (auto& [k, p] : wanted) {
        targets.push_back({k, p});
        model.put(k, p, now);
      }
      for (const auto& k : model.keys())
        if (wanted.count(k) == 0)
          model.remove(k);
      auto gone = rig.one->sync_schedule(targets, now);
      REQUIRE(gone);
    } else if (action <= 5) {
      auto owner = action % 2 == 0 ? std::string{"replica-a"} : std::string{"replica-b"};
      auto& store = action % 2 == 0 ? *rig.one : *rig.two;
      auto expected = model.claim(owner, now, 3, 4000);
      auto claimed = store.claim_checks(owner, now, 3, 4000);
      REQUIRE(claimed);
      CHECK(same_claims(*claimed, expected));
      for (auto& c : *claimed)
        held.emplace_back(owner, c);
    } else if (!held.empty()) {
      auto i = std::uniform_int_distribution<std::size_t>{0, held.size() - 1}(draw);
      auto [owner, claim] = held[i];
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
      auto expected = model.complete(claim.key, owner, claim.due_ms, now);
      auto completed = rig.two->complete_check(claim.key, owner, claim.due_ms, now);
      REQUIRE(completed);
      CHECK(*completed == expected);
    }
  }
  // Far in the future every server is ready, in the model's order.
  auto late = now + 120000;
  auto all = rig.one->claim_checks("replica-c", late, 10, 1000);
  REQUIRE(all);
  CHECK(same_claims(*all, model.claim("replica-c", late, 10, 1000)));
  CHECK(all->size() == wanted.size());
}

TEST_CASE("watch store: history rows, hours, budget and removal on both backends",
          "[store][watch][history][redis]") {
  auto backend = GENERATE(as<std::string>{}, "lmdb", "redis");
  if (!backend_available(backend))
    return;
  INFO("backend " << backend);
  watch_store_rig rig{backend};
  const std::string key = "play.example.com|19132";
  const std::string other = "other.example|19132";
  auto budget = api::budget_for(60);
  auto hour = api::hour_start(t0_ms / 1000);

  SECTION("each check answers the one before it, and the hour is folded from the rows") {
    std::vector<api::history_row> rows{
      check_row(hour + 10, verdict_code::joinable, 3, 20),
      check_row(hour + 70, verdict_code::offline),
      check_row(hour + 130, verdict_code::signalling_only, 5, 20),
    };
    std::optional<api::history_row> before;
    for (auto& row : rows) {
      auto previous = rig.one->record_check(key, row, budget);
      REQUIRE(previous);
      CHECK(*previous == before);
      before = row;
    }
    // Another server's history is its own.
    REQUIRE(rig.one->record_check(other, check_row(hour + 20, verdict_code::offline), budget));
    auto read = rig.two->read_rows(key, hour, hour + 3600);
    REQUIRE(read);
    CHECK(*read == rows);
    auto window = rig.two->read_rows(key, hour + 70, hour + 130);
    REQUIRE(window);
    REQUIRE(window->size() == 1);
    CHECK(window->front() == rows[1]);
    auto hours = rig.two->read_hours(key, hour, hour + 3600);
    REQUIRE(hours);
    CHECK(*hours == api::fold_hours(rows));
    auto latest = rig.two->latest_checks({other, "none.example|1", key});
    REQUIRE(latest);
    REQUIRE(latest->size() == 3);
    CHECK((*latest)[0] == check_row(hour + 20, verdict_code::offline));
    CHECK_FALSE((*latest)[1]);
    CHECK((*latest)[2] == rows.back());

    // A week's slice: the stored hour, brought up to date by the rows.
    auto slice = storage::read_slice(*rig.two, key, api::history_range::week, hour + 200);
    REQUIRE(slice);
    CHECK(slice->hours == api::fold_hours(rows));
    auto day = storage::read_slice(*rig.two, key, api::history_range::day, hour + 200);
    REQUIRE(day);
    CHECK(day->rows == rows);
  }

  SECTION("rows beyond the budget and past 48 hours go, hours past 90 days go") {
    // A period of a day keeps two rows.
    auto small = api::budget_for(86400);
    REQUIRE(small.rows == 2);
    for (int i = 0; i < 5; ++i)
      REQUIRE(rig.one->record_check(key, check_row(hour + i * 60, verdict_code::joinable), small));
    auto kept = rig.one->read_rows(key, 0, hour + 86400);
    REQUIRE(kept);
    REQUIRE(kept->size() == 2);
    CHECK(kept->front().at == hour + 180);
    // 91 days later: the old rows and the old hour are pruned by time.
    auto later = hour + 91 * 86400;
    REQUIRE(rig.one->record_check(key, check_row(later, verdict_code::offline), budget));
    auto rows = rig.one->read_rows(key, 0, later + 1);
    REQUIRE(rows);
    REQUIRE(rows->size() == 1);
    CHECK(rows->front().at == later);
    auto hours = rig.one->read_hours(key, 0, later + 3600);
    REQUIRE(hours);
    REQUIRE(hours->size() == 1);
    CHECK(hours->front().start == api::hour_start(later));
  }

  SECTION("a check older than the latest answers the row before it and counts in the budget") {
    // A replica that ran late stores its check after a later one: the answer is the row
    // before its time, and the prune counts it with the later rows.
    auto small = api::budget_for(86400);
    REQUIRE(small.rows == 2);
    auto first = check_row(hour, verdict_code::joinable);
    auto last = check_row(hour + 120, verdict_code::offline);
    REQUIRE(rig.one->record_check(key, first, small));
    REQUIRE(rig.one->record_check(key, last, small));
    auto late = check_row(hour + 60, verdict_code::signalling_only, 2, 20);
    auto previous = rig.one->record_check(key, late, small);
    REQUIRE(previous);
    CHECK(*previous == first);
    auto kept = rig.two->read_rows(key, 0, hour + 3600);
    REQUIRE(kept);
    CHECK(*kept == std::vector<api::history_row>{late, last});
    // The same time again replaces its row: nothing more is pruned.
    auto again = check_row(hour + 120, verdict_code::joinable, 4, 20);
    previous = rig.one->record_check(key, again, small);
    REQUIRE(previous);
    CHECK(*previous == late);
    kept = rig.two->read_rows(key, 0, hour + 3600);
    REQUIRE(kept);
    CHECK(*kept == std::vector<api::history_row>{late, again});
  }

  SECTION("a server the schedule drops leaves with its history") {
    REQUIRE(rig.one->record_check(key, check_row(hour, verdict_code::joinable), budget));
    REQUIRE(rig.one->record_check(other, check_row(hour, verdict_code::joinable), budget));
    auto gone = rig.one->sync_schedule({{other, 60000}}, t0_ms);
    REQUIRE(gone);
    // The schedule never held key: only what it held leaves it.
    auto again = rig.one->sync_schedule({{key, 60000}, {other, 60000}}, t0_ms);
    REQUIRE(again);
    auto dropped = rig.one->sync_schedule({{other, 60000}}, t0_ms);
    REQUIRE(dropped);
    CHECK(*dropped == std::vector<std::string>{key});
    auto rows = rig.two->read_rows(key, 0, hour + 3600);
    REQUIRE(rows);
    CHECK(rows->empty());
    auto hours = rig.two->read_hours(key, 0, hour + 3600);
    REQUIRE(hours);
    CHECK(hours->empty());
    auto kept = rig.two->read_rows(other, 0, hour + 3600);
    REQUIRE(kept);
    CHECK(kept->size() == 1);
  }
}
