// Hours summed into UTC days and whole ranges: checks, players and the peak's first sight.
#include <catch2/catch.hpp>

#include "core/history_days.hpp"

#include "support/dates.hpp"
#include "support/history_rows.hpp"

namespace core = netherscope::core;
using core::verdict_code;
using netherscope::test::check_row;
using netherscope::test::h0;

TEST_CASE("days: hours fold into one span per UTC day, the peak at its first sight",
          "[history]") {
  auto day0 = core::day_start(h0);
  REQUIRE(day0 % 86400 == 0);
  REQUIRE(day0 <= h0);
  CHECK(core::day_start(day0 - 1) == day0 - 86400);
  CHECK(core::day_start(-1) == -86400);

  std::vector<core::history_hour> hours;
  for (auto rows : {std::vector<core::history_row>{check_row(day0 + 60, verdict_code::joinable, 5, 20)},
                    std::vector<core::history_row>{check_row(day0 + 7200 + 30, verdict_code::joinable, 9, 20),
                                                   check_row(day0 + 7200 + 90, verdict_code::offline)},
                    std::vector<core::history_row>{check_row(day0 + 10800 + 45, verdict_code::joinable, 9, 25)},
                    std::vector<core::history_row>{check_row(day0 + 86400 + 5, verdict_code::signalling_only, 2, 20)}})
    hours.push_back(core::fold_hours(rows).at(0));

  auto days = core::fold_days(hours);
  REQUIRE(days.size() == 2);
  CHECK(days[0].start == day0);
  CHECK(days[0].checks == 4);
  CHECK(days[0].online == 3);
  CHECK(days[0].joinable == 3);
  CHECK(days[0].player_samples == 3);
  CHECK(days[0].players_min == 5);
  CHECK(days[0].players_max == 9);
  CHECK(*days[0].players_avg() == Approx(23.0 / 3.0));
  // Two hours reached 9; the peak is the earlier one's check.
  CHECK(days[0].peak_at == std::optional<std::int64_t>{day0 + 7200 + 30});
  CHECK(days[0].max_players == std::optional<std::uint32_t>{25});
  CHECK(days[1].start == day0 + 86400);
  CHECK(days[1].joinable == 0);
  CHECK(days[1].peak_at == std::optional<std::int64_t>{day0 + 86400 + 5});

  auto total = core::total_of(hours);
  CHECK(total.start == day0);
  CHECK(total.checks == 5);
  CHECK(total.players_max == 9);
  CHECK(total.peak_at == days[0].peak_at);

  auto nothing = core::total_of({});
  CHECK(nothing.checks == 0);
  CHECK_FALSE(nothing.players_avg());
  CHECK_FALSE(nothing.peak_at);
  CHECK(core::fold_days({}).empty());
}

TEST_CASE("days: a span of hours without players has no figures", "[history]") {
  auto hours = core::fold_hours({check_row(h0, verdict_code::offline),
                                 check_row(h0 + 3600, verdict_code::offline)});
  auto total = core::total_of(hours);
  CHECK(total.checks == 2);
  CHECK(total.online == 0);
  CHECK(total.player_samples == 0);
  CHECK_FALSE(total.players_avg());
  CHECK_FALSE(total.peak_at);
  CHECK_FALSE(total.max_players);
}
