// Record transactions on Redis (storage::store::with_records): the account records are three
// hashes (storage/redis_keys.hpp); a transaction reads from Redis, keeps its writes, and
// sends them as one MULTI/EXEC that Redis refuses when another replica changed a hash the
// transaction read (WATCH). Then the work runs again on what that replica wrote.
#pragma once

#include <caf/error.hpp>

#include "storage/record_txn.hpp"
#include "storage/redis_pool.hpp"

namespace netherscope::storage {

/// Runs work in one record transaction on a connection of pool: a read when write is false,
/// else a write whose changes are applied, all or none, when work returns true. A write that
/// lost a race runs again, up to 16 rounds.
caf::error run_record_transaction(redis_pool& pool, bool write, const record_work& work);

} // namespace netherscope::storage
