// The cache actor: offer results for 120 s, single flight per target, stale fallback.
#pragma once

#include <functional>
#include <map>
#include <vector>

#include "actors/messages.hpp"
#include "actors/hit_board.hpp"
#include "actors/offer_cache.hpp"
#include "storage/shared_store.hpp"

namespace netherscope::actors {


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
  /// Where the cache publishes its plain hits for the io threads' boards, which the edge
  /// bridge reads (actors/hit_board.hpp); none when nothing reads them.
  board_publisher publish_hits;
  /// The part of a store shared across hosts (Redis), through which replicas share cached
  /// offers and one flight per target; null keeps both in this process.
  std::shared_ptr<storage::shared_store> shared{};
  /// How often a replica waiting for another's flight looks for its result.
  std::chrono::milliseconds shared_poll{50};
};

/// A flight that asked the shared store and waits for its answer.
struct shared_flight {
  std::string network_id;
  /// This flight's lock token.
  std::string owner;
  /// When to stop waiting for another replica and fetch here.
  offer_cache::clock_type::time_point give_up;
};

/// State of the cache actor.
struct cache_state {
  static inline const char* name = "offer_cache";
  explicit cache_state() : cache(offer_cache::limits{}) {
    // nop
  }
  cache_settings settings;
  offer_cache cache;
  actors::probe_registry_actor registry;
  /// Callers waiting for the upstream offer in flight for a target, with and without
  /// reachability checks (the probe actor still sends the target one offer at a time).
  std::map<std::pair<core::target, bool>, std::vector<caf::typed_response_promise<core::offer_reply>>>
    flights;
  /// The flights this replica fetches holding the shared lock, with the lock's owner token.
  std::map<std::pair<core::target, bool>, std::string> owned_locks;
  /// The flights waiting for the shared store's answer.
  std::map<std::pair<core::target, bool>, shared_flight> shared_flights;
  /// The detached actor that makes the blocking calls to a store shared across hosts; none
  /// when offers are cached in this process only.
  caf::actor shared_worker;
};

/// What the shared store says about a flight, looked at once: another replica's cached offer
/// ("hit"), the lock to fetch it ("owned"), another replica holding the lock ("busy"), or
/// nothing usable ("fetch": the store failed).
struct shared_lookup {
  std::string kind = "fetch";
  storage::shared_offer offer;
};

/// One look at the shared store for a flight: the cached offer, else the lock.
shared_lookup look_up_shared_once(storage::shared_store& store, const core::target& where,
                                  bool probe, const std::string& owner,
                                  std::chrono::milliseconds lock_ttl);

/// The shared-offers worker: answers lookup_atom (target, probe, owner) with one look, sent to
/// cache as shared_atom, and stores a finished flight's result and frees its lock on
/// publish_atom. Spawn it detached: every call blocks on the store.
caf::behavior shared_offers(caf::event_based_actor* self,
                            std::shared_ptr<storage::shared_store> store, actors::cache_actor cache,
                            std::chrono::milliseconds lock_ttl, std::chrono::seconds offer_ttl);

/// Implements cache_actor.
actors::cache_actor::behavior_type cache(cache_actor::stateful_pointer<cache_state> self,
                                 actors::probe_registry_actor registry, cache_settings settings);

} // namespace netherscope::actors
