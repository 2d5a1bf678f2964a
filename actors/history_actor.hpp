// The history actor: the store side of watched servers' checks (docs/WATCHES.md). It brings
// the schedule in line with the accounts' watches, hands due checks to the scheduler,
// completes them and stores their rows (pruning each server's history as it writes), and
// reads a server's history for whoever may see it. A stored check whose verdict changed in a
// way owners are alerted about (core/watch_change) goes to the webhook actor. A sync whose
// watches' generation is the one it last sent leaves the schedule alone, and /metrics reads
// the latest checks from the store at most once per sync. It knows nothing of HTTP and runs
// detached: every call blocks on the store.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "actors/messages.hpp"
#include "storage/store.hpp"
#include "storage/watch_records.hpp"
#include "storage/watch_store.hpp"

namespace netherscope::actors {

/// How many syncs in a row may find the watches' generation unchanged and leave the schedule
/// alone; the next one sends every server again anyway. The generation covers every change of
/// the watches, but not a schedule that lost what a sync wrote (a Redis brought back from an
/// older copy, a replica stopped in the middle of its sync after another's sync): this mends
/// such a schedule within that many sync intervals.
inline constexpr unsigned max_unchanged_syncs = 30;

/// State of the history actor.
struct history_state {
  static inline const char* name = "history";
  std::shared_ptr<storage::store> store;
  std::shared_ptr<storage::watch_store> watching;
  /// Unix milliseconds now; tests set it.
  std::function<std::int64_t()> now_ms;
  /// Where a check that changed something owners are alerted about is told (none: nowhere).
  webhook_actor alerts;
  /// The watched servers as the last sync read them, by schedule key: their periods (for the
  /// history budget) and whether anyone may read their history.
  std::map<std::string, storage::watched_target, std::less<>> targets;
  /// The watches' generation the last full sync read (storage::watches_generation), and how
  /// many syncs since found it unchanged and left the schedule alone.
  std::optional<std::string> synced_generation;
  unsigned unchanged_syncs = 0;
  /// The latest stored check of each public server, by schedule key, for /metrics: read from
  /// the store by the first scrape after each sync, since on Redis other replicas store checks
  /// too, and kept up to date in between with the checks this actor stores. So scrapes read
  /// the store at most once per sync interval, and another replica's check shows within one.
  std::map<std::string, core::history_row, std::less<>> latest;
  /// Whether latest must be read again (no scrape read it since the last sync).
  bool latest_stale = true;
};

/// Implements history_actor over the store; spawn it detached.
history_actor::behavior_type history(history_actor::stateful_pointer<history_state> self,
                                     std::shared_ptr<storage::store> store,
                                     std::shared_ptr<storage::watch_store> watching,
                                     std::function<std::int64_t()> now_ms,
                                     webhook_actor alerts);

} // namespace netherscope::actors
