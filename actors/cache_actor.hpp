// The cache actor: offer results for 120 s, single flight per target, stale fallback.
#pragma once

#include <functional>
#include <map>
#include <vector>

#include "actors/messages.hpp"
#include "actors/hit_board.hpp"
#include "actors/offer_cache.hpp"

namespace netherscope {

/// Settings of the cache actor.
struct cache_settings {
  offer_cache::limits limits;
  /// The longest the cache waits for a probe's answer: the probe's own deadlines end the
  /// fetch before this; the margin only guards against a lost reply.
  std::chrono::milliseconds flight_deadline{30000};
  /// The clock that ages entries; tests replace it.
  std::function<offer_cache::clock_type::time_point()> now = offer_cache::clock_type::now;
  /// The clock whose time replies show as retrievedAt and expiresAt; tests replace it.
  std::function<offer_cache::wall_clock::time_point()> wall_now = offer_cache::wall_clock::now;
  /// Where the cache publishes its plain hits for the edge bridge (actors/hit_board.hpp);
  /// none when nothing reads them.
  std::shared_ptr<hit_board> board;
};

/// State of the cache actor.
struct cache_state {
  static inline const char* name = "offer_cache";
  explicit cache_state() : cache(offer_cache::limits{}) {
    // nop
  }
  cache_settings settings;
  offer_cache cache;
  probe_registry_actor registry;
  /// Callers waiting for the upstream offer in flight for a target, with and without
  /// reachability checks (the probe actor still sends the target one offer at a time).
  std::map<std::pair<target, bool>, std::vector<caf::typed_response_promise<offer_reply>>>
    flights;
};

/// Implements cache_actor.
cache_actor::behavior_type cache(cache_actor::stateful_pointer<cache_state> self,
                                 probe_registry_actor registry, cache_settings settings);

} // namespace netherscope
