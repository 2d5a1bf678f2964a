// The linked Xbox account as the store keeps it: one record, sealed by the operator's secrets
// key (base/sealed) before it reaches the store, so the store alone reveals nothing of it.
//
// One account is linked per deployment. The record sits in the accounts table of a record
// transaction (storage/record_txn.hpp), so every replica on the store sees the same link and
// a rotated refresh token stored by one is the one the others renew with.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include "storage/record_txn.hpp"
#include "storage/store.hpp"

namespace netherscope::storage {

/// The key of the sealed link in the accounts table.
inline constexpr std::string_view xbox_link_key = "x|link";

/// The sealed link, or nullopt when no account is linked.
caf::expected<std::optional<std::string>> load_xbox_link(record_txn& t);

/// The sealed link, read in a transaction of its own.
caf::expected<std::optional<std::string>> read_xbox_link(store& s);

/// Stores sealed as the link, replacing any before it.
caf::error save_xbox_link(record_txn& t, std::string_view sealed);

/// Removes the link; true when there was one.
caf::expected<bool> delete_xbox_link(record_txn& t);

} // namespace netherscope::storage
