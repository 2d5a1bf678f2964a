// What sign-in keeps in the store: the states already used and the account page's sessions,
// in the auth table of a record transaction (storage/record_txn.hpp), and the one pass that
// prunes everything that expires.
//
// Both live in the store, not in a process's memory, so replicas sharing the store and a
// restarted service agree on them: a used state stays used everywhere until it expires.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <caf/expected.hpp>

#include "core/signin_times.hpp"
#include "storage/record_txn.hpp"

namespace netherscope::storage {

// -- used sign-in states --------------------------------------------------------

/// Records a sign-in state as used ("o|<decoded state bytes>" → its expiry), in the caller's
/// write transaction. True when it was claimed now; false when it had been used already (and
/// has not expired since). States are compared in the one decoded form the edge accepts.
caf::expected<bool> claim_state(record_txn& t, std::string_view canonical_state,
                                std::int64_t expires_unix, std::int64_t now_unix);

// -- account page sessions --------------------------------------------------------

/// A session: "s|<SHA-256 of the id>" → this. The id itself (the cookie) is never stored, so
/// a copy of the store opens no session.
struct session_record {
  std::uint64_t user_id = 0;
  std::int64_t created_unix = 0;
  std::int64_t expires_unix = 0;
  /// The token the account page's forms carry (the cross-site request check).
  std::string csrf;
};

std::string encode(const session_record& x);
std::optional<session_record> decode_session(std::string_view record);

/// A session just opened: what the cookie and the page carry.
struct opened_session {
  /// The cookie's value: base64url of 32 random bytes.
  std::string id;
  /// The page's form token: base64url of 32 random bytes.
  std::string csrf;
  std::int64_t expires_unix = 0;
};

/// The key a session id is stored under: its SHA-256, as the edge computes it.
std::string session_id_hash(std::string_view id);

/// Opens a new session for an account, with a new random id and token.
caf::expected<opened_session> open_session(record_txn& t, std::uint64_t user_id,
                                           std::int64_t now_unix);

/// The live session whose id has this SHA-256; nullopt when unknown or expired.
caf::expected<std::optional<session_record>> find_session(record_txn& t, std::string_view id_hash,
                                                          std::int64_t now_unix);

/// Ends a session (sign-out, or a new sign-in in the same browser); unknown ones are no error.
caf::error end_session(record_txn& t, std::string_view id_hash);

// -- pruning ------------------------------------------------------------------------

/// How long a revoked key record is kept at most (the newest keep_revoked_keys per account
/// are kept only this long as well).
constexpr std::int64_t revoked_key_retention_seconds = 90 * 86400;

/// What one prune pass deleted.
struct prune_report {
  std::size_t states = 0;
  std::size_t sessions = 0;
  std::size_t revoked_keys = 0;
  std::size_t counters = 0;
  /// True when the budget ran out before everything due was deleted.
  bool more = false;

  std::size_t total() const {
    return states + sessions + revoked_keys + counters;
  }
};

/// Deletes, in the caller's write transaction and at most budget records in all: expired
/// used states and sessions, key records revoked before revoked_cutoff_unix, and hourly
/// counters of past hours. The keys actor runs it every few minutes; `netherscope admin
/// prune` runs it until nothing is left.
caf::expected<prune_report> prune_expired(record_txn& t, std::int64_t now_unix,
                                          std::int64_t revoked_cutoff_unix, std::size_t budget);

} // namespace netherscope::storage
