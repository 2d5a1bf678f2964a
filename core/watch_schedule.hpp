// The watch schedule's pure part (docs/WATCHES.md, "The schedule"): each watched target's
// slot within its period is a stable hash of the target, so checks spread over the period and
// stay where they were across restarts; and the claim-and-lease model the replicas share,
// written as a state machine without a store. Redis (a sorted set and a Lua script) and LMDB
// (one process) implement the same transitions and run the same tests.
//
// Times are Unix milliseconds, so slots spread within a second too.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace netherscope::core {

/// The schedule's key of a watched target: "<host>|<port>" with the normalized host. The
/// schedule and the history are per target, so two watches of one server share its checks
/// (at the shorter of their periods).
std::string schedule_key(std::string_view host, std::uint16_t port);

/// The target's place within any period of period_ms (at least 1): a number in
/// [0, period_ms) from the SHA-256 of its key, the same on every replica and after restarts.
std::int64_t slot_offset(std::string_view key, std::int64_t period_ms);

/// The target's first slot strictly after now_ms: the smallest t > now_ms with
/// t = slot_offset (mod period_ms). A check that ran late is not run again for the slots it
/// missed; the next one is the next slot.
std::int64_t next_due(std::string_view key, std::int64_t period_ms, std::int64_t now_ms);

/// How late a check started: started_ms - due_ms, or 0 when it was not late.
std::int64_t lag_ms(std::int64_t due_ms, std::int64_t started_ms);

/// A histogram of lags, for the schedule's metric and its benchmark.
class lag_histogram {
public:
  /// Upper bounds of the buckets, in milliseconds (a last bucket above them is implied).
  static constexpr std::array<std::int64_t, 11> bounds_ms{100,  250,   500,   1000,  2500, 5000,
                                                          10000, 30000, 60000, 120000, 300000};

  /// Counts one lag.
  void add(std::int64_t lag);

  /// Lags counted.
  std::uint64_t count() const { return count_; }

  /// Lags in bucket i (not cumulative); i == bounds_ms.size() is the bucket above the bounds.
  std::uint64_t bucket(std::size_t i) const { return buckets_[i]; }

  /// The sum of the lags counted, milliseconds.
  std::int64_t sum_ms() const { return sum_; }

  /// The largest lag counted, milliseconds.
  std::int64_t max_ms() const { return max_; }

  /// An upper bound on the q-quantile (0 < q <= 1): the smallest bucket bound at or under
  /// which at least q of the lags fell, or max_ms() when that is above every bound; 0
  /// without lags.
  std::int64_t quantile_bound_ms(double q) const;

private:
  std::array<std::uint64_t, bounds_ms.size() + 1> buckets_{};
  std::uint64_t count_ = 0;
  std::int64_t sum_ = 0;
  std::int64_t max_ = 0;
};

/// One target in the schedule.
struct schedule_entry {
  std::string key;
  std::int64_t period_ms = 0;
  /// The slot the entry waits for or is being checked for.
  std::int64_t due_ms = 0;
  /// When it may be claimed: due_ms while nobody holds it, the lease's end while somebody
  /// does (so an expired lease makes it claimable again, as a due entry is).
  std::int64_t ready_ms = 0;
  /// Who holds the lease; empty when nobody does.
  std::string owner;
};

/// An entry handed to an owner by claim.
struct schedule_claim {
  std::string key;
  /// The slot to check (and to measure the lag from).
  std::int64_t due_ms = 0;
  /// The lease's end: the owner completes before it, or another owner may take the entry.
  std::int64_t lease_until_ms = 0;
  /// The owner whose lease had expired, when this claim takes an entry over; else empty.
  std::string taken_from;
};

/// The schedule as every store keeps it: entries by key, and an index by (ready, key), the
/// order a Redis sorted set scored by ready_ms gives.
class watch_schedule {
public:
  /// Adds a target, due at its next slot after now; or changes the period of one already
  /// there: unless it is leased, it waits for its next slot under the new period (a lease
  /// keeps its check, and completing it uses the new period).
  void put(std::string key, std::int64_t period_ms, std::int64_t now_ms);

  /// Removes a target; false when it was not there. A lease on it is dropped: completing it
  /// then does nothing.
  bool remove(std::string_view key);

  /// Hands owner up to max entries that are ready at now (due and not held, or held on an
  /// expired lease), earliest ready first (ties by key), each leased until now + lease_ms.
  std::vector<schedule_claim> claim(const std::string& owner, std::int64_t now_ms,
                                    std::size_t max, std::int64_t lease_ms);

  /// The owner finished checking key for due_ms at now: the entry waits for its next slot
  /// after now. False, changing nothing, when the owner does not hold that entry for that
  /// slot (another owner took it over, or it was removed or completed already).
  bool complete(std::string_view key, std::string_view owner, std::int64_t due_ms,
                std::int64_t now_ms);

  /// The earliest time an entry becomes ready, for the claimer's timer; none when empty.
  std::optional<std::int64_t> next_ready() const;

  /// The entry of key, or null.
  const schedule_entry* find(std::string_view key) const;

  /// Entries in the schedule.
  std::size_t size() const { return entries_.size(); }

  /// Every entry's key, in key order.
  std::vector<std::string> keys() const;

private:
  void set_ready(schedule_entry& entry, std::int64_t ready_ms);

  std::map<std::string, schedule_entry, std::less<>> entries_;
  std::set<std::pair<std::int64_t, std::string>> ready_;
};

/// The lease for a check that takes at most check_deadline_ms: the deadline and a margin of
/// 5 s, so a lease outlives its check and no slot runs twice. A dead owner's entries are
/// taken over within two periods when the lease and the claimers' polling interval together
/// are at most one period (docs/WATCHES.md).
std::int64_t lease_for(std::int64_t check_deadline_ms);

} // namespace netherscope::core
