// The store on LMDB under --data-dir: the embedded default, shared only by processes on one
// host. It wraps the record functions of storage/records.hpp, target_records.hpp and
// meta_records.hpp; a batch of counters is one write transaction and, under load, one fsync.
#pragma once

#include <atomic>
#include <memory>

#include "storage/counter_archive.hpp"
#include "storage/lmdb.hpp"
#include "storage/store.hpp"

namespace netherscope::storage {

/// The environments and databases the LMDB store uses; a part left empty makes the
/// operations that need it fail with an error (tests open only what they use).
struct lmdb_parts {
  std::shared_ptr<env> main;
  MDB_dbi usage = 0;
  MDB_dbi accounts = 0;
  /// Used sign-in states and sessions (storage/auth_records.hpp).
  MDB_dbi auth = 0;
  MDB_dbi meta = 0;
  bool has_meta = false;
  /// The target memory lives in an environment of its own (see app/service.cpp).
  std::shared_ptr<env> targets_env;
  MDB_dbi targets = 0;
};

/// The store on LMDB.
class lmdb_store : public store, public counter_archive {
public:
  explicit lmdb_store(lmdb_parts parts);

  // -- store --------------------------------------------------------------------

  store_backend backend() const noexcept override {
    return store_backend::lmdb;
  }
  caf::error ping() override;
  caf::expected<std::vector<counter_result>>
  apply_counters(const std::vector<counter_op>& ops) override;
  caf::expected<std::vector<std::uint64_t>>
  read_counters(const std::vector<counter_op>& ops) override;
  caf::error with_records(bool write, const record_work& work) override;
  caf::expected<std::vector<std::optional<key_record>>>
  find_keys(const std::vector<std::string>& key_hashes) override;
  caf::expected<target_memory> recall_target(std::string_view host, std::uint16_t port,
                                             std::int64_t now_unix) override;
  caf::error remember_target(std::string_view host, std::uint16_t port,
                             const target_memory_update& update,
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
  /// A counter batch was committed with commit_deferred and settle_counters has not synced it
  /// yet. Written only by the thread that calls apply_counters and settle_counters.
  std::atomic<bool> unsynced_{false};
};

/// The record tables of an LMDB transaction: each table is a database of the main environment.
class lmdb_record_txn final : public record_txn {
public:
  lmdb_record_txn(txn& t, MDB_dbi accounts, MDB_dbi auth, MDB_dbi usage)
    : t_(t), dbs_{accounts, auth, usage} {
    // nop
  }

  caf::expected<std::optional<std::string_view>> get(record_table table,
                                                     std::string_view key) override {
    return t_.get(db(table), key);
  }
  caf::error put(record_table table, std::string_view key, std::string_view value) override {
    return t_.put(db(table), key, value);
  }
  caf::error del(record_table table, std::string_view key) override {
    return t_.del(db(table), key);
  }
  caf::error for_each_prefix(record_table table, std::string_view prefix,
                             const visitor& fn) override {
    return t_.for_each_prefix(db(table), prefix, fn);
  }

private:
  MDB_dbi db(record_table table) const noexcept {
    return dbs_[static_cast<std::size_t>(table)];
  }
  txn& t_;
  MDB_dbi dbs_[3];
};

} // namespace netherscope::storage
