#include "actors/edge_bridge.hpp"

#include <atomic>
#include <memory>

#include <caf/send.hpp>

#include "net/api/api_json.hpp"
#include "net/api/telemetry.hpp"

namespace netherscope {

namespace {

/// What the sink shares among its copies: the fronts, the turn counter and the hit path.
struct bridge_state {
  std::vector<front_actor> fronts;
  std::atomic<std::size_t> next{0};
  hit_path hits;
};

// The reply to a cached offer once its charge has a verdict: the same outcome the front
// gives a hit (front_actor.cpp, serve_offer), so both ways answer alike.
api_outcome hit_outcome(quota_verdict&& verdict, const hit_board::hit& hit,
                        const std::vector<std::uint16_t>& expected) {
  api_outcome outcome;
  if (verdict.error.ok()) {
    if (expected.empty())
      outcome.shared_body = hit.body;
    else
      outcome.body = net::with_expected_ports(*hit.body, expected);
    outcome.age = hit.age;
    process_telemetry().count_cache_hit();
  } else {
    outcome.error = verdict.error;
  }
  outcome.has_quota = true;
  outcome.quota = std::move(verdict);
  return outcome;
}

} // namespace

bool answer_from_board(const hit_path& hits, api_call& call) {
  // Only a plain offer: a refresh (fresh), an edge error (peek, invalid) and every other kind
  // take the fronts' way.
  if (!hits.board || call.kind != call_kind::offer || call.peek || !call.invalid.ok()
      || call.fresh)
    return false;
  auto hit = hits.board->find(call.where, call.probe);
  if (!hit)
    return false;
  auto charge = quota_charge::count_call(endpoint::offer, std::move(call.client),
                                         std::move(call.key_hash));
  verdict_fn then = [reply = std::move(call.reply), hit = std::move(*hit),
                     expected = std::move(call.expect_ports)](quota_verdict&& verdict) {
    reply(hit_outcome(std::move(verdict), hit, expected));
  };
  caf::anon_send(hits.quotas, charge_atom::value, std::move(charge), std::move(then));
  return true;
}

call_sink make_edge_bridge(std::vector<front_actor> fronts, hit_path hits) {
  auto state = std::make_shared<bridge_state>();
  state->fronts = std::move(fronts);
  state->hits = std::move(hits);
  return [state](api_call&& call) {
    if (answer_from_board(state->hits, call))
      return;
    if (state->fronts.empty())
      return;
    auto index = state->next.fetch_add(1, std::memory_order_relaxed) % state->fronts.size();
    caf::anon_send(state->fronts[index], std::move(call));
  };
}

} // namespace netherscope
