// GET and POST /api/status: a target's status over both transports at once (NetherNet's
// GET /v1/join and the RakNet ping), and the clients that can join over what answered
// (docs/API.md, "Status"). Pure functions: the actors run the two calls and hand their
// replies here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

#include "core/failure.hpp"
#include "core/history_row.hpp"
#include "core/history_slice.hpp"
#include "core/results.hpp"
#include "core/target.hpp"

namespace netherscope::core {

/// A JSON body as a value, or null when it is empty or not JSON.
boost::json::value json_or_null(std::string_view body);

/// Whether players see the server up: GET /v1/join answered with a 2xx, or a pong came back.
bool is_online(const core::info_reply& info, const core::raknet_reply& raknet);

/// The "nethernet" field: what GET /api/info answers for the target, its result or its error
/// object.
boost::json::value nethernet_of(const core::info_reply& info);

/// The body of GET /api/status: {ok, online, nethernet, raknet, clients}.
std::string render_status(const core::info_reply& info, const core::raknet_reply& raknet);

/// How old a watch check may be for a badge to show its verdict: older, the schedule has
/// stopped checking it (its watch was deleted or made private), and the badge shows the
/// status alone.
inline constexpr std::int64_t badge_check_max_age_seconds = 2 * 3600;

/// The latest check of where among the public watched servers' latest checks, when it
/// finished at most badge_check_max_age_seconds before now (Unix seconds).
std::optional<core::history_row> recent_check(const std::vector<core::watched_check>& checks,
                                             const core::target& where, std::int64_t now);

/// The status a badge is drawn from (net/http/badge): the body above and, when the server
/// has a recent public watch check, "latestCheck" (its history point).
std::string render_badge_status(const core::info_reply& info, const core::raknet_reply& raknet,
                                const std::optional<core::history_row>& latest_check);

/// One line of POST /api/status for a target that was checked: the body above, after the
/// target's host and port.
std::string render_status_line(const core::target& where, const core::info_reply& info,
                               const core::raknet_reply& raknet);

/// One line of POST /api/status for a target that was not checked: {host, port, ok: false,
/// code, error}, as the error table renders the error.
std::string render_status_error_line(const core::target& where, const core::failure& error);

} // namespace netherscope::core
