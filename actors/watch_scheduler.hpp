// The watch scheduler: runs each watched server's check on its period (docs/WATCHES.md, "The
// schedule"). On its own timers it asks the history actor to bring the schedule in line with
// the watches and to claim the checks that are due, runs each as GET /api/check does (both
// transports' status, then a join with its own fresh offer; no quota, but the per-target
// limit and the join workers' limit as for any call), and hands the row to the history actor, which stores it
// and answers the check before it. Replicas on one Redis share the schedule by claims with
// leases, so each check runs on one of them.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "actors/messages.hpp"
#include "core/watch_schedule.hpp"

namespace netherscope::actors {

/// What the scheduler needs to know.
struct scheduler_settings {
  /// Who this replica is in the schedule's leases: unique per process (drawn at random when
  /// empty).
  std::string owner;
  /// How often it asks for due checks, and how often it reads the watches again.
  std::chrono::milliseconds poll_interval{1000};
  std::chrono::milliseconds sync_interval{10000};
  /// The most checks it runs at once; due checks beyond them wait for the next poll.
  std::size_t max_in_flight = 64;
  /// The longest one check may take (the status, then the join); its lease adds a margin.
  std::chrono::milliseconds check_deadline{65000};
  /// The status calls' and the join's deadlines, as for GET /api/check.
  std::chrono::milliseconds info_deadline{20000};
  std::chrono::milliseconds join_deadline{40000};
  /// Unix milliseconds now; tests set it.
  std::function<std::int64_t()> now_ms;
};

/// The actors a check asks.
struct scheduler_peers {
  probe_registry_actor registry;
  history_actor history;
};

/// State of the scheduler.
struct scheduler_state {
  static inline const char* name = "watch_scheduler";
  scheduler_settings settings;
  scheduler_peers peers;
  /// Checks claimed and not yet recorded.
  std::size_t in_flight = 0;
  /// Whether a claim is out (so polls never overlap).
  bool claiming = false;
};

/// Implements watch_scheduler_actor: starts its sync and its polls at once.
watch_scheduler_actor::behavior_type
watch_scheduler(watch_scheduler_actor::stateful_pointer<scheduler_state> self,
                scheduler_peers peers, scheduler_settings settings);

} // namespace netherscope::actors
