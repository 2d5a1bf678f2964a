// Retention: the budget per watched server, and a prune applied after each write that holds it
// while checks arrive late, early and for days.
#include <catch2/catch.hpp>

#include <random>

#include "core/history_hours.hpp"
#include "core/history_retention.hpp"
#include "core/history_row.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

TEST_CASE("retention: the budget follows the period", "[history]") {
  auto at_60 = budget_for(60);
  CHECK(at_60.rows == 2880);
  CHECK(at_60.hours == 2160);
  CHECK(at_60.record_bytes() == 2880 * history_row_size + 2160 * history_hour_size);
  CHECK(budget_for(budget_period_seconds).rows == 2880);
  CHECK(budget_for(300).rows == 576);
  // Rounded up: 48 hours at 7 s hold 24,685.7 periods.
  CHECK(budget_for(7).rows == 24686);
  CHECK(budget_for(0).rows == 48 * 3600);
  CHECK(budget_for(-5).rows == 48 * 3600);
}

TEST_CASE("retention: entries older than the rule, or beyond its count, go first",
          "[history]") {
  std::vector<std::int64_t> times{100, 200, 300, 400, 500};
  CHECK(entries_to_drop(times, {0, 10}) == 0);
  CHECK(entries_to_drop(times, {300, 10}) == 2);  // 300 itself is kept
  CHECK(entries_to_drop(times, {301, 10}) == 3);
  CHECK(entries_to_drop(times, {0, 2}) == 3);
  CHECK(entries_to_drop(times, {250, 4}) == 2);
  CHECK(entries_to_drop(times, {250, 1}) == 4);
  CHECK(entries_to_drop(times, {1000, 10}) == 5);
  CHECK(entries_to_drop({}, {1000, 0}) == 0);
}

TEST_CASE("retention: pruning after each write holds the budget for days of checks",
          "[history]") {
  // A server checked every 60 s, each check finishing 0 to 20 s after its slot, for five
  // days; the rule is applied after every write, as the store does.
  auto budget = budget_for(60);
  std::mt19937 random{48};
  std::vector<std::int64_t> rows;
  std::int64_t start = 1760000400;
  std::size_t most = 0;
  for (std::int64_t slot = start; slot < start + 5 * 86400; slot += 60) {
    auto now = slot + static_cast<std::int64_t>(random() % 21);
    rows.push_back(now);
    auto drop = entries_to_drop(rows, rows_rule(now, budget));
    rows.erase(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(drop));
    most = std::max(most, rows.size());
    REQUIRE(rows.front() >= now - rows_kept_seconds);
  }
  CHECK(most <= budget.rows);
  // Two days of checks are kept, give or take the one a late check pushes out.
  CHECK(rows.size() >= budget.rows - 1);

  std::vector<std::int64_t> hours;
  for (std::int64_t h = start; h < start + 100 * 86400; h += 3600) {
    hours.push_back(h);
    auto drop = entries_to_drop(hours, hours_rule(h + 3600, budget));
    hours.erase(hours.begin(), hours.begin() + static_cast<std::ptrdiff_t>(drop));
    REQUIRE(hours.size() <= budget.hours);
    REQUIRE(hours.front() >= h + 3600 - hours_kept_seconds);
  }
  CHECK(hours.size() == budget.hours);
}
