#include "actors/edge_bridge.hpp"

#include <atomic>
#include <memory>

#include <caf/send.hpp>

namespace netherscope {

namespace {

/// What the sink shares among its copies: the fronts and the turn counter.
struct bridge_state {
  std::vector<front_actor> fronts;
  std::atomic<std::size_t> next{0};
};

} // namespace

call_sink make_edge_bridge(std::vector<front_actor> fronts) {
  auto state = std::make_shared<bridge_state>();
  state->fronts = std::move(fronts);
  return [state](api_call&& call) {
    if (state->fronts.empty())
      return;
    auto index = state->next.fetch_add(1, std::memory_order_relaxed) % state->fronts.size();
    caf::anon_send(state->fronts[index], std::move(call));
  };
}

} // namespace netherscope
