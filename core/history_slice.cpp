#include "core/history_slice.hpp"

#include <algorithm>
#include <array>

namespace netherscope::core {

namespace {

struct range_row {
  history_range range;
  std::string_view name;
  std::int64_t seconds;
  std::int64_t cell;
};

constexpr std::int64_t hour = 3600;
constexpr std::int64_t day = 24 * hour;

constexpr std::array<range_row, 4> ranges{{
  {history_range::day, "24h", day, 15 * 60},
  {history_range::week, "7d", 7 * day, 2 * hour},
  {history_range::month, "30d", 30 * day, 6 * hour},
  {history_range::quarter, "90d", 90 * day, day},
}};

const range_row& row_of(history_range range) {
  for (const auto& row : ranges)
    if (row.range == range)
      return row;
  return ranges[0];
}

} // namespace

std::optional<history_range> parse_range(std::string_view text) {
  for (const auto& row : ranges)
    if (row.name == text)
      return row.range;
  return std::nullopt;
}

std::string_view to_string(history_range range) {
  return row_of(range).name;
}

std::optional<chart_metric> parse_chart_metric(std::string_view text) {
  if (text == "verdicts")
    return chart_metric::verdicts;
  if (text == "players")
    return chart_metric::players;
  return std::nullopt;
}

std::int64_t range_seconds(history_range range) {
  return row_of(range).seconds;
}

bool uses_hours(history_range range) {
  return range != history_range::day;
}

std::int64_t cell_seconds(history_range range) {
  return row_of(range).cell;
}

std::size_t cell_count(history_range range) {
  return static_cast<std::size_t>(range_seconds(range) / cell_seconds(range));
}

history_window window_for(history_range range, std::int64_t now) {
  auto cell = cell_seconds(range);
  auto cell_start = now - ((now % cell) + cell) % cell;
  history_window w;
  w.to = cell_start + cell;
  w.from = w.to - range_seconds(range);
  return w;
}

bool empty(const history_slice& slice) {
  return uses_hours(slice.range) ? slice.hours.empty() : slice.rows.empty();
}

uptime uptime_of(const history_slice& slice) {
  return uses_hours(slice.range) ? uptime_of(slice.hours) : uptime_of(slice.rows);
}

std::vector<history_hour> with_recent_hours(std::vector<history_hour> stored,
                                            const std::vector<history_row>& recent_rows) {
  for (auto& folded : fold_hours(recent_rows)) {
    auto same = std::find_if(stored.begin(), stored.end(), [&](const history_hour& h) {
      return h.start == folded.start;
    });
    if (same != stored.end())
      *same = folded;
    else
      stored.push_back(folded);
  }
  std::sort(stored.begin(), stored.end(),
            [](const history_hour& a, const history_hour& b) { return a.start < b.start; });
  return stored;
}

} // namespace netherscope::core
