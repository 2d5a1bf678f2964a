// The quota actor: monthly usage counters in the store (LMDB or Redis), charged in batches.
//
// Charges that arrive together are applied as one batch (one LMDB write transaction, or one
// Redis script call) and answered only after the store acknowledged it, so a reply never
// leaves before its charge is durable, and one fsync or one round trip serves a whole batch.
// The actor runs on its own thread (detached) because the store's calls block.
//
// Reservations: a caller who is busy (a second call within a second of the first) gets calls
// counted ahead. The batch that charges one of its calls adds up to reserve_max more to the
// same counter, at most 1/64 of the limit, and once that batch is durable the next calls are
// answered from the reservation without waiting for the store. Every answered call is still
// on disk (or in Redis) before its reply: the store's count is never below what was answered.
// A crash keeps the unused part of a reservation counted, so a busy caller may lose up to
// reserve_max calls to a crash, never gain any; an unused reservation is given back after
// reserve_ttl and when the service stops. A key revoked meanwhile still serves what was
// reserved for it, at most reserve_max calls within reserve_ttl of its last lookup.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "actors/messages.hpp"
#include "storage/store.hpp"

namespace netherscope {

/// Monthly limits per endpoint and scope (SPEC 8.1).
struct quota_limits {
  std::uint64_t info_ip = 2000;
  std::uint64_t info_key = 20000;
  std::uint64_t offer_ip = 200;
  std::uint64_t offer_key = 2000;
  /// Sign-in callbacks per client address and hour (never per key: a sign-in has none).
  std::uint64_t signin_ip = 20;

  std::uint64_t of(endpoint what, quota_scope scope) const {
    if (what == endpoint::signin)
      return signin_ip;
    if (what == endpoint::info)
      return scope == quota_scope::ip ? info_ip : info_key;
    return scope == quota_scope::ip ? offer_ip : offer_key;
  }
};

/// Settings of the quota actor.
struct quota_settings {
  quota_limits limits;
  /// Unix time now; tests move it across month boundaries.
  std::function<std::int64_t()> now;
  /// The most calls counted ahead for one busy caller (see "Reservations" above); 0 counts
  /// every call on its own.
  std::uint64_t reserve_max = 0;
  /// How long a reservation lasts after the store last counted for it.
  std::chrono::milliseconds reserve_ttl{1000};
};

/// A reservation's share of a limit: at most limit / reserve_share calls are counted ahead, so
/// a crash costs a caller at most that share of a month.
constexpr std::uint64_t reserve_share = 64;

/// What a batch of charges did in the store.
struct charged_batch {
  std::vector<quota_verdict> verdicts;
  /// Per charge: its counter and what the store answered for it (empty when the store
  /// failed).
  std::vector<storage::counter_op> counters;
  std::vector<storage::counter_result> results;
  /// Per charge: the calls counted ahead beyond the charge's own.
  std::vector<std::uint64_t> reserved;
  /// The store failed: nothing was counted, and every verdict says unavailable.
  bool failed = false;
};

/// State of the quota actor.
struct quota_state {
  static inline const char* name = "quota";
  std::shared_ptr<storage::store> store;
  quota_settings settings;
  /// A charge waiting for the next batch, and who hears its verdict: the actor that asked
  /// (promise) or, when set, a callback (then). A charge with neither only refills a
  /// reservation.
  struct waiting {
    quota_charge charge;
    caf::typed_response_promise<quota_verdict> promise;
    verdict_fn then;
    /// The caller's reservation (reservation_id), when its calls may be counted ahead.
    std::string reservation;
    /// Calls to count ahead with this one.
    std::uint64_t reserve = 0;
    bool has_caller() const {
      return static_cast<bool>(then) || promise.pending();
    }
  };
  std::vector<waiting> pending;
  /// A batch the store applied but has not yet made durable (store::defers_durability),
  /// answered after the next batch's commit or an explicit flush.
  struct held_batch {
    std::vector<waiting> callers;
    std::vector<quota_charge> charges;
    charged_batch charged;
  };
  held_batch held;
  bool flush_scheduled = false;
  /// Calls counted ahead for one caller (one endpoint, and one address or one key).
  struct reservation {
    /// Calls the store counted and no reply has used yet; only durable ones are added.
    std::uint64_t unused = 0;
    /// The counter's value after the store last counted for this caller.
    std::uint64_t counted = 0;
    /// Asked of the store and not yet durable.
    std::uint64_t in_flight = 0;
    /// The size of the last reservation asked, which the next one doubles.
    std::uint64_t last_size = 0;
    /// The verdict of the call the store last counted (scope, limit, reset, user id).
    quota_verdict verdict;
    /// That call's counter, to give the unused part back.
    storage::counter_op counter;
    /// The call that refills the reservation.
    quota_charge charge;
    std::chrono::steady_clock::time_point expires;
  };
  std::unordered_map<std::string, reservation> reservations;
  /// Unused reservations to give back with the next batch.
  std::vector<storage::counter_op> give_back;
  bool sweep_scheduled = false;
};

/// Implements quota_actor over any store; spawn it detached.
quota_actor::behavior_type quota_on(quota_actor::stateful_pointer<quota_state> self,
                                    std::shared_ptr<storage::store> store,
                                    quota_settings settings);

/// Answers a batch of charges with one key lookup and one counter batch on the store; a
/// store that fails answers every charge unavailable and counts none.
std::vector<quota_verdict> apply_charges(storage::store& store, const quota_limits& limits,
                                         const std::vector<quota_charge>& charges,
                                         std::int64_t now_unix);

/// apply_charges, with calls counted ahead (reserve[i] for charge i, capped at the limit's
/// reserve_share; empty for none), with_caller[i] false for a charge that only reserves, and
/// extra counter operations (give-backs) in the same store batch.
charged_batch apply_charges(storage::store& store, const quota_limits& limits,
                            const std::vector<quota_charge>& charges,
                            const std::vector<std::uint64_t>& reserve,
                            const std::vector<bool>& with_caller,
                            const std::vector<storage::counter_op>& extra,
                            std::int64_t now_unix);

/// The name of an endpoint in storage keys and messages.
std::string_view endpoint_name(endpoint what);

} // namespace netherscope
