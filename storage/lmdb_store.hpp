// The store on LMDB under --data-dir: the embedded default, shared only by processes on one
// host. A batch of counters is one write transaction and, under load, one fsync. It keeps
// every usage counter until the admin CLI prunes it, so it is also the counter archive.
// storage::open (storage/open.hpp) opens its environments; nothing outside storage/ sees
// them.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "storage/counter_archive.hpp"
#include "storage/lmdb.hpp"
#include "storage/store.hpp"

namespace netherscope::storage {

/// The environments and databases the LMDB store uses, all open.
struct lmdb_parts {
  /// The main environment in the data directory.
  std::shared_ptr<env> main;
  MDB_dbi usage = 0;
  MDB_dbi accounts = 0;
  /// Used sign-in states and sessions (storage/auth_records.hpp).
  MDB_dbi auth = 0;
  /// Watched servers and each account's index of them (storage/watch_records.hpp).
  MDB_dbi watches = 0;
  /// Named records (load_or_replace_record).
  MDB_dbi meta = 0;
  /// The target memory, in an environment of its own (<data-dir>/targets): strangers choose
  /// which targets are remembered, so filling it must never stop the quota commits.
  std::shared_ptr<env> targets_env;
  MDB_dbi targets = 0;
};

/// The store on LMDB.
class lmdb_store final : public store, public counter_archive {
public:
  explicit lmdb_store(lmdb_parts parts);

  // -- store ------------------------------------------------------------------

  core::store_backend backend() const noexcept override {
    return core::store_backend::lmdb;
  }
  caf::error ping() override;
  caf::expected<std::vector<counter_result>>
  apply_counters(const std::vector<counter_op>& ops) override;
  caf::expected<std::vector<std::uint64_t>>
  read_counters(const std::vector<counter_op>& ops) override;
  caf::error with_records(bool write, const record_work& work) override;
  caf::expected<std::vector<std::optional<key_record>>>
  find_keys(const std::vector<std::string>& key_hashes) override;
  caf::expected<core::target_memory> recall_target(std::string_view host, std::uint16_t port,
                                             std::int64_t now_unix) override;
  caf::error remember_target(std::string_view host, std::uint16_t port,
                             const core::target_memory_update& update,
                             std::int64_t now_unix) override;
  caf::expected<std::size_t> sweep_targets(std::int64_t now_unix, std::size_t limit) override;
  caf::expected<std::string> load_or_replace_record(std::string_view name,
                                                    const record_decision& decide) override;
  caf::error flush() override;
  bool defers_durability() const noexcept override;
  caf::error settle_counters() override;

  // -- counter_archive ----------------------------------------------------------

  caf::expected<std::vector<counter_entry>> counters_of(std::string_view window) override;
  caf::expected<std::size_t> prune_counters_before(std::string_view window) override;

private:
  lmdb_parts parts_;
  /// Counter batches committed with commit_deferred so far, and how many of them an fsync is
  /// known to cover. Counted rather than flagged, so that quota actors on several threads
  /// sharing this store (one per replica in a test) never take one another's sync for theirs.
  std::atomic<std::uint64_t> deferred_{0};
  std::atomic<std::uint64_t> settled_{0};
};

} // namespace netherscope::storage
