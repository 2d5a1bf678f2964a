// The store: what the actors need from state that outlives a process, behind one interface
// with two implementations, LMDB under --data-dir (storage/lmdb_store.hpp, the embedded
// default) and Redis (storage/redis_store.hpp, shared by replicas). storage::open
// (storage/open.hpp) is the one way to get one; the actors hold a std::shared_ptr<store> and
// never learn which one it is. What only a store shared across hosts does is a separate part,
// storage::shared_store (storage/shared_store.hpp), which open returns beside it.
//
// The operations are shaped for one round trip each: a batch of quota counters is one LMDB
// write transaction or one Redis script call, the key lookups of a batch one read or one
// pipelined round trip. Every call blocks, so the actors that use a store run detached.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include "core/quota.hpp"
#include "core/target_memory.hpp"
#include "core/telemetry.hpp"
#include "storage/record_txn.hpp"
#include "storage/records.hpp"

namespace netherscope::storage {

// -- counters -------------------------------------------------------------------

/// What one counter operation does: the charge's own mode (core/quota.hpp).
using counter_mode = core::charge_mode;

/// One counter of a window, as the quota actor names it.
struct counter_op {
  /// "info", "offer", "signin" or "rotate".
  std::string endpoint;
  /// "ip" or "key".
  std::string scope;
  /// The client's address or the account's user id.
  std::string subject;
  /// The window's label (storage::window_of or hour_of).
  std::string window;
  /// The first second after the window: a Redis counter expires then; LMDB prunes.
  std::int64_t expires_unix = 0;
  std::uint64_t limit = 0;
  storage::counter_mode mode = counter_mode::count;
  /// How many calls a count adds or a refund takes back: more than one when the quota actor
  /// counts calls ahead for a busy caller (quota_actor.hpp, "Reservations").
  std::uint64_t amount = 1;
};

/// The outcome of one counter operation.
struct counter_result {
  /// The counter's value after the operation.
  std::uint64_t used = 0;
  /// A count refused because the counter had reached its limit (nothing was added).
  bool refused = false;
  /// How many a count added (at most its amount, fewer when the limit came first) or a refund
  /// took back.
  std::uint64_t granted = 0;
};

// -- the interface --------------------------------------------------------------

/// Decides what a named record becomes, given what is stored (nullopt when nothing is):
/// a new value to store, nullopt to keep the stored one, or an error to leave it untouched.
using record_decision
  = std::function<caf::expected<std::optional<std::string>>(std::optional<std::string_view>)>;

/// What every store keeps: quota counters, accounts and keys, target memory and named records.
class store {
public:
  virtual ~store() = default;

  /// Which implementation this is, for logs and metrics (to_string gives "lmdb" or "redis").
  virtual core::store_backend backend() const noexcept = 0;

  /// Answers when the store can serve; the error says why not (GET /readyz).
  virtual caf::error ping() = 0;

  /// Applies every operation, in order: one transaction or one script call. Either all of
  /// them were applied or the error says none was. Durable before returning, unless
  /// defers_durability says otherwise.
  virtual caf::expected<std::vector<counter_result>>
  apply_counters(const std::vector<counter_op>& ops) = 0;

  /// When true, a batch apply_counters applied is durable only once a later apply_counters
  /// that succeeded, or flush(), returns: the LMDB store saves one fsync per batch so (see
  /// storage/lmdb.hpp, commit_deferred). Its caller holds the answers until then.
  virtual bool defers_durability() const noexcept {
    return false;
  }

  /// Makes every counter batch applied so far durable; cheaper than flush(), which also
  /// syncs what the counters do not need.
  virtual caf::error settle_counters() {
    return flush();
  }

  /// The values of these counters (as peeks; nothing is written and nothing synced), for the
  /// account view and the admin CLI.
  virtual caf::expected<std::vector<std::uint64_t>>
  read_counters(const std::vector<counter_op>& ops) = 0;

  /// Runs work in one transaction over the account records (storage/record_txn.hpp): a read
  /// when write is false, else a write whose changes are kept, all or none, when work
  /// returns true. Durable before returning. Every replica on the store sees the same
  /// accounts, keys, used sign-in states and sessions.
  virtual caf::error with_records(bool write, const record_work& work) = 0;

  /// The key records of these SHA-256 hashes, in the same order (nullopt for unknown ones).
  virtual caf::expected<std::vector<std::optional<key_record>>>
  find_keys(const std::vector<std::string>& key_hashes) = 0;

  /// What is remembered about a target at now_unix (storage/target_records.hpp).
  virtual caf::expected<core::target_memory> recall_target(std::string_view host, std::uint16_t port,
                                                     std::int64_t now_unix) = 0;

  /// Applies what a call taught about a target.
  virtual caf::error remember_target(std::string_view host, std::uint16_t port,
                                     const core::target_memory_update& update,
                                     std::int64_t now_unix) = 0;

  /// Deletes up to limit expired scheme records; returns how many went (a store whose records
  /// expire by themselves returns 0).
  virtual caf::expected<std::size_t> sweep_targets(std::int64_t now_unix, std::size_t limit) = 0;

  /// Reads the named record and lets decide replace it, so that every process on the store
  /// ends up with the same value even when several start at once. Returns the value in force.
  virtual caf::expected<std::string> load_or_replace_record(std::string_view name,
                                                            const record_decision& decide)
    = 0;

  /// Makes everything written so far durable (at exit, and for batches whose durability was
  /// deferred); a no-op where every write already is.
  virtual caf::error flush() = 0;
};

/// The decision that keeps a stored secret of this size and draws a fresh random one otherwise
/// (nothing stored, or a size an older version wrote).
record_decision keep_or_draw_secret(std::size_t bytes);

/// A named record created once with random bytes and shared by every process on the store.
caf::expected<std::string> load_or_create_secret(store& s, std::string_view name,
                                                 std::size_t bytes);

} // namespace netherscope::storage
