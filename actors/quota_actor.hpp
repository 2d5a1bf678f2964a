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
//
// Leases: a cached offer the quota actor answers from a reservation may hand half of what is
// left to the io thread's edge that sent it, which then answers the caller's next calls
// without crossing threads (actors/edge_leases.hpp). The rules above hold for leased calls:
// they were counted and made durable before the lease, a lease ends with the reservation's
// time, and what it did not use comes back and is given back with the reservation. A lease
// holds at most half of what its reservation held, so each io thread adds at most
// reserve_max / 2 to a busy caller's calls counted ahead (what a crash may keep, and what a
// revoked key may still be answered from).
//
// The batch's plan is pure (actors/quota_plan.hpp) and the reservations are bookkeeping of
// their own (actors/quota_reservations.hpp); this file is the actor that waits, commits and
// answers.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actors/messages.hpp"
#include "actors/quota_plan.hpp"
#include "actors/quota_reservations.hpp"
#include "storage/store.hpp"

namespace netherscope::actors {


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

/// State of the quota actor.
struct quota_state {
  static inline const char* name = "quota";
  std::shared_ptr<storage::store> store;
  quota_settings settings;
  /// A charge waiting for the next batch, and who hears its verdict: the actor that asked
  /// (promise) or, when set, a callback (then). A charge with neither only refills a
  /// reservation.
  struct waiting {
    core::quota_charge charge;
    caf::typed_response_promise<core::quota_verdict> promise;
    actors::verdict_fn then;
    /// The caller's reservation (quota_reservations::id_of), when its calls may be counted
    /// ahead.
    std::string reservation;
    /// Calls to count ahead with this one.
    std::uint64_t reserve = 0;
    /// The io thread's edge that sent the charge, which may get a lease of the caller's
    /// calls counted ahead.
    edge_link_ptr edge;
    bool has_caller() const {
      return static_cast<bool>(then) || promise.pending();
    }
  };
  std::vector<waiting> pending;
  /// A batch the store applied but has not yet made durable (store::defers_durability),
  /// answered after the next batch's commit or an explicit flush.
  struct held_batch {
    std::vector<waiting> callers;
    std::vector<core::quota_charge> charges;
    charged_batch charged;
  };
  held_batch held;
  bool flush_scheduled = false;
  /// Calls counted ahead for busy callers, and what goes back with the next batch.
  quota_reservations reservations;
  bool sweep_scheduled = false;
};

/// Implements quota_actor over any store; spawn it detached.
actors::quota_actor::behavior_type quota_on(quota_actor::stateful_pointer<quota_state> self,
                                    std::shared_ptr<storage::store> store,
                                    quota_settings settings);


} // namespace netherscope::actors
