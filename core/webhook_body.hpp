// The bodies of webhook deliveries: the service's own JSON, and Discord's webhook JSON within
// Discord's limits (docs/WATCHES.md, "Alerts"). Pure: the delivery actor signs and sends them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/history_row.hpp"
#include "core/watch_change.hpp"

namespace netherscope::core {

/// The formats a webhook can take.
enum class webhook_format : std::uint8_t {
  /// The service's JSON (json_body).
  json,
  /// Discord's execute-webhook JSON (discord_body), a new message per event.
  discord,
  /// Discord's JSON too, but one message per webhook that each event edits
  /// (core/discord_live.hpp): a live status rather than a log.
  discord_live,
};

/// The format a request names: exactly "json", "discord" or "discord_live"; nullopt
/// otherwise.
std::optional<webhook_format> parse_webhook_format(std::string_view text);

/// The format's name: "json", "discord" or "discord_live".
std::string_view to_string(webhook_format format);

/// Discord's limits on an execute-webhook body, in characters (the renderer counts bytes,
/// which are never fewer).
inline constexpr std::size_t discord_content_limit = 2000;
inline constexpr std::size_t discord_title_limit = 256;
inline constexpr std::size_t discord_description_limit = 4096;
inline constexpr std::size_t discord_field_limit = 25;
inline constexpr std::size_t discord_field_name_limit = 256;
inline constexpr std::size_t discord_field_value_limit = 1024;
inline constexpr std::size_t discord_footer_limit = 2048;
/// All of an embed's text together.
inline constexpr std::size_t discord_embed_total_limit = 6000;

/// What a delivery tells.
struct webhook_event {
  /// A change between two checks, or a test asked for by the owner.
  enum class kind : std::uint8_t { change, test };
  kind what = kind::change;
  std::string watch_id;
  std::string host;
  std::uint16_t port = 0;
  /// The check before (none in a test of a watch without history, or before a second check).
  std::optional<history_row> from;
  /// The check that changed (in a test, the latest check, if any).
  std::optional<history_row> to;
  /// What changed (all false in a test).
  verdict_change changes;
  /// When the event happened: the check's time, or the test's; Unix seconds.
  std::int64_t at = 0;
  /// Where a person sees the server's watch (an absolute URL the service builds), or empty.
  std::string link;
};

/// The event for a change between previous and current (change_between said it alerts).
webhook_event change_event(std::string watch_id, std::string host, std::uint16_t port,
                           const history_row& previous, const history_row& current,
                           const verdict_change& changes, std::string link);

/// The event of POST /api/watch/{id}/webhooks/{wid}/test at now: the latest check, if any.
webhook_event test_event(std::string watch_id, std::string host, std::uint16_t port,
                         std::optional<history_row> latest, std::int64_t now, std::string link);

/// Where a person reads the server's history: base (the service's public base URL, without a
/// trailing slash) and /api/history?host=&port=&range=24h, which answers the owner signed in
/// on the account page and anyone for a public watch; empty when base is.
std::string server_history_link(std::string_view base, std::string_view host,
                                std::uint16_t port);

/// The json format: {event ("change" or "test"), watchId, host, port, verdict (the current
/// one, or null), changes: ["joinable", "online", "key", "version"], from, to, at (RFC 3339
/// UTC), link}, where from and to are {verdict, online, joinable, version, keyId, players,
/// maxPlayers, at} or null, and to also has keyChanged (true, false, or null when either
/// check lacks a key).
std::string json_body(const webhook_event& event);

/// The discord format: {content, embeds: [{title, description, url, color, timestamp,
/// fields, footer}], allowed_mentions: {parse: []}}: no text from a server can mention
/// anyone, and every text is cut to Discord's limits.
std::string discord_body(const webhook_event& event);

/// Whether the format speaks Discord's execute-webhook JSON.
bool is_discord(webhook_format format);

/// The body in the webhook's format.
std::string webhook_body(webhook_format format, const webhook_event& event);

} // namespace netherscope::core
