#include "core/history_json.hpp"

#include <cmath>

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>

#include "core/api_json.hpp"

namespace netherscope::core {

namespace json = boost::json;

namespace {

json::value optional_ms(const std::optional<std::uint32_t>& us) {
  return us ? json::value(static_cast<double>(*us) / 1000.0) : json::value(nullptr);
}

json::value rounded_share(const std::optional<double>& share) {
  return share ? json::value(std::round(*share * 10000.0) / 10000.0) : json::value(nullptr);
}

json::value rounded_avg(double avg) {
  return std::round(avg * 100.0) / 100.0;
}

/// The players over a whole slice: {min, avg, max, maxPlayers}, or null when no check
/// reported a count.
json::value players_summary(const std::vector<history_hour>& hours) {
  std::uint64_t samples = 0;
  std::uint64_t sum = 0;
  std::uint32_t least = 0;
  std::uint32_t most = 0;
  std::optional<std::uint32_t> limit;
  for (const auto& h : hours) {
    if (h.max_players)
      limit = std::max(limit.value_or(0), *h.max_players);
    if (h.player_samples == 0)
      continue;
    least = samples == 0 ? h.players_min : std::min(least, h.players_min);
    most = std::max(most, h.players_max);
    samples += h.player_samples;
    sum += h.players_sum;
  }
  if (samples == 0)
    return nullptr;
  json::object o;
  o["min"] = least;
  o["avg"] = rounded_avg(static_cast<double>(sum) / static_cast<double>(samples));
  o["max"] = most;
  o["maxPlayers"] = number_or_null(limit);
  return o;
}

} // namespace

json::object row_point(const history_row& row) {
  json::object p;
  p["at"] = row.at;
  p["verdict"] = verdict_name(row.verdict);
  p["class"] = to_string(class_of(row.verdict));
  p["players"] = number_or_null(row.players);
  p["maxPlayers"] = number_or_null(row.max_players);
  if (row.players)
    p["playersFrom"] = row.players_from_raknet ? "raknet" : "nethernet";
  else
    p["playersFrom"] = nullptr;
  p["version"] = row.version.empty() ? json::value(nullptr) : json::value(row.version);
  p["latencyMs"] = json::object{{"nethernet", optional_ms(row.nethernet_us)},
                                {"raknet", optional_ms(row.raknet_us)},
                                {"offer", optional_ms(row.offer_us)}};
  p["raknetChecked"] = row.raknet_checked;
  p["candidates"] = json::object{{"total", row.candidates.total},
                                 {"forPlayers", row.candidates.for_players},
                                 {"public", row.candidates.public_addresses},
                                 {"reachable", row.candidates.reachable}};
  p["keyId"] = row.key_id ? json::value(key_id_text(*row.key_id)) : json::value(nullptr);
  p["join"] = join_point(row.join);
  return p;
}

json::value join_point(const std::optional<join_summary>& join) {
  if (!join)
    return nullptr;
  return json::object{{"joined", join->joined()},
                      {"stage", join_stage_name(join->stage)},
                      {"outcome", join_outcome_name(join->outcome)},
                      {"totalMs", optional_ms(join->total_us)}};
}

json::object hour_point(const history_hour& hour) {
  json::object p;
  p["at"] = hour.start;
  p["checks"] = hour.checks;
  p["online"] = hour.online;
  p["joinable"] = hour.joinable;
  p["verdict"] = verdict_name(hour.most_seen);
  p["class"] = to_string(class_of(hour.most_seen));
  if (auto avg = hour.players_avg())
    p["players"] = json::object{
      {"min", hour.players_min}, {"avg", rounded_avg(*avg)}, {"max", hour.players_max}};
  else
    p["players"] = nullptr;
  p["maxPlayers"] = number_or_null(hour.max_players);
  return p;
}

std::string render_history(std::string_view host, std::uint16_t port,
                           const history_slice& slice, bool is_public) {
  json::object body;
  body["ok"] = true;
  body["host"] = valid_utf8(host);
  body["port"] = port;
  body["public"] = is_public;
  body["range"] = to_string(slice.range);
  body["from"] = slice.window.from;
  body["to"] = slice.window.to;
  body["resolution"] = uses_hours(slice.range) ? "hour" : "check";
  auto up = uptime_of(slice);
  body["uptime"] = json::object{{"checks", up.checks},
                                {"joinable", rounded_share(up.joinable_share())},
                                {"online", rounded_share(up.online_share())}};
  json::array points;
  if (uses_hours(slice.range)) {
    body["players"] = players_summary(slice.hours);
    points.reserve(slice.hours.size());
    for (const auto& hour : slice.hours)
      points.push_back(hour_point(hour));
  } else {
    body["players"] = players_summary(fold_hours(slice.rows));
    points.reserve(slice.rows.size());
    for (const auto& row : slice.rows)
      points.push_back(row_point(row));
  }
  body["points"] = std::move(points);
  return json::serialize(body);
}

} // namespace netherscope::core
