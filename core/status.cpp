#include "core/status.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "core/api_json.hpp"
#include "core/history_json.hpp"
#include "core/clients.hpp"

namespace netherscope::core {

namespace json = boost::json;

namespace {

/// The "motd" of GET /api/info's result, which is there when the join status has a name.
json::value motd_of(const json::value& nethernet) {
  if (auto* result = nethernet.if_object())
    if (auto* motd = result->if_contains("motd"))
      return *motd;
  return nullptr;
}

json::object status_object(const core::info_reply& info, const core::raknet_reply& raknet) {
  json::object body;
  body["ok"] = true;
  body["online"] = is_online(info, raknet);
  body["nethernet"] = nethernet_of(info);
  body["motd"] = info.error.ok() ? motd_of(body["nethernet"]) : json::value(nullptr);
  body["raknet"] = raknet.tried ? json_or_null(raknet.body) : json::value(nullptr);
  body["clients"] = describe_clients(seen_from(info, raknet));
  return body;
}

/// The target's host and port, first in a line so that a reader sees at once which it is.
json::object line_of(const core::target& where) {
  json::object line;
  line["host"] = where.host;
  line["port"] = where.port;
  return line;
}

} // namespace

json::value json_or_null(std::string_view body) {
  if (body.empty())
    return nullptr;
  boost::system::error_code ec;
  auto v = json::parse(body, ec);
  return ec ? json::value(nullptr) : v;
}

bool is_online(const core::info_reply& info, const core::raknet_reply& raknet) {
  return info.error.ok() || (raknet.tried && raknet.ok);
}

json::value nethernet_of(const core::info_reply& info) {
  return info.error.ok() ? json_or_null(info.body) : json_or_null(core::render_error(info.error));
}

std::string render_status(const core::info_reply& info, const core::raknet_reply& raknet) {
  return json::serialize(status_object(info, raknet));
}

std::optional<core::history_row> recent_check(const std::vector<core::watched_check>& checks,
                                             const core::target& where, std::int64_t now) {
  for (const auto& c : checks)
    if (c.host == where.host && c.port == where.port && c.last.at <= now
        && now - c.last.at <= badge_check_max_age_seconds)
      return c.last;
  return std::nullopt;
}

std::string render_badge_status(const core::info_reply& info, const core::raknet_reply& raknet,
                                const std::optional<core::history_row>& latest_check) {
  auto body = status_object(info, raknet);
  if (latest_check)
    body["latestCheck"] = core::row_point(*latest_check);
  return json::serialize(body);
}

std::string render_status_line(const core::target& where, const core::info_reply& info,
                               const core::raknet_reply& raknet) {
  auto line = line_of(where);
  for (auto& field : status_object(info, raknet))
    line[field.key()] = std::move(field.value());
  return json::serialize(line);
}

std::string render_status_error_line(const core::target& where, const core::failure& error) {
  auto line = line_of(where);
  auto parsed = json_or_null(core::render_error(error));
  if (parsed.is_object())
    for (auto& field : parsed.as_object())
      line[field.key()] = std::move(field.value());
  return json::serialize(line);
}

} // namespace netherscope::core
