#include "core/history_json.hpp"

#include <cmath>

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>

#include "core/api_json.hpp"
#include "core/history_days.hpp"

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

/// Player figures: {min, avg, max, peak (the same count as max), peakAt (when the peak was
/// first seen, or null when its hour was stored before peaks had a time)}, or null without
/// samples.
json::value players_point(std::uint32_t least, std::optional<double> avg, std::uint32_t most,
                          std::optional<std::int64_t> peak_at) {
  if (!avg)
    return nullptr;
  return json::object{{"min", least},
                      {"avg", rounded_avg(*avg)},
                      {"max", most},
                      {"peak", most},
                      {"peakAt", peak_at ? json::value(*peak_at) : json::value(nullptr)}};
}

json::value players_point(const history_span& span) {
  return players_point(span.players_min, span.players_avg(), span.players_max, span.peak_at);
}

/// The players over a whole slice: players_point's figures and maxPlayers, or null when no
/// check reported a count.
json::value players_summary(const std::vector<history_hour>& hours) {
  auto total = total_of(hours);
  auto players = players_point(total);
  if (players.is_null())
    return nullptr;
  players.as_object()["maxPlayers"] = number_or_null(total.max_players);
  return players;
}

/// One UTC day as a point: {at (the day's start), checks, online, joinable, players,
/// maxPlayers}.
json::object day_point(const history_span& day) {
  return json::object{{"at", day.start},
                      {"checks", day.checks},
                      {"online", day.online},
                      {"joinable", day.joinable},
                      {"players", players_point(day)},
                      {"maxPlayers", number_or_null(day.max_players)}};
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
  p["players"] = players_point(hour.players_min, hour.players_avg(), hour.players_max,
                               hour.peak_at());
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
    json::array days;
    for (const auto& day : fold_days(slice.hours))
      days.push_back(day_point(day));
    body["days"] = std::move(days);
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
