#include "storage/lmdb_store.hpp"

#include <algorithm>

#include <caf/sec.hpp>

#include "storage/meta_records.hpp"
#include "storage/target_records.hpp"

namespace netherscope::storage {

namespace {

caf::error missing(std::string_view what) {
  return caf::make_error(caf::sec::runtime_error,
                         "this LMDB store was opened without its " + std::string{what});
}

// Applies one counter operation in an open write transaction.
caf::expected<counter_result> apply_counter(txn& t, MDB_dbi usage, const counter_op& op) {
  auto key = usage_key(op.endpoint, op.scope, op.subject, op.window);
  auto used = read_count(t, usage, key);
  if (!used)
    return used.error();
  counter_result out{*used, false, 0};
  switch (op.mode) {
    case counter_mode::peek:
      return out;
    case counter_mode::refund:
      out.granted = std::min(*used, op.amount);
      break;
    case counter_mode::count:
      // A full counter is never incremented, so a refused call costs nothing.
      if (*used >= op.limit) {
        out.refused = true;
        return out;
      }
      out.granted = std::min(op.amount, op.limit - *used);
      break;
  }
  if (out.granted == 0)
    return out;
  out.used = op.mode == counter_mode::count ? *used + out.granted : *used - out.granted;
  if (auto err = write_count(t, usage, key, out.used))
    return err;
  return out;
}

} // namespace

lmdb_store::lmdb_store(lmdb_parts parts) : parts_(std::move(parts)) {
  // nop
}

caf::error lmdb_store::ping() {
  // A read transaction proves the environment is open and its lock file usable.
  auto* e = parts_.main ? parts_.main.get() : parts_.targets_env.get();
  if (!e)
    return missing("environment");
  auto t = txn::begin(*e, false);
  if (!t)
    return t.error();
  return {};
}

caf::expected<std::vector<counter_result>>
lmdb_store::apply_counters(const std::vector<counter_op>& ops) {
  if (!parts_.main)
    return missing("usage database");
  auto t = txn::begin(*parts_.main, true);
  if (!t)
    return t.error();
  std::vector<counter_result> out;
  out.reserve(ops.size());
  bool wrote = false;
  for (auto& op : ops) {
    auto result = apply_counter(*t, parts_.usage, op);
    if (!result)
      return result.error();
    wrote = wrote || op.mode != counter_mode::peek;
    out.push_back(*result);
  }
  // One commit for the whole batch; a batch of peeks writes nothing. With a syncing
  // environment the commit's one fsync also makes every earlier batch durable, and this one
  // waits for the next (defers_durability).
  if (wrote && !defers_durability()) {
    if (auto err = t->commit())
      return err;
  } else if (wrote) {
    if (auto err = t->commit_deferred())
      return err;
    unsynced_ = true;
  } else if (auto err = settle_counters()) {
    // Nothing written, so no fsync came with it: the promise to earlier batches is kept here.
    return err;
  }
  return out;
}

caf::error lmdb_store::settle_counters() {
  // One fsync of the main environment, only when a deferred commit is waiting for it.
  if (!parts_.main || !unsynced_)
    return {};
  if (auto err = parts_.main->flush())
    return err;
  unsynced_ = false;
  return {};
}

bool lmdb_store::defers_durability() const noexcept {
  return parts_.main && parts_.main->syncs();
}

caf::expected<std::vector<std::uint64_t>>
lmdb_store::read_counters(const std::vector<counter_op>& ops) {
  if (!parts_.main)
    return missing("usage database");
  // A read transaction: it sees every committed batch, deferred or not, and takes no lock
  // the quota actor's commits wait for.
  auto t = txn::begin(*parts_.main, false);
  if (!t)
    return t.error();
  std::vector<std::uint64_t> out;
  out.reserve(ops.size());
  for (auto& op : ops) {
    auto used = read_count(*t, parts_.usage, usage_key(op.endpoint, op.scope, op.subject,
                                                        op.window));
    if (!used)
      return used.error();
    out.push_back(*used);
  }
  return out;
}

caf::error lmdb_store::with_records(bool write, const record_work& work) {
  if (!parts_.main)
    return missing("accounts database");
  auto t = txn::begin(*parts_.main, write);
  if (!t)
    return t.error();
  lmdb_record_txn records{*t, parts_.accounts, parts_.auth, parts_.usage};
  auto keep = work(records);
  if (!keep)
    return keep.error();
  // A full commit: its fsync also makes any quota batch still deferred durable, which only
  // costs the quota actor a sync it no longer needs.
  if (write && *keep)
    return t->commit();
  return {};
}

caf::expected<std::vector<std::optional<key_record>>>
lmdb_store::find_keys(const std::vector<std::string>& key_hashes) {
  if (!parts_.main)
    return missing("accounts database");
  auto t = txn::begin(*parts_.main, false);
  if (!t)
    return t.error();
  std::vector<std::optional<key_record>> out;
  out.reserve(key_hashes.size());
  for (auto& hash : key_hashes) {
    auto key = get_key(*t, parts_.accounts, hash);
    if (!key)
      return key.error();
    out.push_back(std::move(*key));
  }
  return out;
}

caf::expected<target_memory> lmdb_store::recall_target(std::string_view host,
                                                       std::uint16_t port,
                                                       std::int64_t now_unix) {
  if (!parts_.targets_env)
    return missing("target memory");
  auto t = txn::begin(*parts_.targets_env, false);
  if (!t)
    return t.error();
  return storage::recall_target(*t, parts_.targets, host, port, now_unix);
}

caf::error lmdb_store::remember_target(std::string_view host, std::uint16_t port,
                                       const target_memory_update& update,
                                       std::int64_t now_unix) {
  if (!parts_.targets_env)
    return missing("target memory");
  auto t = txn::begin(*parts_.targets_env, true);
  if (!t)
    return t.error();
  if (auto err = apply_target_update(*t, parts_.targets, host, port, update, now_unix))
    return err;
  return t->commit();
}

caf::expected<std::size_t> lmdb_store::sweep_targets(std::int64_t now_unix, std::size_t limit) {
  if (!parts_.targets_env)
    return missing("target memory");
  auto t = txn::begin(*parts_.targets_env, true);
  if (!t)
    return t.error();
  auto swept = sweep_expired_schemes(*t, parts_.targets, now_unix, limit);
  if (!swept || *swept == 0)
    return swept;
  if (auto err = t->commit())
    return err;
  return swept;
}

caf::expected<std::string> lmdb_store::load_or_replace_record(std::string_view name,
                                                              const record_decision& decide) {
  if (!parts_.main || !parts_.has_meta)
    return missing("meta database");
  return storage::load_or_replace_record(*parts_.main, parts_.meta, name, decide);
}

caf::error lmdb_store::flush() {
  // Commits are durable per the environment's sync option; without sync this is the moment
  // the pending pages reach the disk.
  if (parts_.main) {
    // unsynced_ stays as it is: only the thread that applies counters changes it, so a flush
    // from another thread (at exit) can never make an unsynced batch look synced.
    if (auto err = parts_.main->flush())
      return err;
  }
  if (parts_.targets_env)
    return parts_.targets_env->flush();
  return {};
}

// -- the counter archive ------------------------------------------------------------

caf::expected<std::vector<counter_entry>> lmdb_store::counters_of(std::string_view window) {
  if (!parts_.main)
    return missing("usage database");
  auto t = txn::begin(*parts_.main, false);
  if (!t)
    return t.error();
  std::vector<counter_entry> out;
  caf::error bad;
  auto err = t->for_each_prefix(parts_.usage, "u|", [&](std::string_view key, std::string_view) {
    // u|<endpoint>|<scope>|<subject>|<window>; subjects may contain ':' but never '|'.
    auto last = key.rfind('|');
    if (key.substr(last + 1) != window)
      return true;
    auto first = key.find('|', 2);
    auto second = key.find('|', first + 1);
    auto count = read_count(*t, parts_.usage, key);
    if (!count) {
      bad = count.error();
      return false;
    }
    out.push_back({std::string{key.substr(2, first - 2)},
                   std::string{key.substr(first + 1, second - first - 1)},
                   std::string{key.substr(second + 1, last - second - 1)},
                   std::string{window}, *count});
    return true;
  });
  if (err)
    return err;
  if (bad)
    return bad;
  return out;
}

caf::expected<std::size_t> lmdb_store::prune_counters_before(std::string_view window) {
  if (!parts_.main)
    return missing("usage database");
  auto t = txn::begin(*parts_.main, true);
  if (!t)
    return t.error();
  // Deleting under an open cursor would move it, so the keys are collected first.
  std::vector<std::string> doomed;
  auto err = t->for_each_prefix(parts_.usage, "u|", [&](std::string_view key, std::string_view) {
    if (key.substr(key.rfind('|') + 1) < window)
      doomed.emplace_back(key);
    return true;
  });
  if (err)
    return err;
  for (auto& key : doomed)
    if (auto del = t->del(parts_.usage, key))
      return del;
  if (auto commit = t->commit())
    return commit;
  return doomed.size();
}

} // namespace netherscope::storage
