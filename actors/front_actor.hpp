// The front actor: serves each call by asking the other actors, in order: count the call,
// then do the work, then reply once through the call's callback.
#pragma once

#include <chrono>

#include "actors/auth_actor.hpp"
#include "actors/keys_actor.hpp"
#include "actors/messages.hpp"
#include "actors/quota_actor.hpp"
#include "net/upstream/oauth.hpp"

namespace netherscope::actors {

namespace upstream = net::upstream;

/// What the front actor needs to know.
struct front_settings {
  /// The longest an info call may take before the front gives up on the probe: the probe's
  /// own deadlines end it well before this; the margin only guards against a lost reply.
  std::chrono::milliseconds info_deadline{20000};
  /// The same for a join: its offer's connection and answer, the worker's time and its grace.
  std::chrono::milliseconds join_deadline{40000};
  /// The same for the store and for sign-in.
  std::chrono::milliseconds store_deadline{30000};
  std::chrono::milliseconds signin_deadline{30000};
  /// Sign-in settings; sign-in answers 503 when they are not configured.
  upstream::oauth_settings oauth;
  /// The key that signs sign-in states (kept in the store, shared by replicas).
  std::string state_key;
  /// The quotas, for the headers of a check whose charge the store could not record.
  quota_limits limits;
};

/// The actors the front asks.
struct front_peers {
  actors::probe_registry_actor registry;
  actors::cache_actor cache;
  actors::quota_actor quotas;
  actors::keys_actor accounts;
  auth_actor signin;
  /// The accounts' watches.
  actors::watch_actor watches;
  /// The watched servers' history.
  actors::history_actor history;
  /// Delivers the webhooks' tests.
  actors::webhook_actor webhooks;
};

/// Implements front_actor.
actors::front_actor::behavior_type front(front_actor::pointer self, front_peers peers,
                                 front_settings settings);

} // namespace netherscope::actors
