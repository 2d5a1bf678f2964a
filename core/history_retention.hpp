// How long a watched server's history is kept and how much of it may be kept: raw rows 48
// hours, hourly aggregates 90 days, each also capped at a count that follows from the target's
// period (docs/WATCHES.md, "Retention and budget"). Pure: the store applies the rule after each
// write, to that one target, so pruning never stops the schedule.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace netherscope::core {

/// How long raw rows are kept, in seconds.
inline constexpr std::int64_t rows_kept_seconds = 48 * 3600;

/// How long hourly aggregates are kept, in seconds.
inline constexpr std::int64_t hours_kept_seconds = 90 * 24 * 3600;

/// The period the budget stated in the docs assumes: --watch-min-period's default.
inline constexpr std::int64_t budget_period_seconds = 60;

/// How much history one watched server may hold.
struct history_budget {
  /// Raw rows.
  std::size_t rows = 0;
  /// Hourly aggregates.
  std::size_t hours = 0;

  /// The bytes of the records themselves (history_row_size and history_hour_size each),
  /// without the store's keys and overhead.
  std::size_t record_bytes() const;
};

/// The budget of a server checked every period_seconds (below 1 counts as 1): as many rows
/// as 48 hours hold at that period, rounded up (2,880 at 60 s), and one aggregate per hour of
/// 90 days (2,160).
history_budget budget_for(std::int64_t period_seconds);

/// What a prune deletes from one server's rows or hours: every entry older than drop_before,
/// then the oldest until at most keep_at_most are left.
struct prune_rule {
  /// Entries with a time (a row's at, an hour's start) before this are deleted, Unix seconds.
  std::int64_t drop_before = 0;
  std::size_t keep_at_most = 0;
};

/// The rule for raw rows at now: older than 48 hours, or beyond budget.rows.
prune_rule rows_rule(std::int64_t now, const history_budget& budget);

/// The rule for hourly aggregates at now: started more than 90 days ago, or beyond
/// budget.hours.
prune_rule hours_rule(std::int64_t now, const history_budget& budget);

/// How many entries to delete from the front of a server's entries, given their times in
/// ascending order (both stores keep them so): the rule always deletes the oldest.
std::size_t entries_to_drop(const std::vector<std::int64_t>& ascending_times,
                            const prune_rule& rule);

} // namespace netherscope::core
