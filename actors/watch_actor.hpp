// The watch actor: the accounts' watches (docs/WATCHES.md, "Watches") in the store's record
// tables, on LMDB or Redis. It knows nothing of HTTP: a call names its caller by an API key's
// SHA-256 or the account page's session's, and the actor finds the account in the same record
// transaction that acts. Runs detached: commits block on disk or on a round trip.
//
// It also keeps the watches' webhooks (actors/watch_webhooks.hpp, storage/webhook_records.hpp);
// the webhook actor delivers to them. The scheduler and the history read the same records
// (storage/watch_records.hpp, watched_targets).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "actors/messages.hpp"
#include "core/watch.hpp"
#include "base/sealed.hpp"
#include "net/upstream/address_policy.hpp"
#include "storage/store.hpp"

namespace netherscope::actors {

/// What the watch actor needs besides the store.
struct watch_settings {
  /// The operator's limits: the shortest and longest period, watches per account.
  core::watch_bounds bounds;
  /// The targets' address policy: a watch of a server no check may reach is refused when it
  /// is made, with the code a check gives (forbidden_target).
  net::upstream::address_policy policy;
  /// Unix time now; tests set it.
  std::function<std::int64_t()> now;
  /// The operator's secrets key, which seals webhook secrets; without it no webhook is made.
  std::optional<base::secrets_key> secrets;
  /// Whether a webhook may be plain http to loopback (--allow-loopback).
  bool allow_loopback = false;
};

/// State of the watch actor.
struct watch_state {
  static inline const char* name = "watches";
  std::shared_ptr<storage::store> store;
  watch_settings settings;
};

/// Refuses a watch before the store is asked: a period outside the bounds (invalid_input) or
/// a target the policy refuses without a lookup (forbidden_target). No failure when it may
/// be made.
core::failure refuse_watch(const core::watch_spec& spec, const watch_settings& settings);

/// Implements watch_actor over the store; spawn it detached.
actors::watch_actor::behavior_type watches(watch_actor::stateful_pointer<watch_state> self,
                                           std::shared_ptr<storage::store> store,
                                           watch_settings settings);

} // namespace netherscope::actors
