// The keys actor: accounts and their API keys, used sign-in states and the account page's
// sessions, in the store's record tables (LMDB or Redis). Runs detached: commits block on
// disk or on a round trip.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "actors/messages.hpp"
#include "actors/quota_actor.hpp"

namespace netherscope::actors {

/// What the keys actor needs besides the store.
struct keys_settings {
  /// The quotas, which fill the account view.
  quota_limits limits;
  /// New keys per account and clock hour, from the API and the account page together; the
  /// admin CLI is not limited.
  std::uint64_t rotations_per_hour = 5;
  /// Unix time now; tests move it past expiries and hours.
  std::function<std::int64_t()> now;
  /// How often expired states, sessions, old revoked keys and past hourly counters are
  /// pruned; 0 never (tests prune by message).
  std::chrono::milliseconds sweep_interval{std::chrono::minutes(10)};
  /// Records deleted per prune at most, so one prune never holds the writer lock for long; a
  /// prune that had more to do runs again soon.
  std::size_t sweep_limit = 1000;
};

/// State of the keys actor.
struct keys_state {
  static inline const char* name = "keys";
  std::shared_ptr<storage::store> store;
  keys_settings settings;
};

/// Implements keys_actor over the store; spawn it detached.
actors::keys_actor::behavior_type keys(keys_actor::stateful_pointer<keys_state> self,
                               std::shared_ptr<storage::store> store,
                               keys_settings settings);

} // namespace netherscope::actors
