// Watches as the store keeps them (docs/WATCHES.md, "Watches"): one record per watch and an
// index per account, in the watches table of a record transaction (storage/record_txn.hpp),
// so the same code runs on LMDB and on Redis and every replica sees the same watches.
//
//   w|<id>             → the watch (version 1: owner, created, port, period, flags, host)
//   o|<user id>|<id>   → empty: the account's index, so its watches are one prefix walk
//   g                  → the watches' generation (watches_generation)
//
// A watch's webhooks sit beside it in the same table (storage/webhook_records.hpp).
//
// The scheduler reads watched_targets: every watched server once, at the shortest period any
// watch of it asks for. Checks, history and charts are per server, never per watch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <caf/expected.hpp>

#include "core/failure.hpp"
#include "core/watch.hpp"
#include "storage/record_txn.hpp"

namespace netherscope::storage {

/// One watch: what the API shows, and whose it is.
struct watch_record {
  core::watch_view watch;
  /// The account's user id (storage/records.hpp account_record::user_id).
  std::uint64_t owner = 0;
};

/// The stored form of a watch (its id is the key's, not stored again).
std::string encode(const watch_record& x);

/// A stored watch read back; nullopt for a record that is damaged in any way (another
/// version, a short or long record, a host that is empty or too long, a port or period of 0,
/// unknown flags).
std::optional<watch_record> decode_watch(std::string_view id, std::string_view record);

/// "w|<id>" and "o|<user id>|<id>".
std::string watch_key(std::string_view id);
std::string owner_watch_key(std::uint64_t owner, std::string_view id);

/// A new watch id: 12 random bytes in base64url (16 characters); nullopt when no random bytes
/// could be drawn.
std::optional<std::string> new_watch_id();

/// The watch with this id (nullopt when absent; an error when unreadable).
caf::expected<std::optional<watch_record>> get_watch(record_txn& t, std::string_view id);

/// The account's watches, oldest first (ties by id).
caf::expected<std::vector<watch_record>> list_watches(record_txn& t, std::uint64_t owner);

/// How many watches the account holds.
caf::expected<std::size_t> count_watches(record_txn& t, std::uint64_t owner);

/// Stores a new watch for its owner unless the owner already watches that host and port
/// (watch_exists) or holds max_per_account watches (watch_limit_reached): then the refusal,
/// and nothing is written. No failure when it was stored.
caf::expected<core::failure> add_watch(record_txn& t, const watch_record& w,
                                           std::uint32_t max_per_account);

/// Deletes the watch id, with its webhooks (storage/webhook_records.hpp), when owner holds it;
/// false (nothing deleted) when it does not exist or is another account's.
caf::expected<bool> delete_watch(record_txn& t, std::uint64_t owner, std::string_view id);

/// The watches' generation: a tag that every change of the watches (add_watch, delete_watch)
/// replaces in the same transaction, so whoever read the watches with a tag and finds the same
/// tag again knows they are still as read. nullopt when none is stored yet (a store no watch
/// changed in since the tag came, or an emptied Redis).
caf::expected<std::optional<std::string>> watches_generation(record_txn& t);

/// Stores a new generation: 9 random bytes in base64url, so a store brought back to an older
/// copy never shows a tag again that stood for other watches (as a counter could).
caf::error renew_watches_generation(record_txn& t);

/// One watched server, as the scheduler sees it.
struct watched_target {
  std::string host;
  std::uint16_t port = 0;
  /// The shortest period of the server's watches.
  std::uint32_t period_seconds = 0;
  /// Whether any of its watches is public (history, chart and exporter may show it).
  bool is_public = false;
  /// How many watches name it.
  std::size_t watches = 0;
};

/// Every watched server once, in schedule_key order (core/watch_schedule.hpp), with the
/// shortest period of its watches: the seam the scheduler reads.
caf::expected<std::vector<watched_target>> watched_targets(record_txn& t);

} // namespace netherscope::storage
