// The ranges GET /api/history and /chart.svg show (24h, 7d, 30d, 90d), the time window each
// covers at a given moment, and the history that falls in it: raw rows for 24h, hourly
// aggregates for the longer ranges (docs/WATCHES.md, "Ranges").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/history_hours.hpp"
#include "core/history_row.hpp"

namespace netherscope::core {

/// A range of history.
enum class history_range : std::uint8_t {
  /// The last 24 hours, check by check.
  day,
  /// The last 7 days, hour by hour.
  week,
  /// The last 30 days, hour by hour.
  month,
  /// The last 90 days, hour by hour.
  quarter,
};

/// The range a query names: exactly "24h", "7d", "30d" or "90d"; nullopt otherwise.
std::optional<history_range> parse_range(std::string_view text);

/// The range as the query writes it: "24h", "7d", "30d", "90d".
std::string_view to_string(history_range range);

/// What /chart.svg draws under its title.
enum class chart_metric : std::uint8_t {
  /// The uptime band by verdict class over the players' peaks (the default).
  verdicts,
  /// The players alone: each hour's average and peak.
  players,
};

/// The metric a query names: exactly "verdicts" or "players"; nullopt otherwise.
std::optional<chart_metric> parse_chart_metric(std::string_view text);

/// How long the range is, in seconds.
std::int64_t range_seconds(history_range range);

/// Whether the range is shown from hourly aggregates rather than raw rows (all but 24h).
bool uses_hours(history_range range);

/// The width of one cell of the chart's uptime band, in seconds: 15 minutes for 24h (96
/// cells), 2 hours for 7d (84), 6 hours for 30d (120), a day for 90d (90). Windows end on a
/// cell boundary, so cells stay put between renders.
std::int64_t cell_seconds(history_range range);

/// The cells of the range's band: range_seconds / cell_seconds.
std::size_t cell_count(history_range range);

/// A span of time: from <= t < to, Unix seconds.
struct history_window {
  std::int64_t from = 0;
  std::int64_t to = 0;
};

/// The window a range covers at now: it ends at the end of the cell holding now (UTC cell
/// boundaries, multiples of cell_seconds) and is range_seconds long.
history_window window_for(history_range range, std::int64_t now);

/// One range of a watched server's history, as the store returned it for a window.
struct history_slice {
  history_range range = history_range::day;
  history_window window;
  /// For 24h: the rows with at in the window, in ascending order.
  std::vector<history_row> rows;
  /// For the other ranges: the hours with start in the window, in ascending order.
  std::vector<history_hour> hours;
};

/// A watched server's slice with the server it is of, as the edge renders it (the history
/// JSON or the chart).
struct history_view {
  std::string host;
  std::uint16_t port = 0;
  /// Whether some watch of the server is public.
  bool is_public = false;
  history_slice slice;
};

/// A watched server and its latest check, as the exporter shows it.
struct watched_check {
  std::string host;
  std::uint16_t port = 0;
  history_row last;
};

/// Whether the slice holds no check at all.
bool empty(const history_slice& slice);

/// The slice's checks summed (its rows or its hours, as its range uses).
uptime uptime_of(const history_slice& slice);

/// Stored hours brought up to date with recent rows: the rows are folded (fold_hours), and
/// each folded hour takes the place of a stored hour with the same start or is added. Pass
/// rows of whole hours the raw retention still holds (the previous and the current hour),
/// so the current, still open hour shows before it is stored. Ordered by start.
std::vector<history_hour> with_recent_hours(std::vector<history_hour> stored,
                                            const std::vector<history_row>& recent_rows);

} // namespace netherscope::core
