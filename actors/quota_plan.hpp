// The quota actor's batch plan: pure functions from a batch of charges (and the key records
// they name) to the counter operations of one store batch, and from what the store answered
// to each charge's verdict. apply_charges runs them around the batch's two store calls; the
// actor (actors/quota_actor.cpp) adds the waiting, the durability and the reservations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/quota.hpp"
#include "storage/records.hpp"
#include "storage/store.hpp"

namespace netherscope::actors {


/// Monthly limits per endpoint and scope (SPEC 8.1).
struct quota_limits {
  std::uint64_t info_ip = 2000;
  std::uint64_t info_key = 20000;
  std::uint64_t offer_ip = 200;
  std::uint64_t offer_key = 2000;
  /// Sign-in callbacks per client address and hour (never per key: a sign-in has none).
  std::uint64_t signin_ip = 20;

  std::uint64_t of(core::endpoint what, core::quota_scope scope) const {
    if (what == core::endpoint::signin)
      return signin_ip;
    if (what == core::endpoint::info)
      return scope == core::quota_scope::ip ? info_ip : info_key;
    return scope == core::quota_scope::ip ? offer_ip : offer_key;
  }
};

/// A reservation's share of a limit: at most limit / reserve_share calls are counted ahead, so
/// a crash costs a caller at most that share of a month.
constexpr std::uint64_t reserve_share = 64;

/// The name of an endpoint in storage keys and messages.
std::string_view endpoint_name(core::endpoint what);

/// One charge as a counter operation, with what its verdict needs besides the count.
struct planned_charge {
  storage::counter_op op;
  core::quota_scope scope = core::quota_scope::ip;
  std::uint64_t user_id = 0;
  /// Set for a key that is unknown or revoked: the call counts against the address and is
  /// refused with this.
  std::string key_refusal;
};

/// What to count for one charge at now_unix, in month (storage::window_of(now_unix)), given
/// its key record when it sent a key (null when it sent none, or for a refund, which names
/// its counter itself).
planned_charge plan_charge(const quota_limits& limits, const core::quota_charge& charge,
                           const std::optional<storage::key_record>* key, std::int64_t now_unix,
                           const storage::month_window& month);

/// The verdict of one planned charge once the store counted it.
core::quota_verdict verdict_of(const core::quota_charge& charge, const planned_charge& planned,
                         const storage::counter_result& result, std::int64_t now_unix);

/// The verdict of a charge whose store failed, with what is still known: the scope the call
/// asked for, its limit and the reset; how many calls are left is not known.
core::quota_verdict store_failed(const core::quota_charge& charge, const quota_limits& limits,
                           std::int64_t now_unix);

/// The key lookups of a batch, made in one store call.
struct key_lookups {
  /// The key hashes to look up.
  std::vector<std::string> hashes;
  /// Per charge: its key's index in hashes, or none (no key, a sign-in, a refund).
  std::vector<std::optional<std::size_t>> index;
};

/// The keys a batch of charges must look up.
key_lookups keys_to_find(const std::vector<core::quota_charge>& charges);

/// The counter operations of a batch: the give-backs first, so a charge behind them may use
/// what they free, then one per charge.
struct batch_plan {
  std::vector<planned_charge> charges;
  std::vector<storage::counter_op> ops;
  /// How many of ops are give-backs.
  std::size_t give_backs = 0;
};

/// Plans a batch: charges with the calls to count ahead for each (reserve[i], capped at the
/// limit's reserve_share; empty for none), with_caller[i] false for a charge that only
/// reserves, the give-backs to send with it, and the key records found for lookups.
batch_plan plan_batch(const quota_limits& limits, const std::vector<core::quota_charge>& charges,
                      const std::vector<std::uint64_t>& reserve,
                      const std::vector<bool>& with_caller,
                      std::vector<storage::counter_op> give_backs, const key_lookups& lookups,
                      const std::vector<std::optional<storage::key_record>>& keys,
                      std::int64_t now_unix);

/// What a batch of charges did in the store.
struct charged_batch {
  std::vector<core::quota_verdict> verdicts;
  /// Per charge: its counter and what the store answered for it (empty when the store
  /// failed).
  std::vector<storage::counter_op> counters;
  std::vector<storage::counter_result> results;
  /// Per charge: the calls counted ahead beyond the charge's own.
  std::vector<std::uint64_t> reserved;
  /// The store failed: nothing was counted, and every verdict says unavailable.
  bool failed = false;
};

/// The verdicts of a planned batch from what the store answered, one result per operation
/// (give-backs included). A verdict shows the calls made, not the ones counted ahead.
charged_batch read_batch(batch_plan&& plan, const std::vector<core::quota_charge>& charges,
                         const std::vector<bool>& with_caller,
                         const std::vector<storage::counter_result>& results,
                         std::int64_t now_unix);

/// A batch whose store failed: every charge unavailable, nothing counted.
charged_batch failed_batch(const std::vector<core::quota_charge>& charges, const quota_limits& limits,
                           std::int64_t now_unix);

/// Answers a batch of charges with one key lookup and one counter batch on the store; a
/// store that fails answers every charge unavailable and counts none.
std::vector<core::quota_verdict> apply_charges(storage::store& store, const quota_limits& limits,
                                         const std::vector<core::quota_charge>& charges,
                                         std::int64_t now_unix);

/// apply_charges, with calls counted ahead (reserve[i] for charge i, capped at the limit's
/// reserve_share; empty for none), with_caller[i] false for a charge that only reserves, and
/// extra counter operations (give-backs) in the same store batch.
charged_batch apply_charges(storage::store& store, const quota_limits& limits,
                            const std::vector<core::quota_charge>& charges,
                            const std::vector<std::uint64_t>& reserve,
                            const std::vector<bool>& with_caller,
                            const std::vector<storage::counter_op>& extra,
                            std::int64_t now_unix);

/// Logs a failed store call of the quota actor, sampled: a store that is down fails every
/// batch.
void log_store_failure(const caf::error& err);

} // namespace netherscope::actors
