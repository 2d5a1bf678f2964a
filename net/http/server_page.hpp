// GET /server/{address}: a server's page, for its players and community. Pure functions: what
// the page shows is read from the actors' outcome (server_page_view_of), then drawn as HTML
// that runs no script (render_server_page), with the unfurl tags a pasted link shows.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/call.hpp"
#include "core/history_days.hpp"
#include "core/target.hpp"

namespace netherscope::net::http {

/// How a join ended, as a check's join object or a history point's gives it.
struct page_join {
  std::string stage;
  std::string outcome;
  bool joined = false;
};

/// Where a player's join got to at one stage of the timeline.
enum class stage_state : std::uint8_t { passed, failed, not_reached };

/// The stages of a join, in order, as the join's "stage" names them.
inline constexpr std::array<std::string_view, 6> join_stages{"signalling", "ice",      "dtls",
                                                             "sctp",       "channels", "game"};

/// What a server's page shows.
struct server_page_view {
  core::target where;
  bool online = false;
  /// The server's name with its formatting codes, as its status gave it; empty for none.
  std::string name;
  std::optional<std::int64_t> players;
  std::optional<std::int64_t> max_players;
  std::string version;
  /// Whether the page has a check to show: one the visitor asked for, or the latest check of
  /// a public watch.
  bool has_check = false;
  /// Whether that check ran for this visit (?check=1): only then are there reasons.
  bool checked_now = false;
  std::string verdict;
  std::vector<std::string> reasons;
  std::vector<std::string> next_steps;
  /// When the check finished, Unix seconds.
  std::optional<std::int64_t> checked_at;
  /// The check's join; none when it made none.
  std::optional<page_join> join;
  /// Whether the server has a public watch, whose history the page draws.
  bool is_public = false;
  /// This week's and this month's players (the peak), when the history has samples.
  std::optional<core::history_span> week;
  std::optional<core::history_span> month;
};

/// Reads the outcome of a server_page call that succeeded: its body (a check's or a
/// status's, as outcome.checked says) and its history. now is Unix seconds.
server_page_view server_page_view_of(const core::api_outcome& outcome, std::int64_t now);

/// The address as the page names it: the host (an IPv6 literal in brackets), then ":port"
/// when the port is not 19132.
std::string address_label(const core::target& where);

/// The page's path: /server/ and the label, its brackets %-encoded.
std::string server_page_path(const core::target& where);

/// The state of each of join_stages: all passed for a join that reached the game; before
/// the join's stage passed, at it failed, after it not reached; without a join, signalling
/// failed (the check made none).
std::array<stage_state, 6> timeline_of(const std::optional<page_join>& join);

/// The page. public_origin ("https://netherscope.example") makes the unfurl tags' URLs and
/// the snippets absolute.
std::string render_server_page(const server_page_view& view, std::string_view public_origin);

/// The page for a request that got no server's page: the error's sentence and machine code.
std::string render_server_error(const core::failure& error);

} // namespace netherscope::net::http
