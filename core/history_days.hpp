// Days and whole ranges of a watched server's hourly aggregates, summed: the `days` list of
// GET /api/history for ranges of 7 days or more, and the players over a whole range
// (docs/WATCHES.md, "GET /api/history").
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/history_hours.hpp"

namespace netherscope::core {

/// Hours summed over a span (a UTC day, or a whole range).
struct history_span {
  /// The span's first second, Unix seconds: a day's start (a multiple of 86400), or a range's
  /// first hour.
  std::int64_t start = 0;
  std::uint64_t checks = 0;
  std::uint64_t online = 0;
  std::uint64_t joinable = 0;
  /// Checks that reported a player count, and those counts' least, greatest (the peak) and sum.
  std::uint64_t player_samples = 0;
  std::uint32_t players_min = 0;
  std::uint32_t players_max = 0;
  std::uint64_t players_sum = 0;
  /// When the peak was first seen; none without samples, or when the first hour holding it
  /// was stored before peaks had a time.
  std::optional<std::int64_t> peak_at;
  /// The greatest player limit reported, if any was.
  std::optional<std::uint32_t> max_players;

  /// The average player count over the checks that reported one; none without such checks.
  std::optional<double> players_avg() const;
};

/// The start of the UTC day holding a Unix time (floor to a multiple of 86400).
std::int64_t day_start(std::int64_t unix_seconds);

/// Sums hours, ordered by start, into one span per UTC day that holds at least one, ordered by
/// start.
std::vector<history_span> fold_days(const std::vector<history_hour>& hours);

/// Sums hours, ordered by start, into one span starting at the first; a span of nothing
/// (start 0, no checks) without hours.
history_span total_of(const std::vector<history_hour>& hours);

} // namespace netherscope::core
