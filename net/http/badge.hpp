// GET /badge: a server's status as a small SVG image for README files and web pages, in the
// flat style of shields.io badges ("bedrock | joinable · 3/10"): the status asked now, and
// whether players can join from the latest check of a publicly watched server.
//
// Pure functions: the router turns the status call's outcome into a badge_view and renders it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/failure.hpp"

namespace netherscope::net::http {

/// The Content-Security-Policy of a badge: an SVG opened on its own may run nothing and load
/// nothing; inline style attributes are all it needs.
inline constexpr std::string_view badge_csp = "default-src 'none'; style-src 'unsafe-inline'";

/// What the badge says.
enum class badge_state {
  /// Online now, and the server's latest watch check joined as a player.
  joinable,
  /// Online now, and the server's latest watch check could not join (its verdict says why).
  not_joinable,
  /// GET /v1/join answered 2xx, or a RakNet pong came back; no recent check says whether
  /// players can join.
  online,
  /// Neither transport answered.
  offline,
  /// No verdict about the target: bad input, quota exhausted, refused by policy, our fault.
  error,
};

/// Everything a badge shows. Strings are as the server or the service gave them; the
/// renderer escapes them.
struct badge_view {
  badge_state state = badge_state::error;
  /// Players online and the limit, shown only when both are known.
  std::optional<std::int64_t> players;
  std::optional<std::int64_t> max_players;
  /// The server's name, for the tooltip only (untrusted text).
  std::string name;
  /// Why the badge is offline, an error or not joinable, for the tooltip.
  std::string detail;
};


/// Reads a GET /api/status body into a badge: online when either transport answered, with
/// the server's name and the player counts when GET /v1/join's info carries both as
/// integers, else the pong's; offline otherwise, with why each transport did not answer.
/// When online and the body carries "latestCheck" (a history point, core/history_json), its
/// class decides: joinable, or not_joinable with the verdict and the join's outcome as detail;
/// an offline latest check leaves the badge online, since the status answers now.
badge_view badge_from_status(std::string_view status_body);

/// The badge for a failed info call: offline when the target could not be reached, timed out
/// or answered with an error or a bad answer; error otherwise, with the failure's public
/// message as detail.
badge_view badge_from_failure(const core::failure& error);

/// The text on the right half: "joinable · 3/10", "can't join · 3/10", "online · 3/10" (each
/// without the counts when they are not both known), "offline" or "error".
std::string badge_value(const badge_view& view);

/// Renders the badge as a standalone SVG document (UTF-8, no external references). Every
/// string from the view is XML-escaped; characters XML 1.0 forbids become U+FFFD.
std::string render_badge(const badge_view& view);

/// The width in pixels of text set in Verdana at 11 px, rounded up; approximate (see
/// badge.cpp), and the SVG stretches the text to exactly this width.
unsigned badge_text_width(std::string_view utf8);

/// Text made safe for XML character data and attribute values: & < > " ' escaped, invalid
/// UTF-8 and characters XML 1.0 forbids replaced by U+FFFD, and at most max_chars characters.
std::string xml_text(std::string_view untrusted, std::size_t max_chars = 200);

} // namespace netherscope::net::http
