// Hourly aggregates of a watched server's checks, folded from its history rows by a pure
// function, their stored form (a versioned fixed-width record, history_hour_size bytes), and
// uptime: the shares of checks that were joinable and online (docs/WATCHES.md, "Hourly
// aggregates" and "Uptime").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/history_row.hpp"
#include "core/verdict_codes.hpp"

namespace netherscope::core {

/// The size of an hour as encode writes it (record version 2), in bytes.
inline constexpr std::size_t history_hour_size = 42;

/// The size of an hour stored by record version 1, which had no peak time; still read.
inline constexpr std::size_t history_hour_v1_size = 40;

/// The checks of one UTC hour, summed.
struct history_hour {
  /// The hour's first second (a multiple of 3600), Unix seconds.
  std::int64_t start = 0;
  /// Checks in the hour, those whose verdict is online, and those whose verdict is joinable
  /// (so joinable <= online <= checks). Each stops at 65535.
  std::uint16_t checks = 0;
  std::uint16_t online = 0;
  std::uint16_t joinable = 0;
  /// Checks that reported a player count, and those counts' least, greatest and sum.
  std::uint16_t player_samples = 0;
  std::uint32_t players_min = 0;
  std::uint32_t players_max = 0;
  std::uint64_t players_sum = 0;
  /// Seconds into the hour of the first check that reported players_max (the peak); none
  /// without player samples, or for an hour stored before peaks had a time.
  std::optional<std::uint16_t> peak_offset;
  /// The greatest player limit reported in the hour, if any was.
  std::optional<std::uint32_t> max_players;
  /// The verdict most checks had; a tie goes to the smaller code (verdict_codes.hpp).
  verdict_code most_seen = verdict_code::offline;

  /// The average player count over the checks that reported one; none without such checks.
  std::optional<double> players_avg() const;
  /// When the peak was first seen, Unix seconds; none when peak_offset is.
  std::optional<std::int64_t> peak_at() const;

  bool operator==(const history_hour& o) const;
};

/// The start of the UTC hour holding a Unix time (floor to a multiple of 3600).
std::int64_t hour_start(std::int64_t unix_seconds);

/// Folds rows, in any order, into one aggregate per hour that holds at least one row, ordered
/// by start. The same rows always give the same hours, so folding an hour again (a late row,
/// another replica) writes the same record.
std::vector<history_hour> fold_hours(std::vector<history_row> rows);

/// The stored form of an hour: history_hour_size bytes, record version 2 (layout in
/// docs/WATCHES.md).
std::string encode(const history_hour& hour);

/// Reads a stored hour of version 2 or 1 (which leaves peak_offset empty); nullopt for
/// anything encode could not have written from fold_hours' output: another size or version,
/// an unknown verdict, unknown flag bits, no checks, an unaligned or negative start, counts
/// out of order, player figures that cannot be, or a peak time outside the hour.
std::optional<history_hour> decode_history_hour(std::string_view record);

/// Checks summed over a time range.
struct uptime {
  std::uint64_t checks = 0;
  std::uint64_t online = 0;
  std::uint64_t joinable = 0;

  /// Joinable checks over all checks (each check weighs the same, whatever its hour); none
  /// without checks.
  std::optional<double> joinable_share() const;
  /// Online checks over all checks; none without checks.
  std::optional<double> online_share() const;
};

/// The uptime of rows.
uptime uptime_of(const std::vector<history_row>& rows);

/// The uptime of hours (their checks summed, so an hour of 60 checks weighs 60 times one of 1).
uptime uptime_of(const std::vector<history_hour>& hours);

/// A share as the chart and title write it: percent with one decimal, rounded down, so
/// "100.0%" only when every check counted ("99.9%" for 0.9996).
std::string percent_text(double share);

} // namespace netherscope::core
