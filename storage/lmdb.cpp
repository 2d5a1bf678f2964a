#include "storage/lmdb.hpp"

#include <caf/sec.hpp>

namespace netherscope::storage {

caf::error make_lmdb_error(int rc, std::string_view what) {
  // Errors from LMDB carry its message; the edge never shows them to callers.
  return caf::make_error(caf::sec::runtime_error,
                         std::string{what} + ": " + mdb_strerror(rc));
}

caf::expected<std::shared_ptr<env>> env::open(const std::string& path,
                                              const env_options& options) {
  MDB_env* e = nullptr;
  if (auto rc = mdb_env_create(&e))
    return make_lmdb_error(rc, "mdb_env_create");
  std::shared_ptr<env> result{new env(e)};
  if (auto rc = mdb_env_set_mapsize(e, options.map_size))
    return make_lmdb_error(rc, "mdb_env_set_mapsize");
  if (auto rc = mdb_env_set_maxdbs(e, options.max_dbs))
    return make_lmdb_error(rc, "mdb_env_set_maxdbs");
  unsigned flags = MDB_NOTLS;
  // A durable LMDB commit costs two syncs: the data pages, then the meta page that points at
  // them. MDB_NOMETASYNC leaves the meta page to the next commit's data sync (LMDB keeps the
  // file consistent either way), and txn::commit adds the second sync back, so a commit is as
  // durable as before. Only the quota batches use commit_deferred: the quota actor answers a
  // batch after the next batch's sync, so under load every batch costs one sync, not two
  // (docs/BENCHMARKS.md has the measurement).
  if (!options.sync)
    flags |= MDB_NOSYNC;
  else
    flags |= MDB_NOMETASYNC;
  result->syncs_ = options.sync;
  if (auto rc = mdb_env_open(e, path.c_str(), flags, 0640))
    return make_lmdb_error(rc, "mdb_env_open " + path);
  // Readers of a process that died keep their slots until someone clears them.
  int dead = 0;
  mdb_reader_check(e, &dead);
  return result;
}

env::~env() {
  mdb_env_close(env_);
}

caf::expected<MDB_dbi> env::open_db(const char* name) {
  auto t = txn::begin(*this, true);
  if (!t)
    return t.error();
  MDB_dbi dbi = 0;
  if (auto rc = mdb_dbi_open(t->native(), name, MDB_CREATE, &dbi))
    return make_lmdb_error(rc, std::string{"mdb_dbi_open "} + name);
  if (auto err = t->commit())
    return err;
  return dbi;
}

caf::error env::flush() {
  if (auto rc = mdb_env_sync(env_, 1))
    return make_lmdb_error(rc, "mdb_env_sync");
  return {};
}

caf::expected<txn> txn::begin(env& e, bool write) {
  MDB_txn* t = nullptr;
  if (auto rc = mdb_txn_begin(e.native(), nullptr, write ? 0 : MDB_RDONLY, &t))
    return make_lmdb_error(rc, "mdb_txn_begin");
  return txn{t};
}

txn::txn(txn&& other) noexcept : txn_(other.txn_) {
  other.txn_ = nullptr;
}

txn& txn::operator=(txn&& other) noexcept {
  if (this != &other) {
    if (txn_ != nullptr)
      mdb_txn_abort(txn_);
    txn_ = other.txn_;
    other.txn_ = nullptr;
  }
  return *this;
}

txn::~txn() {
  if (txn_ != nullptr)
    mdb_txn_abort(txn_);
}

caf::expected<std::optional<std::string_view>> txn::get(MDB_dbi db, std::string_view key) {
  MDB_val k{key.size(), const_cast<char*>(key.data())};
  MDB_val v{0, nullptr};
  auto rc = mdb_get(txn_, db, &k, &v);
  if (rc == MDB_NOTFOUND)
    return std::optional<std::string_view>{};
  if (rc != 0)
    return make_lmdb_error(rc, "mdb_get");
  return std::optional<std::string_view>{
    std::string_view{static_cast<const char*>(v.mv_data), v.mv_size}};
}

caf::error txn::put(MDB_dbi db, std::string_view key, std::string_view value) {
  MDB_val k{key.size(), const_cast<char*>(key.data())};
  MDB_val v{value.size(), const_cast<char*>(value.data())};
  if (auto rc = mdb_put(txn_, db, &k, &v, 0))
    return make_lmdb_error(rc, "mdb_put");
  return {};
}

caf::error txn::del(MDB_dbi db, std::string_view key) {
  MDB_val k{key.size(), const_cast<char*>(key.data())};
  auto rc = mdb_del(txn_, db, &k, nullptr);
  if (rc != 0 && rc != MDB_NOTFOUND)
    return make_lmdb_error(rc, "mdb_del");
  return {};
}

caf::error txn::commit() {
  auto* e = txn_ ? mdb_txn_env(txn_) : nullptr;
  if (auto err = commit_deferred())
    return err;
  // The meta page's sync that MDB_NOMETASYNC left out (env::open).
  unsigned flags = 0;
  if (e && mdb_env_get_flags(e, &flags) == 0 && (flags & MDB_NOMETASYNC) != 0)
    if (auto rc = mdb_env_sync(e, 1))
      return make_lmdb_error(rc, "mdb_env_sync");
  return {};
}

caf::error txn::commit_deferred() {
  auto t = txn_;
  txn_ = nullptr;
  if (auto rc = mdb_txn_commit(t))
    return make_lmdb_error(rc, "mdb_txn_commit");
  return {};
}

} // namespace netherscope::storage
