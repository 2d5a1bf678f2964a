// One transaction over the account records: accounts and their keys, used sign-in states,
// the account page's sessions, the hourly key-rotation counters, the watches and their
// webhooks. The record functions of
// storage/accounts.hpp and storage/auth_records.hpp are written against this interface, so
// the same code runs on LMDB (one write transaction) and on Redis (an optimistic MULTI/EXEC
// over the tables, run again when another replica changed them first).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include <caf/error.hpp>
#include <caf/expected.hpp>

namespace netherscope::storage {

/// The tables a record transaction reaches.
enum class record_table : std::uint8_t {
  /// "a|<user id>" accounts and "k|<sha-256>" key records.
  accounts,
  /// "o|<state>" used sign-in states and "s|<sha-256>" sessions.
  auth,
  /// Hourly counters ("u|rotate|..."); on LMDB also every quota counter, on Redis only
  /// these, since quota counters there are keys of their own that expire by themselves.
  usage,
  /// "w|<id>" watches and "o|<user id>|<id>" each account's index of them
  /// (storage/watch_records.hpp); "h|<watch id>|<id>" their webhooks and
  /// "t|<host>|<port>|<watch id>" the watches with webhooks by target
  /// (storage/webhook_records.hpp).
  watches,
};

/// Reads and writes of one transaction. A view returned by get stays valid until the next
/// write of the same transaction or its end, as with LMDB.
class record_txn {
public:
  virtual ~record_txn() = default;

  /// Visits one entry; returns false to stop.
  using visitor = std::function<bool(std::string_view key, std::string_view value)>;

  /// The value of key, or nullopt when absent.
  virtual caf::expected<std::optional<std::string_view>> get(record_table table,
                                                             std::string_view key)
    = 0;

  /// Stores value under key.
  virtual caf::error put(record_table table, std::string_view key, std::string_view value) = 0;

  /// Removes key; absent keys are not an error.
  virtual caf::error del(record_table table, std::string_view key) = 0;

  /// Calls fn(key, value) for every entry whose key starts with prefix, in key order, seeing
  /// this transaction's own writes.
  virtual caf::error for_each_prefix(record_table table, std::string_view prefix,
                                     const visitor& fn)
    = 0;
};

/// The work of one record transaction: true keeps its writes, false drops them (a refusal
/// is an answer, but nothing it wrote is kept), an error drops them and is passed on. It may
/// run more than once (Redis runs it again when another replica won a race), so it must
/// start from nothing each time.
using record_work = std::function<caf::expected<bool>(record_txn&)>;

} // namespace netherscope::storage
