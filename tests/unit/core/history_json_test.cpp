// Ranges, windows and the body of GET /api/history.
#include <catch2/catch.hpp>

#include <boost/json.hpp>

#include "core/history_json.hpp"
#include "core/history_slice.hpp"

#include "support/history_rows.hpp"
#include "support/rooms.hpp"
#include "support/dates.hpp"

using namespace netherscope::test;
using netherscope::test::check_row;
namespace json = boost::json;

namespace {


} // namespace

TEST_CASE("history ranges: names, lengths and band cells", "[history]") {
  CHECK(parse_range("24h") == history_range::day);
  CHECK(parse_range("7d") == history_range::week);
  CHECK(parse_range("30d") == history_range::month);
  CHECK(parse_range("90d") == history_range::quarter);
  CHECK_FALSE(parse_range("24H"));
  CHECK_FALSE(parse_range("1d"));
  CHECK_FALSE(parse_range(""));
  for (auto r : {history_range::day, history_range::week, history_range::month,
                 history_range::quarter}) {
    CHECK(parse_range(to_string(r)) == r);
    CHECK(range_seconds(r) % cell_seconds(r) == 0);
  }
  CHECK(cell_count(history_range::day) == 96);
  CHECK(cell_count(history_range::week) == 84);
  CHECK(cell_count(history_range::month) == 120);
  CHECK(cell_count(history_range::quarter) == 90);
  CHECK_FALSE(uses_hours(history_range::day));
  CHECK(uses_hours(history_range::quarter));
}

TEST_CASE("history ranges: a window ends at the end of the cell holding now", "[history]") {
  auto w = window_for(history_range::day, h0 + 100);
  CHECK(w.to == h0 + 900);
  CHECK(w.from == h0 + 900 - 86400);
  // On a boundary, now opens the next cell.
  CHECK(window_for(history_range::day, h0).to == h0 + 900);
  auto q = window_for(history_range::quarter, h0 + 100);
  CHECK(q.to % 86400 == 0);
  CHECK(q.to > h0 + 100);
  CHECK(q.to - q.from == 90 * 86400);
}

TEST_CASE("history slices: recent rows bring stored hours up to date", "[history]") {
  auto stored = fold_hours({check_row(h0 - 7200, verdict_code::joinable),
                            check_row(h0 - 3600, verdict_code::offline)});
  // The previous hour, stored while it was open, has a check more by now; the current hour
  // is not stored yet.
  auto recent = std::vector<history_row>{check_row(h0 - 3600, verdict_code::offline),
                                         check_row(h0 - 60, verdict_code::joinable),
                                         check_row(h0 + 30, verdict_code::joinable)};
  auto hours = with_recent_hours(stored, recent);
  REQUIRE(hours.size() == 3);
  CHECK(hours[0].start == h0 - 7200);
  CHECK(hours[1].start == h0 - 3600);
  CHECK(hours[1].checks == 2);
  CHECK(hours[2].start == h0);
  CHECK(hours[2].joinable == 1);
}

TEST_CASE("history JSON: 24h gives one point per check, with the uptime", "[history]") {
  history_slice slice;
  slice.range = history_range::day;
  slice.window = window_for(slice.range, h0 + 200);
  auto full = check_row(h0, verdict_code::joinable, 3);
  full.max_players = 10;
  full.version = "1.21.50";
  full.nethernet_us = 12345;
  full.offer_us = 80500;
  full.candidates = {4, 3, 1, 1};
  full.key_id = 0xabcdef0123456789ULL;
  slice.rows = {full, check_row(h0 + 60, verdict_code::signalling_only, 5),
                check_row(h0 + 120, verdict_code::offline),
                check_row(h0 + 180, verdict_code::joinable, 1)};
  auto body = json::parse(render_history("play.example.com", 19132, slice)).as_object();
  CHECK(body.at("ok") == true);
  CHECK(body.at("host") == "play.example.com");
  CHECK(body.at("port") == 19132);
  CHECK(body.at("range") == "24h");
  CHECK(body.at("from") == slice.window.from);
  CHECK(body.at("to") == slice.window.to);
  CHECK(body.at("resolution") == "check");
  auto& uptime = body.at("uptime").as_object();
  CHECK(uptime.at("checks") == 4);
  CHECK(uptime.at("joinable").as_double() == Approx(0.5));
  CHECK(uptime.at("online").as_double() == Approx(0.75));
  auto& players = body.at("players").as_object();
  CHECK(players.at("min") == 1);
  CHECK(players.at("max") == 5);
  CHECK(players.at("avg").as_double() == Approx(3.0));
  CHECK(players.at("maxPlayers") == 10);
  CHECK(players.at("peak") == 5);
  CHECK(players.at("peakAt") == h0 + 60);
  // Days are for the hourly ranges only.
  CHECK_FALSE(body.contains("days"));

  auto& points = body.at("points").as_array();
  REQUIRE(points.size() == 4);
  auto& p = points[0].as_object();
  CHECK(p.at("at") == h0);
  CHECK(p.at("verdict") == "joinable");
  CHECK(p.at("class") == "joinable");
  CHECK(p.at("players") == 3);
  CHECK(p.at("maxPlayers") == 10);
  CHECK(p.at("playersFrom") == "nethernet");
  CHECK(p.at("version") == "1.21.50");
  CHECK(p.at("latencyMs").at("nethernet").as_double() == Approx(12.345));
  CHECK(p.at("latencyMs").at("raknet").is_null());
  CHECK(p.at("latencyMs").at("offer").as_double() == Approx(80.5));
  CHECK(p.at("raknetChecked") == false);
  CHECK(p.at("candidates").at("forPlayers") == 3);
  CHECK(p.at("candidates").at("public") == 1);
  CHECK(p.at("keyId") == "abcdef0123456789");
  auto& off = points[2].as_object();
  CHECK(off.at("class") == "offline");
  CHECK(off.at("players").is_null());
  CHECK(off.at("playersFrom").is_null());
  CHECK(off.at("version").is_null());
  CHECK(off.at("keyId").is_null());
  CHECK(points[1].at("class") == "up");
}

