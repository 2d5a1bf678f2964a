// Named records in the meta database that are created once and shared by every process on
// the store: the sign-in state key, our NetherNet identity. Storage sees only bytes; the
// callers own what the bytes mean.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <caf/expected.hpp>

#include "storage/lmdb.hpp"
#include "storage/store.hpp"

namespace netherscope::storage {

/// Reads the record name and lets decide replace it, all in one write transaction: write
/// transactions exclude each other across processes, so replicas sharing the environment
/// agree on one value. Returns the value in force afterwards.
caf::expected<std::string> load_or_replace_record(env& e, MDB_dbi meta, std::string_view name,
                                                  const record_decision& decide);

/// A random secret of the given size kept under name in the meta database, created on first
/// use in one write transaction, so replicas sharing the store share it.
caf::expected<std::string> load_or_create_secret(env& e, MDB_dbi meta, std::string_view name,
                                                 std::size_t bytes);

} // namespace netherscope::storage
