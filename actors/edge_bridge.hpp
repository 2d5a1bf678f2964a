// The bridge from the HTTP edge into the actors.
//
// The edge hands each validated call to a call_sink (core/call.hpp). This makes the sinks
// that deal calls round robin to the front actors, so the edge never names an actor type.
// There is one sink per io_context, called only on that context's one thread: a cached offer
// takes a shorter way through the hit board that thread owns (actors/hit_board.hpp), and only
// the charge goes to the quota actor, whose verdict comes back as a value in the reply. A busy
// caller's cached offers are answered on the io thread itself, from a lease of its calls
// counted ahead that the quota actor handed to this sink (actors/edge_leases.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "actors/hit_board.hpp"
#include "actors/messages.hpp"
#include "core/call.hpp"

namespace netherscope::actors {


/// What the cache-hit path needs: the hit board of the io thread the sink serves, and the
/// quota actor. Without a board every call goes to the fronts.
struct hit_path {
  std::shared_ptr<const hit_board> board;
  actors::quota_actor quotas;
  /// Runs work on the io thread the sink serves, soon (app/ wires it to that io_context's
  /// reply inbox); callable from any thread. Without it the sink takes no leases.
  std::function<void(std::function<void()>)> post;
  /// Unix time now, which ends a lease with its month (the quota actor's clock).
  std::function<std::int64_t()> now_unix;
};

/// A sink for the calls of one io thread: it enqueues each call into one of fronts in turn,
/// or, for an offer the thread's hit board answers, answers it from a lease or sends a charge
/// into the quota actor. It never blocks and takes no lock: anon_send only appends to a
/// mailbox, the board and the leases are this thread's own, and the reply comes back through
/// the call's own callback. Call it on that io thread only. The sink holds the actor handles
/// until it is destroyed; then its leases end, and what they did not use goes back to the
/// quota actor, so destroy the sinks before stopping it.
core::call_sink make_edge_bridge(std::vector<front_actor> fronts, hit_path hits = {});


} // namespace netherscope::actors
