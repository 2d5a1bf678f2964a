#include "actors/edge_bridge.hpp"

#include <chrono>
#include <memory>

#include <caf/send.hpp>

#include "actors/edge_leases.hpp"
#include "actors/quota_reservations.hpp"
#include "core/offer_outcome.hpp"

namespace netherscope::actors {


namespace {

/// What one sink keeps: the fronts, its turn among them, its io thread's hit path and the
/// leases the quota actor gave it. Only that io thread calls the sink or touches the leases
/// (the link's functions hand their values to it first), so none of it needs a lock.
struct bridge_state {
  std::vector<actors::front_actor> fronts;
  std::size_t next = 0;
  hit_path hits;
  edge_leases leases;
  /// How the quota actor reaches this sink; null without hits.post.
  edge_link_ptr link;

  ~bridge_state() {
    for (auto& rest : leases.take_all())
      give_back(std::move(rest));
  }

  void give_back(edge_return&& rest) const {
    caf::anon_send(hits.quotas, give_back_atom::value, std::move(rest));
  }
};

// The link through which the quota actor gives state leases and recalls them. It holds the
// state weakly: a grant that arrives after the sink is gone is dropped, and its calls stay
// counted, as a crash would leave them.
edge_link_ptr make_link(const std::shared_ptr<bridge_state>& state) {
  std::weak_ptr<bridge_state> weak = state;
  auto post = state->hits.post;
  edge_link link;
  link.grant = [weak, post](edge_grant grant) {
    post([weak, grant = std::move(grant)]() mutable {
      if (auto s = weak.lock())
        if (auto rest = s->leases.add(std::move(grant)))
          s->give_back(std::move(*rest));
    });
  };
  link.recall = [weak, post](std::string id) {
    post([weak, id = std::move(id)] {
      if (auto s = weak.lock())
        if (auto rest = s->leases.recall(id))
          s->give_back(std::move(*rest));
    });
  };
  return std::make_shared<const edge_link>(std::move(link));
}

// Moves a verdict and a board hit into the offer's outcome and hands it to the reply; the
// body is read on the connection's io thread (finish_offer).
void reply_with_hit(core::reply_fn& reply, core::quota_verdict&& verdict,
                    std::shared_ptr<const std::string> body, std::int64_t age,
                    std::vector<std::uint16_t> expected) {
  auto outcome = core::offer_outcome(std::move(verdict), {}, std::move(body), age,
                                    std::move(expected));
  outcome.board_hit = true;
  reply(std::move(outcome));
}

// Answers call from the board when it is an offer the board holds a fresh answer for: from
// the caller's lease when this thread holds one, otherwise by sending the charge to the quota
// actor, whose verdict then completes the reply. Leaves call untouched and returns false when
// the board cannot answer.
bool answer_from_board(bridge_state& state, core::api_call& call) {
  const auto& hits = state.hits;
  // Only a plain offer: a refresh (fresh), an edge error (peek, invalid) and every other kind
  // take the fronts' way.
  if (!hits.board || call.kind != core::call_kind::offer || call.peek || !call.invalid.ok()
      || call.fresh)
    return false;
  auto hit = hits.board->find(call.where, call.probe);
  if (!hit)
    return false;
  auto charge = core::quota_charge::count_call(core::endpoint::offer, std::move(call.client),
                                              std::move(call.key_hash));
  if (state.link) {
    auto found = state.leases.answer(reservation_id(charge), std::chrono::steady_clock::now(),
                                     hits.now_unix());
    if (found.ended)
      state.give_back(std::move(*found.ended));
    if (found.verdict) {
      reply_with_hit(call.reply, std::move(*found.verdict), std::move(hit->body), hit->age,
                     std::move(call.expect_ports));
      return true;
    }
  }
  // Called on the quota actor's thread once the charge is durable; it only hands the verdict
  // on to the reply, which takes it to the connection's io thread.
  actors::verdict_fn then = [reply = std::move(call.reply), body = std::move(hit->body),
                             age = hit->age, expected = std::move(call.expect_ports)](
                              core::quota_verdict&& verdict) mutable {
    reply_with_hit(reply, std::move(verdict), std::move(body), age, std::move(expected));
  };
  if (state.link)
    caf::anon_send(hits.quotas, charge_atom::value, std::move(charge), std::move(then),
                   state.link);
  else
    caf::anon_send(hits.quotas, charge_atom::value, std::move(charge), std::move(then));
  return true;
}

} // namespace

core::call_sink make_edge_bridge(std::vector<front_actor> fronts, hit_path hits) {
  auto state = std::make_shared<bridge_state>();
  state->fronts = std::move(fronts);
  state->hits = std::move(hits);
  if (state->hits.post && state->hits.now_unix)
    state->link = make_link(state);
  return [state](core::api_call&& call) {
    if (answer_from_board(*state, call))
      return;
    if (state->fronts.empty())
      return;
    auto index = state->next++ % state->fronts.size();
    caf::anon_send(state->fronts[index], std::move(call));
  };
}

} // namespace netherscope::actors
