// Account and key operations inside a record transaction (storage/record_txn.hpp), shared by
// the keys actor and the admin CLI, on either store.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "core/failure.hpp"
#include "storage/record_txn.hpp"
#include "storage/records.hpp"
#include "storage/store.hpp"

namespace netherscope::storage {

/// A newly issued key and the account it belongs to.
struct issued_key {
  std::string key;
  account_record account;
};

/// Creates the account if needed (updating its login), revokes its active key and issues a
/// new one: one active key per account.
caf::expected<issued_key> issue_key(record_txn& t, std::uint64_t user_id,
                                    const std::string& login, std::int64_t now_unix);

/// Revokes the account's active key; false when it had none.
caf::expected<bool> revoke_active_key(record_txn& t, std::uint64_t user_id,
                                      std::int64_t now_unix);

/// What a sign-in did to the account.
struct signed_in {
  account_record account;
  /// The first key of a new account, shown once; empty for an account that existed.
  std::string first_key;
};

/// Signs a user in: a new account gets its first key; an existing one only has its login
/// brought up to date. Signing in never revokes or replaces a key, so a link that signs a
/// visitor in again cannot break their integrations.
caf::expected<signed_in> sign_in(record_txn& t, std::uint64_t user_id,
                                 const std::string& login, std::int64_t now_unix);

/// Counts one key issued for the account this hour against limit (the counter lives in the
/// usage database under "rotate"). Returns a rotation_limited failure with its Retry-After
/// when the account already had limit keys this hour, and no failure when it may go ahead.
caf::expected<core::failure> take_rotation(record_txn& t, std::uint64_t user_id,
                                     std::int64_t now_unix, std::uint64_t limit);

/// Deletes up to budget revoked key records revoked before cutoff_unix (records from before
/// revocation times were kept count as revoked at 0). Returns how many went.
caf::expected<std::size_t> prune_revoked_keys(record_txn& t, std::int64_t cutoff_unix,
                                              std::size_t budget);

/// Deletes up to budget hourly counters (sign-in attempts, key rotations) of hours before the
/// one containing now_unix. Returns how many went.
caf::expected<std::size_t> prune_hourly_counters(record_txn& t, std::int64_t now_unix,
                                                 std::size_t budget);

/// The account whose active key has this hash; nullopt for unknown or revoked keys.
caf::expected<std::optional<account_record>> account_by_key(record_txn& t,
                                                            const std::string& key_hash);

/// Every account, in user id order (as text).
caf::expected<std::vector<account_record>> list_accounts(record_txn& t);

/// The account with this login (case-insensitive), if any.
caf::expected<std::optional<account_record>> find_by_login(record_txn& t, const std::string& login);

/// Calls counted against an account this month, per endpoint.
struct account_usage {
  std::uint64_t info = 0;
  std::uint64_t offer = 0;
};

/// Reads them from the quota counters, wherever the store keeps those.
caf::expected<account_usage> usage_of(store& s, std::uint64_t user_id,
                                      const std::string& month);

} // namespace netherscope::storage
