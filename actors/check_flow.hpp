// GET /api/check as the front actor runs it: count one info and one offer call, ask for the
// status over both transports (actors/status_flow), then the target's probe for a join (its
// own fresh offer, then a player's connection up to the game), and hand every reply to the
// pure verdict (core/verdict).
#pragma once

#include "actors/front_actor.hpp"

namespace netherscope::actors {


/// Serves one check call; replies exactly once through call.reply. The quota headers are the
/// offer quota's, the scarcer of the two the call is counted against. A call refused by the
/// offer quota gives its counted info call back; one refused by the per-target offer limit
/// gives its offer call back, as POST /api/offer does.
void serve_check(actors::front_actor::pointer self, const front_peers& peers,
                 const front_settings& settings, core::api_call& call);

} // namespace netherscope::actors
