// POST /api/join as the front actor runs it: count one offer call per player, learn the
// server's protocol from its GET /v1/join, then ask the target's probe for each player's join
// (its own offer, then the worker) and render the reply once every player's join has ended.
#pragma once

#include "actors/front_actor.hpp"

namespace netherscope::actors {


/// Serves one join call; replies exactly once through call.reply, with the offer quota's
/// headers. A call refused by the per-target offer limit, or by a service with no worker
/// free, gives its counted calls back.
void serve_join(actors::front_actor::pointer self, const front_peers& peers,
                const front_settings& settings, core::api_call& call);

} // namespace netherscope::actors
