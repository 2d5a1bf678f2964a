// The front actor: serves calls of the public API by asking the other actors.
#pragma once

#include <chrono>

#include "actors/messages.hpp"

namespace netherscope {

/// What the front actor needs to know.
struct front_settings {
  /// The longest an info call may take before the front gives up on the probe: the probe's
  /// own deadlines end it well before this; the margin only guards against a lost reply.
  std::chrono::milliseconds info_deadline{20000};
  /// The same for offers.
  std::chrono::milliseconds offer_deadline{35000};
};

/// The actors the front asks.
struct front_peers {
  probe_registry_actor registry;
  cache_actor cache;
};

/// Implements front_actor.
front_actor::behavior_type front(front_actor::pointer self, front_peers peers,
                                 front_settings settings);

} // namespace netherscope
