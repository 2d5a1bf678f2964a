#include "core/history_days.hpp"

#include <algorithm>

namespace netherscope::core {

namespace {

constexpr std::int64_t day_seconds = 86400;

/// Adds an hour to a span. Hours come in time order, so a strictly greater peak is the
/// span's first sight of it.
void add(history_span& span, const history_hour& hour) {
  span.checks += hour.checks;
  span.online += hour.online;
  span.joinable += hour.joinable;
  if (hour.max_players)
    span.max_players = std::max(span.max_players.value_or(0), *hour.max_players);
  if (hour.player_samples == 0)
    return;
  if (span.player_samples == 0 || hour.players_max > span.players_max) {
    span.players_max = hour.players_max;
    span.peak_at = hour.peak_at();
  }
  span.players_min =
    span.player_samples == 0 ? hour.players_min : std::min(span.players_min, hour.players_min);
  span.player_samples += hour.player_samples;
  span.players_sum += hour.players_sum;
}

} // namespace

std::optional<double> history_span::players_avg() const {
  if (player_samples == 0)
    return std::nullopt;
  return static_cast<double>(players_sum) / static_cast<double>(player_samples);
}

std::int64_t day_start(std::int64_t unix_seconds) {
  return unix_seconds - ((unix_seconds % day_seconds) + day_seconds) % day_seconds;
}

std::vector<history_span> fold_days(const std::vector<history_hour>& hours) {
  std::vector<history_span> days;
  for (const auto& hour : hours) {
    auto start = day_start(hour.start);
    if (days.empty() || days.back().start != start) {
      days.emplace_back();
      days.back().start = start;
    }
    add(days.back(), hour);
  }
  return days;
}

history_span total_of(const std::vector<history_hour>& hours) {
  history_span span;
  if (!hours.empty())
    span.start = hours.front().start;
  for (const auto& hour : hours)
    add(span, hour);
  return span;
}

} // namespace netherscope::core
