// Hourly aggregates: folding rows, what uptime means, the stored form and its decoder.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "core/history_hours.hpp"

#include "support/history_rows.hpp"
#include "support/rooms.hpp"
#include "support/dates.hpp"

using namespace netherscope::test;
using netherscope::test::check_row;

namespace {


} // namespace

TEST_CASE("hours: rows fold into one aggregate per UTC hour", "[history]") {
  REQUIRE(h0 % 3600 == 0);
  std::vector<history_row> rows{
    check_row(h0 + 3700, verdict_code::offline),
    check_row(h0 + 60, verdict_code::joinable, 4, 10),
    check_row(h0 + 120, verdict_code::joinable, 2, 10),
    check_row(h0 + 180, verdict_code::signalling_only, 6, 12),
    check_row(h0 + 240, verdict_code::offline),
    check_row(h0 + 3599, verdict_code::joinable, 0, 10),
  };
  auto hours = fold_hours(rows);
  REQUIRE(hours.size() == 2);
  auto& a = hours[0];
  CHECK(a.start == h0);
  CHECK(a.checks == 5);
  CHECK(a.online == 4);
  CHECK(a.joinable == 3);
  CHECK(a.player_samples == 4);
  CHECK(a.players_min == 0);
  CHECK(a.players_max == 6);
  CHECK(a.players_sum == 12);
  REQUIRE(a.players_avg());
  CHECK(*a.players_avg() == Approx(3.0));
  CHECK(a.max_players == std::optional<std::uint32_t>{12});
  CHECK(a.most_seen == verdict_code::joinable);
  // The peak, 6, was the check 180 s into the hour.
  CHECK(a.peak_offset == std::optional<std::uint16_t>{180});
  CHECK(a.peak_at() == std::optional<std::int64_t>{h0 + 180});
  auto& b = hours[1];
  CHECK(b.start == h0 + 3600);
  CHECK(b.checks == 1);
  CHECK(b.online == 0);
  CHECK_FALSE(b.players_avg());
  CHECK_FALSE(b.max_players);
  CHECK_FALSE(b.peak_offset);
  CHECK_FALSE(b.peak_at());
  CHECK(b.most_seen == verdict_code::offline);

  // The same rows in another order fold the same.
  std::mt19937 random{7};
  std::shuffle(rows.begin(), rows.end(), random);
  CHECK(fold_hours(rows) == hours);
  CHECK(fold_hours({}).empty());
}

TEST_CASE("hours: the verdict seen most breaks ties towards the smaller code", "[history]") {
  auto hours = fold_hours({check_row(h0, verdict_code::offline),
                           check_row(h0 + 1, verdict_code::refused),
                           check_row(h0 + 2, verdict_code::offline),
                           check_row(h0 + 3, verdict_code::refused)});
  REQUIRE(hours.size() == 1);
  CHECK(hours[0].most_seen == verdict_code::refused);
  hours = fold_hours({check_row(h0, verdict_code::offline),
                      check_row(h0 + 1, verdict_code::offline),
                      check_row(h0 + 2, verdict_code::joinable)});
  CHECK(hours[0].most_seen == verdict_code::offline);
}

TEST_CASE("hours: hour_start floors to UTC hours, before 1970 too", "[history]") {
  CHECK(hour_start(h0) == h0);
  CHECK(hour_start(h0 + 3599) == h0);
  CHECK(hour_start(h0 - 1) == h0 - 3600);
  CHECK(hour_start(-1) == -3600);
}

TEST_CASE("uptime: the share of checks joinable, and online apart", "[history]") {
  std::vector<history_row> rows{check_row(h0, verdict_code::joinable),
                                check_row(h0 + 60, verdict_code::signalling_only),
                                check_row(h0 + 120, verdict_code::raknet_only),
                                check_row(h0 + 180, verdict_code::offline)};
  auto u = uptime_of(rows);
  CHECK(u.checks == 4);
  CHECK(*u.joinable_share() == Approx(0.25));
  CHECK(*u.online_share() == Approx(0.75));
  CHECK_FALSE(uptime_of(std::vector<history_row>{}).joinable_share());

  // Hours weigh by their checks: 59 joinable of 60, then 0 of 1, is 59 of 61, not the mean
  // of 98.3% and 0%.
  history_hour full;
  full.start = h0;
  full.checks = 60;
  full.online = 60;
  full.joinable = 59;
  history_hour lone;
  lone.start = h0 + 3600;
  lone.checks = 1;
  auto weighed = uptime_of(std::vector<history_hour>{full, lone});
  CHECK(*weighed.joinable_share() == Approx(59.0 / 61.0));
  CHECK(*weighed.online_share() == Approx(60.0 / 61.0));
}

