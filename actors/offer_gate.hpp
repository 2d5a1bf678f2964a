// The offer gate: the per-target offer limit that replicas on a store shared across hosts
// (Redis) keep together. Each fetch first passes its own process's limit
// (net/upstream/offer_limiter) on its io thread; the gate then asks the store, on a detached
// thread of its own, so no io thread ever waits on Redis.
#pragma once

#include <chrono>
#include <memory>

#include "actors/messages.hpp"
#include "net/upstream/offer_limiter.hpp"
#include "storage/shared_store.hpp"

namespace netherscope::actors {

namespace upstream = net::upstream;

/// Settings of the offer gate.
struct offer_gate_settings {
  unsigned per_minute = 6;
  /// How long an in-flight mark outlives a replica that died holding it: the longest a
  /// fetch may take.
  std::chrono::milliseconds in_flight_ttl{std::chrono::seconds(20)};
};

/// Implements offer_gate_actor over the shared store; spawn it detached. A store that fails
/// lets the offer go (each replica's own limit still holds) and logs why.
offer_gate_actor::behavior_type offer_gate(std::shared_ptr<storage::shared_store> store,
                                           offer_gate_settings settings);

/// The limiter's side of the gate: messages to gate, for upstream::offer_limiter::share.
upstream::shared_offer_gate gate_through(offer_gate_actor gate);

} // namespace netherscope::actors
