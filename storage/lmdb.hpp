// RAII wrappers for LMDB: environment, transactions and databases.
//
// Every fallible call returns caf::expected, so callers (actors) handle errors as values.
// The environment is opened with MDB_NOTLS because CAF moves actors between threads, and a
// read transaction must not be tied to the thread that began it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <lmdb.h>

#include <caf/error.hpp>
#include <caf/expected.hpp>

namespace netherscope::storage {

/// An LMDB error as a caf::error whose context names the operation.
caf::error make_lmdb_error(int rc, std::string_view what);

/// Options for opening an environment.
struct env_options {
  /// The largest the database may grow; LMDB's default of 10 MiB is far too small.
  std::size_t map_size = std::size_t{1} << 30;
  unsigned max_dbs = 16;
  /// fsync at every commit (durable against power loss); without it a commit survives a
  /// crash of the process but not of the machine.
  bool sync = true;
};

class txn;

/// An open LMDB environment (one directory); shared by every actor that stores data.
class env {
public:
  /// Opens (creating if needed) the environment in directory path.
  static caf::expected<std::shared_ptr<env>> open(const std::string& path,
                                                  const env_options& options);

  ~env();
  env(const env&) = delete;
  env& operator=(const env&) = delete;

  MDB_env* native() const noexcept {
    return env_;
  }

  /// Opens (creating if needed) a named database; call once at startup per name.
  caf::expected<MDB_dbi> open_db(const char* name);

  /// Flushes committed data to disk (useful when sync is off).
  caf::error flush();

  /// Whether commits are durable against power loss (env_options::sync).
  bool syncs() const noexcept {
    return syncs_;
  }

private:
  explicit env(MDB_env* e) : env_(e) {
    // nop
  }
  MDB_env* env_;
  bool syncs_ = true;
};

/// A transaction; aborted by the destructor unless committed.
class txn {
public:
  /// Begins a read-only or read-write transaction.
  static caf::expected<txn> begin(env& e, bool write);

  txn(txn&& other) noexcept;
  txn& operator=(txn&& other) noexcept;
  txn(const txn&) = delete;
  txn& operator=(const txn&) = delete;
  ~txn();

  /// The value of key, or nullopt when absent. The view is valid until the transaction ends.
  caf::expected<std::optional<std::string_view>> get(MDB_dbi db, std::string_view key);

  /// Stores value under key.
  caf::error put(MDB_dbi db, std::string_view key, std::string_view value);

  /// Removes key; absent keys are not an error.
  caf::error del(MDB_dbi db, std::string_view key);

  /// Calls fn(key, value) for every entry whose key starts with prefix, in key order;
  /// fn returns false to stop.
  template <class F>
  caf::error for_each_prefix(MDB_dbi db, std::string_view prefix, F fn);

  /// Makes the transaction's writes durable (per the environment's sync option).
  caf::error commit();

  /// Commits with one fsync instead of two: the writes are durable once a later commit or
  /// env::flush of the same environment returns (see env::open on MDB_NOMETASYNC).
  caf::error commit_deferred();

  MDB_txn* native() const noexcept {
    return txn_;
  }

private:
  explicit txn(MDB_txn* t) : txn_(t) {
    // nop
  }
  MDB_txn* txn_ = nullptr;
};

template <class F>
caf::error txn::for_each_prefix(MDB_dbi db, std::string_view prefix, F fn) {
  MDB_cursor* cursor = nullptr;
  if (auto rc = mdb_cursor_open(txn_, db, &cursor))
    return make_lmdb_error(rc, "mdb_cursor_open");
  std::unique_ptr<MDB_cursor, void (*)(MDB_cursor*)> guard{cursor, mdb_cursor_close};
  MDB_val k{prefix.size(), const_cast<char*>(prefix.data())};
  MDB_val v{0, nullptr};
  auto rc = mdb_cursor_get(cursor, &k, &v, prefix.empty() ? MDB_FIRST : MDB_SET_RANGE);
  while (rc == 0) {
    std::string_view key{static_cast<const char*>(k.mv_data), k.mv_size};
    if (key.substr(0, prefix.size()) != prefix)
      break;
    if (!fn(key, std::string_view{static_cast<const char*>(v.mv_data), v.mv_size}))
      return {};
    rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT);
  }
  if (rc != 0 && rc != MDB_NOTFOUND)
    return make_lmdb_error(rc, "mdb_cursor_get");
  return {};
}

} // namespace netherscope::storage