TEST_CASE("uptime: percentages round down to a tenth", "[history]") {
  CHECK(percent_text(1.0) == "100.0%");
  CHECK(percent_text(0.9996) == "99.9%");
  CHECK(percent_text(0.999) == "99.9%");
  CHECK(percent_text(0.5) == "50.0%");
  CHECK(percent_text(1.0 / 3.0) == "33.3%");
  CHECK(percent_text(0.0004) == "0.0%");
  CHECK(percent_text(0) == "0.0%");
}

TEST_CASE("hours: an aggregate survives encoding, and a corrupted one is refused", "[history]") {
  auto hours = fold_hours({check_row(h0, verdict_code::joinable, 4, 10),
                           check_row(h0 + 60, verdict_code::offline),
                           check_row(h0 + 120, verdict_code::joinable, 9, 20)});
  REQUIRE(hours.size() == 1);
  auto record = encode(hours[0]);
  REQUIRE(record.size() == history_hour_size);
  auto back = decode_history_hour(record);
  REQUIRE(back);
  CHECK(*back == hours[0]);

  for (std::size_t n = 0; n < record.size(); ++n)
    CHECK_FALSE(decode_history_hour(record.substr(0, n)));
  CHECK_FALSE(decode_history_hour(record + '\0'));

  auto with = [&](std::size_t offset, int byte) {
    auto r = record;
    r[offset] = static_cast<char>(byte);
    return r;
  };
  CHECK_FALSE(decode_history_hour(with(0, 3)));      // another version
  CHECK_FALSE(decode_history_hour(with(0, 1)));      // version 1 at version 2's size
  CHECK_FALSE(decode_history_hour(with(1, 0)));      // verdict 0
  CHECK_FALSE(decode_history_hour(with(2, 7)));      // an unknown flag
  CHECK_FALSE(decode_history_hour(with(2, 1)));      // samples, but no peak time
  CHECK_FALSE(decode_history_hour(with(41, 0x0e)));  // a peak 3,704 s into the hour
  CHECK_FALSE(decode_history_hour(with(4, 0)));      // no checks
  CHECK_FALSE(decode_history_hour(with(6, 4)));      // more online than checks
  CHECK_FALSE(decode_history_hour(with(8, 3)));      // more joinable than online
  CHECK_FALSE(decode_history_hour(with(10, 4)));     // more samples than checks
  CHECK_FALSE(decode_history_hour(with(12, 1)));     // a start off the hour
  CHECK_FALSE(decode_history_hour(with(20, 10)));    // least above greatest
  CHECK_FALSE(decode_history_hour(with(28, 40)));    // a sum above samples x greatest
  CHECK_FALSE(decode_history_hour(with(1, 2)));      // signalling_only seen most, never seen
  auto no_limit = with(2, 2);
  CHECK_FALSE(decode_history_hour(no_limit));        // no limit flag, a limit left
}

TEST_CASE("hours: the peak's time is that of its first check, and version 1 still reads",
          "[history]") {
  auto hours = fold_hours({check_row(h0 + 900, verdict_code::joinable, 7, 10),
                           check_row(h0 + 300, verdict_code::joinable, 7, 10),
                           check_row(h0 + 60, verdict_code::joinable, 3, 10)});
  REQUIRE(hours.size() == 1);
  CHECK(hours[0].players_max == 7);
  CHECK(hours[0].peak_at() == std::optional<std::int64_t>{h0 + 300});

  // A version 1 record is version 2's first 40 bytes with its version and peak flag cleared
  // (docs/WATCHES.md, "Hourly aggregates"): it reads the same, without the peak's time.
  auto v2 = encode(hours[0]);
  auto v1 = v2.substr(0, history_hour_v1_size);
  v1[0] = 1;
  v1[2] = static_cast<char>(v1[2] & ~2);
  auto old = decode_history_hour(v1);
  REQUIRE(old);
  CHECK_FALSE(old->peak_offset);
  auto expected = hours[0];
  expected.peak_offset.reset();
  CHECK(*old == expected);
  // Version 1 had no peak flag.
  auto flagged = v1;
  flagged[2] = static_cast<char>(flagged[2] | 2);
  CHECK_FALSE(decode_history_hour(flagged));
}

TEST_CASE("hours: decode accepts only what encode writes", "[history]") {
  auto hours = fold_hours({check_row(h0, verdict_code::joinable, 4, 10),
                           check_row(h0 + 60, verdict_code::offline),
                           check_row(h0 + 120, verdict_code::signalling_only, 9, 20)});
  auto record = encode(hours[0]);
  for (std::size_t byte = 0; byte < record.size(); ++byte)
    for (int bit = 0; bit < 8; ++bit) {
      auto r = record;
      r[byte] = static_cast<char>(r[byte] ^ (1 << bit));
      if (auto hour = decode_history_hour(r))
        CHECK(encode(*hour) == r);
    }
}
