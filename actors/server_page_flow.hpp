// GET /server/{address} as the front actor runs it. The page's status is the badge's (the
// status over both transports, with the latest check of a public watch when it is recent:
// serve_badge), or the check a visitor asked for is GET /api/check's (serve_check); either
// way the answer then gets the server's month of public history, for the chart and the peaks.
#pragma once

#include "actors/front_actor.hpp"

namespace netherscope::actors {

/// Wraps call.reply so that every answer of the page names the server and whether the visitor
/// asked for a check, and a successful one carries the server's public history of the last 30
/// days (none when no watch of the server is public). Call before serving the call; the
/// wrapped reply must be called from self's handlers, as every flow of the front actor does.
void prepare_server_page(front_actor::pointer self, const front_peers& peers,
                         const front_settings& settings, core::api_call& call);

} // namespace netherscope::actors
