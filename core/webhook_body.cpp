#include "core/webhook_body.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/url/url.hpp>

#include "core/api_json.hpp"
#include "core/history_json.hpp"
#include "core/host_port.hpp"
#include "base/text.hpp"

namespace netherscope::core {

namespace json = boost::json;

namespace {

constexpr std::string_view ellipsis = "\xE2\x80\xA6";
constexpr std::string_view arrow = "\xE2\x86\x92";

std::string time_text(std::int64_t unix_seconds) {
  return base::rfc3339_utc(unix_seconds).value_or("");
}

/// A check as from or to: {verdict, online, joinable, join, version, keyId, players,
/// maxPlayers, at}.
json::value check_state(const std::optional<history_row>& row) {
  if (!row)
    return nullptr;
  json::object o;
  o["verdict"] = verdict_name(row->verdict);
  o["online"] = is_online(row->verdict);
  o["joinable"] = is_joinable(row->verdict);
  o["join"] = join_point(row->join);
  o["version"] = row->version.empty() ? json::value(nullptr) : json::value(row->version);
  o["keyId"] = row->key_id ? json::value(key_id_text(*row->key_id)) : json::value(nullptr);
  o["players"] = number_or_null(row->players);
  o["maxPlayers"] = number_or_null(row->max_players);
  o["at"] = time_text(row->at);
  return o;
}

/// text, or its start and an ellipsis, in at most limit bytes (so at most limit characters).
std::string fit(std::string_view text, std::size_t limit) {
  auto valid = valid_utf8(text);
  if (valid.size() <= limit)
    return valid;
  return valid_utf8(valid, limit - ellipsis.size()) + std::string{ellipsis};
}

/// Text from a server made literal in Discord's markdown: each character markdown or a
/// mention could use is escaped with a backslash.
std::string literal(std::string_view text) {
  std::string out;
  for (char c : valid_utf8(text)) {
    if (std::string_view{"\\*_~`|<>[]()#@"}.find(c) != std::string_view::npos)
      out += '\\';
    out += c;
  }
  return out;
}

std::string address(const webhook_event& e) {
  return host_for_url(e.host) + ":" + std::to_string(e.port);
}

std::uint32_t colour_of(const std::optional<history_row>& row) {
  if (!row)
    return 0x8a8a8a;
  switch (class_of(row->verdict)) {
    case verdict_class::joinable:
      return 0x2e8540;
    case verdict_class::up:
      return 0xd4a72c;
    default:
      return 0xc1432e;
  }
}

/// The sentences that say what changed.
std::string change_sentences(const webhook_event& e) {
  const auto& c = e.changes;
  std::string out;
  auto say = [&](const std::string& sentence) {
    out += (out.empty() ? "" : " ") + sentence;
  };
  bool joinable_now = e.to && is_joinable(e.to->verdict);
  bool online_now = e.to && is_online(e.to->verdict);
  if (c.online)
    say(online_now ? "The server answers again." : "The server stopped answering.");
  if (c.joinable)
    say(joinable_now ? "Players can join again." : "Players can no longer join.");
  if (c.key && e.from && e.to)
    say("Its identity key changed (" + key_id_text(*e.from->key_id) + " " + std::string{arrow}
        + " " + key_id_text(*e.to->key_id) + ").");
  if (c.version && e.from && e.to)
    say("Its version changed from " + literal(e.from->version) + " to " + literal(e.to->version)
        + ".");
  return out;
}

/// An embed field, cut to Discord's limits.
json::object field(std::string_view name, std::string_view value) {
  return json::object{{"name", fit(name, discord_field_name_limit)},
                      {"value", fit(value, discord_field_value_limit)},
                      {"inline", true}};
}

} // namespace

std::optional<webhook_format> parse_webhook_format(std::string_view text) {
  if (text == "json")
    return webhook_format::json;
  if (text == "discord")
    return webhook_format::discord;
  if (text == "discord_live")
    return webhook_format::discord_live;
  return std::nullopt;
}

std::string_view to_string(webhook_format format) {
  switch (format) {
    case webhook_format::discord:
      return "discord";
    case webhook_format::discord_live:
      return "discord_live";
    case webhook_format::json:
      break;
  }
  return "json";
}

bool is_discord(webhook_format format) {
  return format == webhook_format::discord || format == webhook_format::discord_live;
}

webhook_event change_event(std::string watch_id, std::string host, std::uint16_t port,
                           const history_row& previous, const history_row& current,
                           const verdict_change& changes, std::string link) {
  webhook_event e;
  e.what = webhook_event::kind::change;
  e.watch_id = std::move(watch_id);
  e.host = std::move(host);
  e.port = port;
  e.from = previous;
  e.to = current;
  e.changes = changes;
  e.at = current.at;
  e.link = std::move(link);
  return e;
}

webhook_event test_event(std::string watch_id, std::string host, std::uint16_t port,
                         std::optional<history_row> latest, std::int64_t now, std::string link) {
  webhook_event e;
  e.what = webhook_event::kind::test;
  e.watch_id = std::move(watch_id);
  e.host = std::move(host);
  e.port = port;
  e.to = std::move(latest);
  e.at = now;
  e.link = std::move(link);
  return e;
}

std::string server_history_link(std::string_view base, std::string_view host,
                                std::uint16_t port) {
  if (base.empty())
    return {};
  boost::urls::url path{"/api/history"};
  auto port_text = std::to_string(port);
  path.params().append({"host", host});
  path.params().append({"port", port_text});
  path.params().append({"range", "24h"});
  return std::string{base} + std::string{path.buffer()};
}

std::string json_body(const webhook_event& e) {
  json::object body;
  body["event"] = e.what == webhook_event::kind::test ? "test" : "change";
  body["watchId"] = valid_utf8(e.watch_id);
  body["host"] = valid_utf8(e.host);
  body["port"] = e.port;
  body["verdict"] = e.to ? json::value(verdict_name(e.to->verdict)) : json::value(nullptr);
  json::array names;
  for (auto& name : e.changes.names())
    names.emplace_back(name);
  body["changes"] = std::move(names);
  body["from"] = check_state(e.from);
  auto to = check_state(e.to);
  if (to.is_object()) {
    if (e.from && e.from->key_id && e.to->key_id)
      to.as_object()["keyChanged"] = *e.from->key_id != *e.to->key_id;
    else
      to.as_object()["keyChanged"] = nullptr;
  }
  body["to"] = std::move(to);
  body["at"] = time_text(e.at);
  body["link"] = e.link.empty() ? json::value(nullptr) : json::value(valid_utf8(e.link));
  return json::serialize(body);
}

std::string discord_body(const webhook_event& e) {
  auto where = literal(address(e));
  std::string title;
  std::string description;
  std::string content;
  if (e.what == webhook_event::kind::test) {
    title = "Test delivery for " + where;
    description = "This webhook works.";
    if (e.to)
      description += " The latest check: " + std::string{verdict_name(e.to->verdict)} + ", at "
                     + time_text(e.to->at) + ".";
    else
      description += " The server has not been checked yet.";
    content = "Test delivery for " + where;
  } else {
    auto before = e.from ? verdict_name(e.from->verdict) : std::string_view{"unknown"};
    auto now = e.to ? verdict_name(e.to->verdict) : std::string_view{"unknown"};
    title = where + ": " + std::string{before} + " " + std::string{arrow} + " " + std::string{now};
    description = change_sentences(e);
    content = where + " is now " + std::string{now} + " (was " + std::string{before} + ")";
  }

  json::object embed;
  embed["title"] = fit(title, discord_title_limit);
  embed["description"] = fit(description, discord_description_limit);
  if (!e.link.empty())
    embed["url"] = valid_utf8(e.link);
  embed["color"] = colour_of(e.to);
  embed["timestamp"] = time_text(e.at);
  json::array fields;
  if (e.to) {
    auto verdict = std::string{verdict_name(e.to->verdict)};
    if (e.from && e.from->verdict != e.to->verdict)
      verdict += " (was " + std::string{verdict_name(e.from->verdict)} + ")";
    fields.push_back(field("Verdict", verdict));
    if (const auto& join = e.to->join) {
      auto outcome = std::string{join_outcome_name(join->outcome)};
      fields.push_back(field("Join", join->joined() ? outcome
                                                    : outcome + " at "
                                                          + std::string{join_stage_name(
                                                              join->stage)}));
    }
    if (e.to->players) {
      auto players = std::to_string(*e.to->players);
      if (e.to->max_players)
        players += "/" + std::to_string(*e.to->max_players);
      fields.push_back(field("Players", players));
    }
    if (!e.to->version.empty())
      fields.push_back(field("Version", literal(e.to->version)));
    if (e.to->key_id)
      fields.push_back(field("Key", key_id_text(*e.to->key_id)));
  }
  embed["fields"] = std::move(fields);
  embed["footer"] = json::object{{"text", fit("netherscope watch " + e.watch_id,
                                              discord_footer_limit)}};

  json::object body;
  body["content"] = fit(content, discord_content_limit);
  body["embeds"] = json::array{std::move(embed)};
  body["allowed_mentions"] = json::object{{"parse", json::array{}}};
  return json::serialize(body);
}

std::string webhook_body(webhook_format format, const webhook_event& event) {
  return is_discord(format) ? discord_body(event) : json_body(event);
}

} // namespace netherscope::core
