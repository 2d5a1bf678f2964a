// The records of usage counters, accounts and keys, as both stores keep them.
//
// Every value starts with a version byte and holds fixed-width little-endian integers, so
// a record written by one build is read correctly by the next.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <caf/expected.hpp>

#include "storage/counter_archive.hpp"
#include "storage/record_txn.hpp"

namespace netherscope::storage {

/// The error of a stored record that cannot be read: "unreadable <what> record".
caf::error corrupt(std::string_view what);

/// What follows prefix in each key of table that starts with it, in key order: the ids an
/// index lists.
caf::expected<std::vector<std::string>> keys_under(record_txn& t, record_table table,
                                                   std::string_view prefix);

/// The value of key in table, copied out of the transaction; nullopt when absent.
caf::expected<std::optional<std::string>> value_of(record_txn& t, record_table table,
                                                   std::string_view key);

// -- time windows -------------------------------------------------------------

/// A calendar month in UTC: the quota window.
struct month_window {
  /// "2026-11".
  std::string label;
  /// The first second of the next month (X-RateLimit-Reset).
  std::int64_t reset_unix = 0;
};

/// The month containing now_unix.
month_window window_of(std::int64_t now_unix);

/// A clock hour in UTC: the window of the sign-in and key rotation limits.
struct hour_window {
  /// "2026-11-23T14": sorts after every month label of the same month, so pruning months by
  /// label comparison treats hourly counters like those of their month.
  std::string label;
  /// The first second of the next hour (Retry-After counts to it).
  std::int64_t reset_unix = 0;
};

/// The hour containing now_unix.
hour_window hour_of(std::int64_t now_unix);

// -- usage --------------------------------------------------------------------

/// What every counter's key starts with.
constexpr std::string_view usage_prefix = "u|";

/// The key of one counter: "u|<endpoint>|<scope>|<subject>|<window>".
std::string usage_key(std::string_view endpoint, std::string_view scope,
                      std::string_view subject, std::string_view window);

/// The counter a key names (its count left 0); nullopt for a key usage_key did not make.
/// Subjects may hold ':' (IPv6) but never '|'.
std::optional<counter_entry> parse_usage_key(std::string_view key);

/// Reads a counter in a record transaction's usage table (0 when absent).
caf::expected<std::uint64_t> read_count(record_txn& t, std::string_view key);

/// Writes a counter in a record transaction's usage table.
caf::error write_count(record_txn& t, std::string_view key, std::uint64_t count);

// -- accounts and keys --------------------------------------------------------

/// An account, created at the first sign-in; identified by the provider's numeric user id.
struct account_record {
  std::uint64_t user_id = 0;
  std::string login;
  std::int64_t created_unix = 0;
  /// SHA-256 of the active key, or empty when none is active.
  std::string active_key_hash;
  /// SHA-256 of the keys revoked most recently, oldest first, at most keep_revoked_keys of
  /// them: the records that still say "this key was revoked". Older ones are deleted as new
  /// ones come, so one account never holds more than keep_revoked_keys + 1 key records.
  std::vector<std::string> revoked_key_hashes;
};

/// One issued key, found by its SHA-256; the key itself is never stored.
struct key_record {
  std::uint64_t user_id = 0;
  std::int64_t created_unix = 0;
  bool revoked = false;
  /// When it was revoked; 0 for a key revoked before this was recorded (version 1).
  std::int64_t revoked_unix = 0;
};

/// Revoked key records kept per account (the newest ones), so a caller still holding one of
/// them is told it was revoked rather than unknown.
constexpr std::size_t keep_revoked_keys = 10;

std::string encode(const account_record& x);
std::optional<account_record> decode_account(std::string_view record);
std::string encode(const key_record& x);
std::optional<key_record> decode_key(std::string_view record);

/// "a|<user id>" and "k|<raw sha-256>".
std::string account_key(std::uint64_t user_id);
std::string key_key(std::string_view key_hash);

/// An account, and a key record by hash (nullopt when absent, an error when unreadable), in a
/// record transaction's accounts table.
caf::expected<std::optional<account_record>> get_account(record_txn& t, std::uint64_t user_id);
caf::expected<std::optional<key_record>> get_key(record_txn& t, std::string_view key_hash);

} // namespace netherscope::storage
