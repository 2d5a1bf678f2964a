// The body of GET /api/history?host=&port=&range= for a watched server: the window, the
// uptime, the players, and one point per check (24h) or per hour (7d, 30d, 90d). The shape is
// in docs/WATCHES.md, "GET /api/history".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "core/history_slice.hpp"

namespace netherscope::core {

/// One check as a point: {at, verdict, class, players, maxPlayers, playersFrom, version,
/// latencyMs: {nethernet, raknet, offer}, raknetChecked, candidates: {total, forPlayers,
/// public, reachable}, keyId, join}; absent values are null.
boost::json::object row_point(const history_row& row);

/// A check's join as the history and the webhooks write it: {joined, stage, outcome,
/// totalMs}, or null when the check made no join.
boost::json::value join_point(const std::optional<join_summary>& join);

/// One hour as a point: {at (the hour's start), checks, online, joinable, verdict (the one
/// seen most), class, players: {min, avg, max, peak, peakAt} or null, maxPlayers}.
boost::json::object hour_point(const history_hour& hour);

/// Renders the whole body: {ok: true, host, port, public (whether anyone may read it, and
/// so whether its chart draws), range, from, to, resolution ("check" or
/// "hour"), uptime: {checks, joinable, online}, players: {min, avg, max, peak, peakAt,
/// maxPlayers} or null, points: [...], and for hourly ranges days: [{at, checks, online,
/// joinable, players, maxPlayers}] (one per UTC day with a check)}. Times are Unix seconds;
/// shares are fractions rounded to 4 decimals, null without checks.
std::string render_history(std::string_view host, std::uint16_t port,
                           const history_slice& slice, bool is_public = false);

} // namespace netherscope::core
