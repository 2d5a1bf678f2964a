#include "core/history_hours.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "base/bytes.hpp"

namespace netherscope::core {

namespace {

constexpr std::uint8_t hour_version = 2;
constexpr std::uint8_t hour_version_1 = 1;
constexpr std::uint16_t hour_has_max_players = 1;
constexpr std::uint16_t hour_has_peak_offset = 2;
constexpr std::uint16_t most_checks = std::numeric_limits<std::uint16_t>::max();

/// Adds the rows of one hour (all with the same hour_start) to an aggregate.
history_hour fold_one(std::int64_t start, const history_row* first, const history_row* last) {
  history_hour hour;
  hour.start = start;
  std::array<std::uint32_t, 256> seen{};
  for (auto* row = first; row != last && hour.checks < most_checks; ++row) {
    ++hour.checks;
    ++seen[static_cast<std::uint8_t>(row->verdict)];
    if (is_online(row->verdict))
      ++hour.online;
    if (is_joinable(row->verdict))
      ++hour.joinable;
    if (row->players) {
      auto p = *row->players;
      hour.players_min = hour.player_samples == 0 ? p : std::min(hour.players_min, p);
      // Rows come in time order, so a strictly greater count marks the peak's first check.
      if (hour.player_samples == 0 || p > hour.players_max)
        hour.peak_offset = static_cast<std::uint16_t>(row->at - start);
      hour.players_max = std::max(hour.players_max, p);
      hour.players_sum += p;
      ++hour.player_samples;
    }
    if (row->max_players)
      hour.max_players = std::max(hour.max_players.value_or(0), *row->max_players);
  }
  // The first largest count is the smallest code: ties go to it.
  auto most = std::max_element(seen.begin(), seen.end());
  hour.most_seen = static_cast<verdict_code>(most - seen.begin());
  return hour;
}

std::optional<double> share(std::uint64_t part, std::uint64_t whole) {
  if (whole == 0)
    return std::nullopt;
  return static_cast<double>(part) / static_cast<double>(whole);
}

} // namespace

std::optional<double> history_hour::players_avg() const {
  return share(players_sum, player_samples);
}

std::optional<std::int64_t> history_hour::peak_at() const {
  if (!peak_offset)
    return std::nullopt;
  return start + *peak_offset;
}

bool history_hour::operator==(const history_hour& o) const {
  return start == o.start && checks == o.checks && online == o.online
         && joinable == o.joinable && player_samples == o.player_samples
         && players_min == o.players_min && players_max == o.players_max
         && players_sum == o.players_sum && peak_offset == o.peak_offset
         && max_players == o.max_players
         && most_seen == o.most_seen;
}

std::int64_t hour_start(std::int64_t unix_seconds) {
  return unix_seconds - ((unix_seconds % 3600) + 3600) % 3600;
}

std::vector<history_hour> fold_hours(std::vector<history_row> rows) {
  // A stable sort keeps rows of the same second in the order given, so the same rows always
  // fold the same way.
  std::stable_sort(rows.begin(), rows.end(),
                   [](const history_row& a, const history_row& b) { return a.at < b.at; });
  std::vector<history_hour> hours;
  for (std::size_t i = 0; i < rows.size();) {
    auto start = hour_start(rows[i].at);
    auto j = i;
    while (j < rows.size() && hour_start(rows[j].at) == start)
      ++j;
    hours.push_back(fold_one(start, rows.data() + i, rows.data() + j));
    i = j;
  }
  return hours;
}

std::string encode(const history_hour& hour) {
  std::string out;
  out.reserve(history_hour_size);
  out += static_cast<char>(hour_version);
  out += static_cast<char>(hour.most_seen);
  std::uint16_t flags = 0;
  if (hour.max_players)
    flags |= hour_has_max_players;
  if (hour.peak_offset)
    flags |= hour_has_peak_offset;
  base::put_le(out, flags);
  base::put_le(out, hour.checks);
  base::put_le(out, hour.online);
  base::put_le(out, hour.joinable);
  base::put_le(out, hour.player_samples);
  base::put_le(out, static_cast<std::uint64_t>(hour.start));
  base::put_le(out, hour.players_min);
  base::put_le(out, hour.players_max);
  base::put_le(out, hour.players_sum);
  base::put_le(out, hour.max_players.value_or(0));
  base::put_le(out, hour.peak_offset.value_or(0));
  return out;
}

std::optional<history_hour> decode_history_hour(std::string_view in) {
  auto version = in.empty() ? 0 : static_cast<std::uint8_t>(in[0]);
  if (!(version == hour_version && in.size() == history_hour_size)
      && !(version == hour_version_1 && in.size() == history_hour_v1_size))
    return std::nullopt;
  history_hour hour;
  auto code = verdict_from_byte(static_cast<std::uint8_t>(in[1]));
  if (!code)
    return std::nullopt;
  hour.most_seen = *code;
  in.remove_prefix(2);
  std::uint16_t flags = 0;
  std::uint64_t start = 0;
  std::uint32_t max_players = 0;
  // The size was checked above, so every read succeeds.
  base::take_le(in, flags);
  base::take_le(in, hour.checks);
  base::take_le(in, hour.online);
  base::take_le(in, hour.joinable);
  base::take_le(in, hour.player_samples);
  base::take_le(in, start);
  base::take_le(in, hour.players_min);
  base::take_le(in, hour.players_max);
  base::take_le(in, hour.players_sum);
  base::take_le(in, max_players);
  std::uint16_t peak_offset = 0;
  if (version == hour_version)
    base::take_le(in, peak_offset);

  auto known_flags = version == hour_version ? (hour_has_max_players | hour_has_peak_offset)
                                             : hour_has_max_players;
  if ((flags & ~known_flags) != 0 || (!(flags & hour_has_max_players) && max_players != 0))
    return std::nullopt;
  // Version 2 gives the peak a time exactly when the hour has player samples.
  if (version == hour_version) {
    bool has_peak = (flags & hour_has_peak_offset) != 0;
    if (has_peak != (hour.player_samples != 0) || (!has_peak && peak_offset != 0)
        || peak_offset >= 3600)
      return std::nullopt;
    if (has_peak)
      hour.peak_offset = peak_offset;
  }
  if (flags & hour_has_max_players)
    hour.max_players = max_players;
  if (start > static_cast<std::uint64_t>(INT64_MAX) || start % 3600 != 0)
    return std::nullopt;
  hour.start = static_cast<std::int64_t>(start);
  if (hour.checks == 0 || hour.online > hour.checks || hour.joinable > hour.online
      || hour.player_samples > hour.checks)
    return std::nullopt;
  // The verdict seen most was seen at least once, so its class has a check.
  auto c = class_of(hour.most_seen);
  if ((c == verdict_class::joinable && hour.joinable == 0)
      || (c == verdict_class::up && hour.online == hour.joinable)
      || (c == verdict_class::offline && hour.online == hour.checks))
    return std::nullopt;
  if (hour.player_samples == 0) {
    if (hour.players_min != 0 || hour.players_max != 0 || hour.players_sum != 0)
      return std::nullopt;
  } else {
    auto n = static_cast<std::uint64_t>(hour.player_samples);
    if (hour.players_min > hour.players_max || hour.players_sum < n * hour.players_min
        || hour.players_sum > n * hour.players_max)
      return std::nullopt;
  }
  return hour;
}

std::optional<double> uptime::joinable_share() const {
  return share(joinable, checks);
}

std::optional<double> uptime::online_share() const {
  return share(online, checks);
}

uptime uptime_of(const std::vector<history_row>& rows) {
  uptime u;
  for (const auto& row : rows) {
    ++u.checks;
    u.online += is_online(row.verdict) ? 1 : 0;
    u.joinable += is_joinable(row.verdict) ? 1 : 0;
  }
  return u;
}

uptime uptime_of(const std::vector<history_hour>& hours) {
  uptime u;
  for (const auto& hour : hours) {
    u.checks += hour.checks;
    u.online += hour.online;
    u.joinable += hour.joinable;
  }
  return u;
}

std::string percent_text(double share) {
  // Tenths of a percent, rounded down; the small offset keeps 0.999 (a double a little under
  // it) from reading 99.8.
  auto tenths = static_cast<long long>(std::floor(share * 1000.0 + 1e-9));
  tenths = std::clamp(tenths, 0LL, 1000LL);
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "%";
}

} // namespace netherscope::core
