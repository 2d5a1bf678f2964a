// The verdicts of GET /api/check as stored numbers: a stable table from a small integer to the
// verdict's name and what it says about the server (online, joinable), shared by the history,
// the chart, the webhook alerts and the exporter (docs/WATCHES.md, "Verdict codes").
//
// The numbers are written into stored history, so a code is never renumbered or reused; a new
// verdict takes the next free number.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace netherscope::core {

/// A verdict as history stores it. 0 is never a verdict, so a zeroed record is refused.
enum class verdict_code : std::uint8_t {
  joinable = 1,
  signalling_only = 2,
  private_candidates = 3,
  no_candidates = 4,
  refused = 5,
  offline = 6,
  auth_required = 7,
  raknet_only = 8,
  not_allowed = 9,
  version_mismatch = 10,
  join_failed = 11,
};

/// The three things a chart or an alert tells apart, and "nothing checked".
enum class verdict_class : std::uint8_t {
  /// Players can join: a UDP candidate answered its connectivity check.
  joinable,
  /// The server answers (NetherNet status, signalling, or RakNet), but joining was not shown.
  up,
  /// Nothing answered.
  offline,
  /// No check in the time asked about.
  none,
};

/// One row of the table.
struct verdict_info {
  verdict_code code;
  /// The name the API writes ("joinable", "signalling_only", ...).
  std::string_view name;
  /// Something of the server answered (verdict_class up or joinable).
  bool online;
  /// Players can join (verdict_class joinable).
  bool joinable;
};

/// Every verdict the service knows, in code order. auth_required and raknet_only come from
/// the RakNet and online-mode verdicts, not_allowed from checks with an Xbox identity: each
/// is a server that answers but whose joinability this check could not show. version_mismatch
/// and join_failed come from the check's join: the server answers, and a player's connection
/// was turned away at the game (another version) or failed at a stage before it.
inline constexpr std::array<verdict_info, 11> verdict_table{{
  {verdict_code::joinable, "joinable", true, true},
  {verdict_code::signalling_only, "signalling_only", true, false},
  {verdict_code::private_candidates, "private_candidates", true, false},
  {verdict_code::no_candidates, "no_candidates", true, false},
  {verdict_code::refused, "refused", true, false},
  {verdict_code::offline, "offline", false, false},
  {verdict_code::auth_required, "auth_required", true, false},
  {verdict_code::raknet_only, "raknet_only", true, false},
  {verdict_code::not_allowed, "not_allowed", true, false},
  {verdict_code::version_mismatch, "version_mismatch", true, false},
  {verdict_code::join_failed, "join_failed", true, false},
}};

/// The table's row for a code, or null for a number the table does not hold.
const verdict_info* find_verdict(verdict_code code);

/// The code a byte read from a record stands for, or nullopt when the table has no such code.
std::optional<verdict_code> verdict_from_byte(std::uint8_t byte);

/// The code of a verdict's API name, or nullopt for a name the table does not hold.
std::optional<verdict_code> verdict_from_name(std::string_view name);

/// The verdict's API name ("joinable"), or "unknown" for a code outside the table.
std::string_view verdict_name(verdict_code code);

/// Whether the verdict says something of the server answered; false outside the table.
bool is_online(verdict_code code);

/// Whether the verdict says players can join; false outside the table.
bool is_joinable(verdict_code code);

/// joinable, up or offline by the table (offline outside it).
verdict_class class_of(verdict_code code);

/// The class's name as charts and the history JSON write it: "joinable", "up", "offline",
/// "none".
std::string_view to_string(verdict_class c);

} // namespace netherscope::core
