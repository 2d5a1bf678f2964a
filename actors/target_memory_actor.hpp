// The memory actor: what the service remembers about targets between calls, in the store.
//
// Detached (a thread of its own) because a write transaction waits for the disk and for any
// other writer of the environment (the quota actor's group commits), and that must stall
// neither an Asio thread nor a scheduler worker. Probes ask it before a call (one read
// transaction) and tell it what the call taught, which is rare: a scheme learned, changed or
// past half its lifetime, or a new identity key. Writes are applied in arrival order, so a
// recall that follows a remember sees it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

#include "actors/messages.hpp"
#include "storage/store.hpp"

namespace netherscope::actors {

/// Where the memory lives and how often expired records are swept.
struct memory_settings {
  /// Unix time now; tests move it past expiries.
  std::function<std::int64_t()> now;
  /// How often expired scheme records are deleted; 0 never.
  std::chrono::milliseconds sweep_interval{std::chrono::minutes(10)};
  /// Records deleted per sweep at most, so one sweep never holds the writer lock for long.
  std::size_t sweep_limit = 1000;
  /// The store the memory lives in (LMDB or Redis).
  std::shared_ptr<storage::store> store{};
};

/// State of the memory actor.
struct memory_state {
  static inline const char* name = "memory";
  memory_settings settings;
};

/// Implements memory_actor; spawn it detached.
actors::memory_actor::behavior_type memory(memory_actor::stateful_pointer<memory_state> self,
                                   memory_settings settings);

} // namespace netherscope::actors
