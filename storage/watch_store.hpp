// What the watch scheduler keeps in the store: the schedule the replicas share and each
// watched server's history (docs/WATCHES.md, "The schedule", "History rows", "Retention and
// budget"). Both backends implement it: LMDB runs the schedule in the one process and keeps
// history in its main environment; Redis keeps both where every replica reads them.
// storage::open returns it beside the store.
//
// Servers are named by their schedule key, "<host>|<port>" (core/watch_schedule.hpp).
// Every call blocks, so the actor that uses it runs detached.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include "core/history_hours.hpp"
#include "core/history_retention.hpp"
#include "core/history_row.hpp"
#include "core/history_slice.hpp"
#include "core/watch_schedule.hpp"

namespace netherscope::storage {

/// A watched server as the schedule holds it.
struct scheduled_target {
  std::string key;
  std::int64_t period_ms = 0;
};

/// The schedule and the history of watched servers.
class watch_store {
public:
  virtual ~watch_store() = default;

  /// Makes the schedule hold exactly these servers at now: new ones wait for their next slot,
  /// changed periods apply as watch_schedule::put says, and servers no longer listed leave
  /// the schedule with their history. Returns the keys that left.
  virtual caf::expected<std::vector<std::string>>
  sync_schedule(const std::vector<scheduled_target>& targets, std::int64_t now_ms) = 0;

  /// watch_schedule::claim: up to max ready servers for owner, leased for lease_ms.
  virtual caf::expected<std::vector<core::schedule_claim>>
  claim_checks(const std::string& owner, std::int64_t now_ms, std::size_t max,
               std::int64_t lease_ms) = 0;

  /// watch_schedule::complete: false when owner no longer holds that server for that slot.
  virtual caf::expected<bool> complete_check(std::string_view key, std::string_view owner,
                                             std::int64_t due_ms, std::int64_t now_ms) = 0;

  /// Stores one check of the server, folds its hour again and prunes the server's rows and
  /// hours by the retention rules at row.at within budget. Returns the check before it (the
  /// latest stored row with an earlier time), if any.
  virtual caf::expected<std::optional<core::history_row>>
  record_check(std::string_view key, const core::history_row& row,
               const core::history_budget& budget) = 0;

  /// The server's rows with from <= at < to, ascending; rows that do not decode are skipped.
  virtual caf::expected<std::vector<core::history_row>>
  read_rows(std::string_view key, std::int64_t from, std::int64_t to) = 0;

  /// The server's stored hours with from <= start < to, ascending.
  virtual caf::expected<std::vector<core::history_hour>>
  read_hours(std::string_view key, std::int64_t from, std::int64_t to) = 0;

  /// Each server's latest stored check, if any, in the order of keys: one read for all.
  virtual caf::expected<std::vector<std::optional<core::history_row>>>
  latest_checks(const std::vector<std::string>& keys) = 0;
};

/// One range of a server's history at now: its rows for 24h, else its stored hours brought up
/// to date with the rows of the previous and the current hour (with_recent_hours).
caf::expected<core::history_slice> read_slice(watch_store& store, std::string_view key,
                                                  core::history_range range,
                                                  std::int64_t now);

} // namespace netherscope::storage
