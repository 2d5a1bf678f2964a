#include "storage/lmdb_store.hpp"

#include <algorithm>

#include <caf/sec.hpp>

#include "storage/records.hpp"
#include "storage/target_records.hpp"

namespace netherscope::storage {

namespace {

/// The record tables of an LMDB transaction: each table is a database of the main environment.
class lmdb_record_txn final : public record_txn {
public:
  lmdb_record_txn(txn& t, const lmdb_parts& parts)
    : t_(t), dbs_{parts.accounts, parts.auth, parts.usage, parts.watches} {
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
  MDB_dbi dbs_[4];
};

// Applies one counter operation in an open write transaction.
caf::expected<counter_result> apply_counter(record_txn& t, const counter_op& op) {
  auto key = usage_key(op.endpoint, op.scope, op.subject, op.window);
  auto used = read_count(t, key);
  if (!used)
    return used.error();
  counter_result out{*used, false, 0};
  switch (op.mode) {
    case storage::counter_mode::peek:
      return out;
    case storage::counter_mode::refund:
      out.granted = std::min(*used, op.amount);
      break;
    case storage::counter_mode::count:
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
  out.used = op.mode == storage::counter_mode::count ? *used + out.granted : *used - out.granted;
  if (auto err = write_count(t, key, out.used))
    return err;
  return out;
}

// -- the target memory's records in their environment --

caf::error apply_target_update(txn& t, MDB_dbi db, std::string_view host, std::uint16_t port,
                               const core::target_memory_update& update, std::int64_t now_unix) {
  using change = core::target_memory_update::scheme_change;
  if (update.change == change::store) {
    if (auto err = t.put(db, scheme_record_key(host, port),
                         encode(scheme_record{update.scheme, update.scheme_expires})))
      return err;
  } else if (update.change == change::forget) {
    if (auto err = t.del(db, scheme_record_key(host, port)))
      return err;
  }
  if (update.key_sha256.size() == identity_key_hex_length) {
    if (auto err = t.put(db, identity_record_key(host, port),
                         encode(identity_key_record{update.key_sha256, now_unix})))
      return err;
  }
  return {};
}

} // namespace

lmdb_store::lmdb_store(lmdb_parts parts) : parts_(std::move(parts)) {
  // nop
}

caf::error lmdb_store::ping() {
  // A read transaction proves the environment is open and its lock file usable.
  auto t = txn::begin(*parts_.main, false);
  if (!t)
    return t.error();
  return {};
}

caf::expected<std::vector<counter_result>>
lmdb_store::apply_counters(const std::vector<counter_op>& ops) {
  auto t = txn::begin(*parts_.main, true);
  if (!t)
    return t.error();
  lmdb_record_txn records{*t, parts_};
  std::vector<counter_result> out;
  out.reserve(ops.size());
  bool wrote = false;
  for (auto& op : ops) {
    auto result = apply_counter(records, op);
    if (!result)
      return result.error();
    wrote = wrote || op.mode != storage::counter_mode::peek;
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
    deferred_.fetch_add(1);
  } else if (auto err = settle_counters()) {
    // Nothing written, so no fsync came with it: the promise to earlier batches is kept here.
    return err;
  }
  return out;
}

caf::error lmdb_store::settle_counters() {
  // One fsync of the main environment, only when a deferred commit is waiting for it. A
  // commit is counted once it returned, so the sync that starts after this read covers every
  // batch counted in it.
  auto committed = deferred_.load();
  if (settled_.load() >= committed)
    return {};
  if (auto err = parts_.main->flush())
    return err;
  // Another thread's sync may have covered more meanwhile; settled_ never goes back.
  auto seen = settled_.load();
  while (seen < committed && !settled_.compare_exchange_weak(seen, committed)) {
    // seen now holds the other thread's value; try again while it is still behind.
  }
  return {};
}

bool lmdb_store::defers_durability() const noexcept {
  return parts_.main->syncs();
}

caf::expected<std::vector<std::uint64_t>>
lmdb_store::read_counters(const std::vector<counter_op>& ops) {
  // A read transaction: it sees every committed batch, deferred or not, and takes no lock
  // the quota actor's commits wait for.
  auto t = txn::begin(*parts_.main, false);
  if (!t)
    return t.error();
  lmdb_record_txn records{*t, parts_};
  std::vector<std::uint64_t> out;
  out.reserve(ops.size());
  for (auto& op : ops) {
    auto used = read_count(records, usage_key(op.endpoint, op.scope, op.subject, op.window));
    if (!used)
      return used.error();
    out.push_back(*used);
  }
  return out;
}

caf::error lmdb_store::with_records(bool write, const record_work& work) {
  auto t = txn::begin(*parts_.main, write);
  if (!t)
    return t.error();
  lmdb_record_txn records{*t, parts_};
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
  auto t = txn::begin(*parts_.main, false);
  if (!t)
    return t.error();
  lmdb_record_txn records{*t, parts_};
  std::vector<std::optional<key_record>> out;
  out.reserve(key_hashes.size());
  for (auto& hash : key_hashes) {
    auto key = get_key(records, hash);
    if (!key)
      return key.error();
    out.push_back(std::move(*key));
  }
  return out;
}

caf::expected<core::target_memory> lmdb_store::recall_target(std::string_view host,
                                                       std::uint16_t port,
                                                       std::int64_t now_unix) {
  auto t = txn::begin(*parts_.targets_env, false);
  if (!t)
    return t.error();
  auto scheme = t->get(parts_.targets, scheme_record_key(host, port));
  if (!scheme)
    return scheme.error();
  auto key = t->get(parts_.targets, identity_record_key(host, port));
  if (!key)
    return key.error();
  return storage::read_target_memory(*scheme, *key, now_unix);
}

caf::error lmdb_store::remember_target(std::string_view host, std::uint16_t port,
                                       const core::target_memory_update& update,
                                       std::int64_t now_unix) {
  auto t = txn::begin(*parts_.targets_env, true);
  if (!t)
    return t.error();
  if (auto err = apply_target_update(*t, parts_.targets, host, port, update, now_unix))
    return err;
  return t->commit();
}

caf::expected<std::size_t> lmdb_store::sweep_targets(std::int64_t now_unix, std::size_t limit) {
  // Scheme records only: key records are the pins users compare against, one small record
  // per target that ever answered with a verified identity, and never expire.
  if (limit == 0)
    return std::size_t{0};
  auto t = txn::begin(*parts_.targets_env, true);
  if (!t)
    return t.error();
  // Deleting under an open cursor would move it, so the keys are collected first.
  std::vector<std::string> doomed;
  auto err = t->for_each_prefix(parts_.targets, scheme_record_prefix,
                                [&](std::string_view key, std::string_view value) {
                                  if (scheme_record_stale(value, now_unix))
                                    doomed.emplace_back(key);
                                  return doomed.size() < limit;
                                });
  if (err)
    return err;
  if (doomed.empty())
    return std::size_t{0};
  for (auto& key : doomed)
    if (auto del = t->del(parts_.targets, key))
      return del;
  if (auto commit = t->commit())
    return commit;
  return doomed.size();
}

caf::expected<std::string> lmdb_store::load_or_replace_record(std::string_view name,
                                                              const record_decision& decide) {
  // One write transaction: write transactions exclude each other across processes, so
  // replicas sharing the environment agree on one value.
  auto t = txn::begin(*parts_.main, true);
  if (!t)
    return t.error();
  auto existing = t->get(parts_.meta, name);
  if (!existing)
    return existing.error();
  auto decision = decide(*existing);
  if (!decision)
    return decision.error();
  if (!*decision) {
    if (!*existing)
      return caf::make_error(caf::sec::runtime_error, "nothing stored and nothing to store");
    return std::string{**existing};
  }
  if (auto err = t->put(parts_.meta, name, **decision))
    return err;
  if (auto err = t->commit())
    return err;
  return std::move(**decision);
}

caf::error lmdb_store::flush() {
  // Commits are durable per the environment's sync option; without sync this is the moment
  // the pending pages reach the disk. The counters of deferred batches stay as they are:
  // settle_counters alone moves them, so the quota actor's promise never rests on a sync it
  // did not see.
  if (auto err = parts_.main->flush())
    return err;
  return parts_.targets_env->flush();
}

// -- the counter archive ------------------------------------------------------------

caf::expected<std::vector<counter_entry>> lmdb_store::counters_of(std::string_view window) {
  auto t = txn::begin(*parts_.main, false);
  if (!t)
    return t.error();
  lmdb_record_txn records{*t, parts_};
  std::vector<counter_entry> out;
  caf::error bad;
  auto err = records.for_each_prefix(
    record_table::usage, usage_prefix, [&](std::string_view key, std::string_view) {
      auto entry = parse_usage_key(key);
      if (!entry || entry->window != window)
        return true;
      auto count = read_count(records, key);
      if (!count) {
        bad = count.error();
        return false;
      }
      entry->count = *count;
      out.push_back(std::move(*entry));
      return true;
    });
  if (err)
    return err;
  if (bad)
    return bad;
  return out;
}

caf::expected<std::size_t> lmdb_store::prune_counters_before(std::string_view window) {
  auto t = txn::begin(*parts_.main, true);
  if (!t)
    return t.error();
  lmdb_record_txn records{*t, parts_};
  // Deleting under an open cursor would move it, so the keys are collected first. Labels
  // compare as text, and an hour's label sorts after its month's.
  std::vector<std::string> doomed;
  auto err = records.for_each_prefix(record_table::usage, usage_prefix,
                                     [&](std::string_view key, std::string_view) {
                                       if (key.substr(key.rfind('|') + 1) < window)
                                         doomed.emplace_back(key);
                                       return true;
                                     });
  if (err)
    return err;
  for (auto& key : doomed)
    if (auto del = records.del(record_table::usage, key))
      return del;
  if (auto commit = t->commit())
    return commit;
  return doomed.size();
}

} // namespace netherscope::storage
