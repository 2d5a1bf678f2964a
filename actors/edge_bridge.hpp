// The bridge from the HTTP edge into the actors.
//
// The edge hands each validated call to a call_sink (net/api/call.hpp). This makes the sink
// that deals calls round robin to the front actors, so the edge never names an actor type.
#pragma once

#include <vector>

#include "actors/messages.hpp"
#include "net/api/call.hpp"

namespace netherscope {

/// A sink that enqueues each call into one of fronts in turn. It never blocks: anon_send only
/// appends to a mailbox, and the reply comes back through the call's own callback. The sink
/// holds the actor handles until it is destroyed.
call_sink make_edge_bridge(std::vector<front_actor> fronts);

} // namespace netherscope
