// Who makes a watch call or reads private history: the account of an API key, else of the
// account page's session, found in the record transaction that acts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <caf/expected.hpp>

#include "core/failure.hpp"
#include "storage/record_txn.hpp"

namespace netherscope::actors {

/// The caller's account, or why there is none.
struct watch_caller {
  std::optional<std::uint64_t> user_id;
  /// unauthorized for an unknown or revoked key and for a missing or expired session.
  core::failure refusal;
  /// The session's form token when the caller was found by its session; empty for a key.
  std::string csrf;
};

/// The account of key_hash when it is not empty, else of session_hash at now; an error when
/// the store failed.
caf::expected<watch_caller> find_watch_caller(storage::record_txn& t, const std::string& key_hash,
                                              const std::string& session_hash, std::int64_t now);

} // namespace netherscope::actors
