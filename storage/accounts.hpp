// Account and key operations inside a transaction, shared by the keys actor and the admin CLI.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "storage/lmdb.hpp"
#include "storage/records.hpp"

namespace netherscope::storage {

/// A newly issued key and the account it belongs to.
struct issued_key {
  std::string key;
  account_record account;
};

/// Creates the account if needed (updating its login), revokes its active key and issues a
/// new one: one active key per account.
caf::expected<issued_key> issue_key(txn& t, MDB_dbi accounts, std::uint64_t user_id,
                                    const std::string& login, std::int64_t now_unix);

/// Revokes the account's active key; false when it had none.
caf::expected<bool> revoke_active_key(txn& t, MDB_dbi accounts, std::uint64_t user_id);

/// The account whose active key has this hash; nullopt for unknown or revoked keys.
caf::expected<std::optional<account_record>> account_by_key(txn& t, MDB_dbi accounts,
                                                            const std::string& key_hash);

/// Every account, in user id order (as text).
caf::expected<std::vector<account_record>> list_accounts(txn& t, MDB_dbi accounts);

/// The account with this login (case-insensitive), if any.
caf::expected<std::optional<account_record>> find_by_login(txn& t, MDB_dbi accounts,
                                                           const std::string& login);

/// Calls counted against an account this month, per endpoint.
struct account_usage {
  std::uint64_t info = 0;
  std::uint64_t offer = 0;
};

caf::expected<account_usage> usage_of(txn& t, MDB_dbi usage, std::uint64_t user_id,
                                      const std::string& month);

} // namespace netherscope::storage
