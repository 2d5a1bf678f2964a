#include "actors/edge_bridge.hpp"

#include <memory>

#include <caf/send.hpp>

#include "net/api/offer_outcome.hpp"

namespace netherscope::actors {

namespace api = net::api;

namespace {

/// What one sink keeps: the fronts, its turn among them and its io thread's hit path. Only
/// that io thread calls the sink, so none of it needs a lock.
struct bridge_state {
  std::vector<actors::front_actor> fronts;
  std::size_t next = 0;
  hit_path hits;
};

} // namespace

bool answer_from_board(const hit_path& hits, api::api_call& call) {
  // Only a plain offer: a refresh (fresh), an edge error (peek, invalid) and every other kind
  // take the fronts' way.
  if (!hits.board || call.kind != api::call_kind::offer || call.peek || !call.invalid.ok()
      || call.fresh)
    return false;
  auto hit = hits.board->find(call.where, call.probe);
  if (!hit)
    return false;
  auto charge = api::quota_charge::count_call(api::endpoint::offer, std::move(call.client),
                                         std::move(call.key_hash));
  // Called on the quota actor's thread once the charge is durable. It only moves the verdict
  // and the hit into the outcome and hands it to the reply, which takes it to the connection's
  // io thread; the body is read there (finish_offer).
  actors::verdict_fn then = [reply = std::move(call.reply), body = std::move(hit->body), age = hit->age,
                     expected = std::move(call.expect_ports)](api::quota_verdict&& verdict) mutable {
    auto outcome = api::offer_outcome(std::move(verdict), {}, std::move(body), age,
                                 std::move(expected));
    outcome.board_hit = true;
    reply(std::move(outcome));
  };
  caf::anon_send(hits.quotas, charge_atom::value, std::move(charge), std::move(then));
  return true;
}

api::call_sink make_edge_bridge(std::vector<front_actor> fronts, hit_path hits) {
  auto state = std::make_shared<bridge_state>();
  state->fronts = std::move(fronts);
  state->hits = std::move(hits);
  return [state](api::api_call&& call) {
    if (answer_from_board(state->hits, call))
      return;
    if (state->fronts.empty())
      return;
    auto index = state->next++ % state->fronts.size();
    caf::anon_send(state->fronts[index], std::move(call));
  };
}

} // namespace netherscope::actors