TEST_CASE("history JSON: longer ranges give one point per hour, and no checks give nulls",
          "[history]") {
  history_slice slice;
  slice.range = history_range::week;
  slice.window = window_for(slice.range, h0 + 7200);
  auto first = fold_hours({check_row(h0, verdict_code::joinable, 4),
                           check_row(h0 + 60, verdict_code::offline),
                           check_row(h0 + 120, verdict_code::joinable, 8)});
  auto second = fold_hours({check_row(h0 + 3600, verdict_code::offline)});
  slice.hours = {first[0], second[0]};
  auto body = json::parse(render_history("203.0.113.7", 19132, slice)).as_object();
  CHECK(body.at("resolution") == "hour");
  CHECK(body.at("range") == "7d");
  CHECK(body.at("uptime").at("checks") == 4);
  CHECK(body.at("uptime").at("joinable").as_double() == Approx(0.5));
  auto& points = body.at("points").as_array();
  REQUIRE(points.size() == 2);
  CHECK(points[0].at("at") == h0);
  CHECK(points[0].at("checks") == 3);
  CHECK(points[0].at("online") == 2);
  CHECK(points[0].at("joinable") == 2);
  CHECK(points[0].at("verdict") == "joinable");
  CHECK(points[0].at("players").at("avg").as_double() == Approx(6.0));
  CHECK(points[0].at("players").at("peak") == 8);
  CHECK(points[0].at("players").at("peakAt") == h0 + 120);
  CHECK(points[1].at("players").is_null());
  CHECK(points[1].at("class") == "offline");
  auto& days = body.at("days").as_array();
  REQUIRE(days.size() == 1);
  CHECK(days[0].at("at") == h0 - h0 % 86400);
  CHECK(days[0].at("checks") == 4);
  CHECK(days[0].at("joinable") == 2);
  CHECK(days[0].at("players").at("peak") == 8);
  CHECK(days[0].at("players").at("peakAt") == h0 + 120);

  history_slice none;
  none.range = history_range::quarter;
  none.window = window_for(none.range, h0);
  auto empty_body = json::parse(render_history("203.0.113.7", 19132, none)).as_object();
  CHECK(empty_body.at("uptime").at("checks") == 0);
  CHECK(empty_body.at("uptime").at("joinable").is_null());
  CHECK(empty_body.at("uptime").at("online").is_null());
  CHECK(empty_body.at("players").is_null());
  CHECK(empty_body.at("points").as_array().empty());
  CHECK(empty_body.at("days").as_array().empty());
}

TEST_CASE("history JSON: a month's days each give their own peak, and an old hour's has no time",
          "[history]") {
  auto day0 = h0 - h0 % 86400;
  history_slice slice;
  slice.range = history_range::month;
  slice.window = window_for(slice.range, day0 + 3 * 86400);
  auto monday = fold_hours({check_row(day0 + 3600 + 10, verdict_code::joinable, 12),
                            check_row(day0 + 3600 + 70, verdict_code::joinable, 12)});
  auto monday_late = fold_hours({check_row(day0 + 20 * 3600 + 5, verdict_code::joinable, 9)});
  // An hour stored by record version 1 knows its peak but not when it was.
  auto tuesday = fold_hours({check_row(day0 + 86400 + 600, verdict_code::joinable, 30)});
  tuesday[0].peak_offset.reset();
  auto tuesday_late = fold_hours({check_row(day0 + 86400 + 7200, verdict_code::offline)});
  slice.hours = {monday[0], monday_late[0], tuesday[0], tuesday_late[0]};
  auto body = json::parse(render_history("203.0.113.7", 19132, slice)).as_object();
  auto& days = body.at("days").as_array();
  REQUIRE(days.size() == 2);
  CHECK(days[0].at("at") == day0);
  CHECK(days[0].at("checks") == 3);
  CHECK(days[0].at("players").at("peak") == 12);
  CHECK(days[0].at("players").at("peakAt") == day0 + 3600 + 10);
  CHECK(days[0].at("players").at("min") == 9);
  CHECK(days[0].at("players").at("avg").as_double() == Approx(11.0));
  CHECK(days[1].at("at") == day0 + 86400);
  CHECK(days[1].at("checks") == 2);
  CHECK(days[1].at("online") == 1);
  CHECK(days[1].at("players").at("peak") == 30);
  CHECK(days[1].at("players").at("peakAt").is_null());
  // The range's peak is Tuesday's.
  CHECK(body.at("players").at("peak") == 30);
  CHECK(body.at("players").at("peakAt").is_null());
  CHECK(body.at("points").as_array()[2].at("players").at("peakAt").is_null());
}
