// The bridge from the HTTP edge into the actors.
//
// The edge hands each validated call to a call_sink (net/api/call.hpp). This makes the sink
// that deals calls round robin to the front actors, so the edge never names an actor type.
// A cached offer takes a shorter way: the sink finds the cache's fresh answer on the hit
// board and sends only the charge to the quota actor, whose verdict completes the reply.
#pragma once

#include <memory>
#include <vector>

#include "actors/hit_board.hpp"
#include "actors/messages.hpp"
#include "net/api/call.hpp"

namespace netherscope {

/// What the cache-hit path needs: the cache actor's published hits and the quota actor.
/// Without a board every call goes to the fronts.
struct hit_path {
  std::shared_ptr<const hit_board> board;
  quota_actor quotas;
};

/// A sink that enqueues each call into one of fronts in turn, or, for an offer the hit board
/// answers, a charge into the quota actor. It never blocks: anon_send only appends to a
/// mailbox, the board's lock is held for one map lookup, and the reply comes back through the
/// call's own callback. The sink holds the actor handles until it is destroyed.
call_sink make_edge_bridge(std::vector<front_actor> fronts, hit_path hits = {});

/// Answers call from the board when it is an offer the board holds a fresh answer for: sends
/// the charge to the quota actor and returns true; the verdict then completes the reply. Leaves
/// call untouched and returns false otherwise.
bool answer_from_board(const hit_path& hits, api_call& call);

} // namespace netherscope
