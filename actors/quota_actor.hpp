// The quota actor: monthly usage counters in the store (LMDB or Redis), charged in batches.
//
// Charges that arrive together are applied as one batch (one LMDB write transaction, or one
// Redis script call) and answered only after the store acknowledged it, so a reply never
// leaves before its charge is durable, and one fsync or one round trip serves a whole batch.
// The actor runs on its own thread (detached) because the store's calls block.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "actors/messages.hpp"
#include "storage/lmdb.hpp"
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

/// The LMDB environment and the databases the service uses in it.
struct store_handles {
  std::shared_ptr<storage::env> env;
  MDB_dbi usage = 0;
  MDB_dbi accounts = 0;
  /// Used sign-in states and account page sessions (storage/auth_records.hpp).
  MDB_dbi auth = 0;
};

/// Settings of the quota actor.
struct quota_settings {
  quota_limits limits;
  /// Unix time now; tests move it across month boundaries.
  std::function<std::int64_t()> now;
};

/// State of the quota actor.
struct quota_state {
  static inline const char* name = "quota";
  std::shared_ptr<storage::store> store;
  quota_settings settings;
  /// A charge waiting for the next batch, and who hears its verdict: the actor that asked
  /// (promise) or, when set, a callback (then).
  struct waiting {
    quota_charge charge;
    caf::typed_response_promise<quota_verdict> promise;
    verdict_fn then;
  };
  std::vector<waiting> pending;
  /// A batch the store applied but has not yet made durable (store::defers_durability),
  /// answered after the next batch's commit or an explicit flush.
  struct held_batch {
    std::vector<waiting> callers;
    std::vector<quota_charge> charges;
    std::vector<quota_verdict> verdicts;
  };
  held_batch held;
  bool flush_scheduled = false;
};

/// Implements quota_actor over any store; spawn it detached.
quota_actor::behavior_type quota_on(quota_actor::stateful_pointer<quota_state> self,
                                    std::shared_ptr<storage::store> store,
                                    quota_settings settings);

/// Implements quota_actor over the LMDB databases in store; spawn it detached.
quota_actor::behavior_type quota(quota_actor::stateful_pointer<quota_state> self,
                                 store_handles store, quota_settings settings);

/// The store over the LMDB databases of handles (the usage, accounts and auth databases).
std::shared_ptr<storage::store> lmdb_store_of(const store_handles& handles);

/// Answers a batch of charges with one key lookup and one counter batch on the store; a
/// store that fails answers every charge unavailable and counts none.
std::vector<quota_verdict> apply_charges(storage::store& store, const quota_limits& limits,
                                         const std::vector<quota_charge>& charges,
                                         std::int64_t now_unix);

/// The name of an endpoint in storage keys and messages.
std::string_view endpoint_name(endpoint what);

} // namespace netherscope
