// The probe registry: one probe actor per target, spawned on demand, retired when idle.
#pragma once

#include <map>
#include <memory>

#include "actors/messages.hpp"
#include "actors/probe_actor.hpp"

namespace netherscope::actors {


/// State of the registry.
struct probe_registry_state {
  static inline const char* name = "probe_registry";

  /// A live probe and how many requests the registry forwarded to it.
  struct entry {
    actors::probe_actor handle;
    std::uint64_t forwarded = 0;
  };

  probe_deps deps;
  std::map<core::target, entry> probes;
};

/// Implements probe_registry_actor.
actors::probe_registry_actor::behavior_type
probe_registry(probe_registry_actor::stateful_pointer<probe_registry_state> self,
               probe_deps deps);

} // namespace netherscope::actors
