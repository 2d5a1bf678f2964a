#include "storage/lmdb_watch_store.hpp"

#include <algorithm>
#include <memory>
#include <set>
#include <utility>

namespace netherscope::storage {


namespace {

/// "r|<key>|" or "h|<key>|": where one server's rows or hours start.
std::string history_prefix(char kind, std::string_view key) {
  std::string out;
  out.reserve(key.size() + 3);
  out += kind;
  out += '|';
  out += key;
  out += '|';
  return out;
}

/// The prefix and a time, big-endian, so keys sort by time.
std::string timed_key(const std::string& prefix, std::int64_t t) {
  auto out = prefix;
  auto u = static_cast<std::uint64_t>(t);
  for (int shift = 56; shift >= 0; shift -= 8)
    out += static_cast<char>((u >> shift) & 0xff);
  return out;
}

/// The time of a timed key, given its prefix's size.
std::int64_t time_of(std::string_view key, std::size_t prefix_size) {
  std::uint64_t u = 0;
  for (std::size_t i = prefix_size; i < key.size(); ++i)
    u = (u << 8) | static_cast<unsigned char>(key[i]);
  return static_cast<std::int64_t>(u);
}

/// One stored entry of a server's history: its key and its time.
struct timed_entry {
  std::string key;
  std::int64_t t = 0;
};

/// Every entry under prefix, ascending by time.
caf::expected<std::vector<timed_entry>> entries_under(txn& t, MDB_dbi db,
                                                      const std::string& prefix) {
  std::vector<timed_entry> out;
  auto err = t.for_each_prefix(db, prefix, [&](std::string_view k, std::string_view) {
    if (k.size() == prefix.size() + 8)
      out.push_back({std::string{k}, time_of(k, prefix.size())});
    return true;
  });
  if (err)
    return err;
  return out;
}

/// Deletes the oldest entries the rule drops.
caf::error prune(txn& t, MDB_dbi db, const std::vector<timed_entry>& entries,
                 const core::prune_rule& rule) {
  std::vector<std::int64_t> times;
  times.reserve(entries.size());
  for (const auto& e : entries)
    times.push_back(e.t);
  auto drop = core::entries_to_drop(times, rule);
  for (std::size_t i = 0; i < drop; ++i)
    if (auto err = t.del(db, entries[i].key))
      return err;
  return {};
}

} // namespace

lmdb_watch_store::lmdb_watch_store(std::shared_ptr<env> main, MDB_dbi history)
  : main_(std::move(main)), history_(history) {
  // nop
}

caf::expected<std::vector<std::string>>
lmdb_watch_store::sync_schedule(const std::vector<scheduled_target>& targets,
                                std::int64_t now_ms) {
  std::vector<std::string> gone;
  {
    std::lock_guard<std::mutex> guard{schedule_mutex_};
    std::set<std::string_view> wanted;
    for (const auto& x : targets) {
      schedule_.put(x.key, x.period_ms, now_ms);
      wanted.insert(x.key);
    }
    for (const auto& key : schedule_.keys())
      if (wanted.count(key) == 0)
        gone.push_back(key);
    for (const auto& key : gone)
      schedule_.remove(key);
  }
  if (gone.empty())
    return gone;
  auto t = txn::begin(*main_, true);
  if (!t)
    return t.error();
  for (const auto& key : gone)
    for (char kind : {'r', 'h'}) {
      auto entries = entries_under(*t, history_, history_prefix(kind, key));
      if (!entries)
        return entries.error();
      for (const auto& e : *entries)
        if (auto err = t->del(history_, e.key))
          return err;
    }
  if (auto err = t->commit())
    return err;
  return gone;
}

caf::expected<std::vector<core::schedule_claim>>
lmdb_watch_store::claim_checks(const std::string& owner, std::int64_t now_ms, std::size_t max,
                               std::int64_t lease_ms) {
  std::lock_guard<std::mutex> guard{schedule_mutex_};
  return schedule_.claim(owner, now_ms, max, lease_ms);
}

caf::expected<bool> lmdb_watch_store::complete_check(std::string_view key,
                                                     std::string_view owner,
                                                     std::int64_t due_ms, std::int64_t now_ms) {
  std::lock_guard<std::mutex> guard{schedule_mutex_};
  return schedule_.complete(key, owner, due_ms, now_ms);
}

caf::expected<std::optional<core::history_row>>
lmdb_watch_store::record_check(std::string_view key, const core::history_row& row,
                               const core::history_budget& budget) {
  auto t = txn::begin(*main_, true);
  if (!t)
    return t.error();
  auto rows_prefix = history_prefix('r', key);
  auto hour = core::hour_start(row.at);
  // One walk of the server's rows finds what the prune needs (every row's key and time) and
  // what the check needs (the rows before it: the hour's to fold, the latest as the answer).
  // The values stay valid until the first write of the transaction, so they are decoded before.
  std::vector<timed_entry> rows;
  std::vector<std::string_view> values_before;
  std::vector<core::history_row> hour_rows;
  auto err = t->for_each_prefix(history_, rows_prefix, [&](std::string_view k, std::string_view v) {
    if (k.size() != rows_prefix.size() + 8)
      return true;
    auto at = time_of(k, rows_prefix.size());
    rows.push_back({std::string{k}, at});
    if (at < row.at)
      values_before.push_back(v);
    return true;
  });
  if (err)
    return err;
  // The check before is the latest earlier row that decodes.
  std::optional<core::history_row> previous;
  for (auto i = values_before.size(); i > 0 && !previous; --i)
    previous = core::decode_history_row(values_before[i - 1]);
  for (std::size_t i = 0; i < values_before.size(); ++i)
    if (rows[i].t >= hour)
      if (auto decoded = core::decode_history_row(values_before[i]))
        hour_rows.push_back(std::move(*decoded));
  auto row_key = timed_key(rows_prefix, row.at);
  if (auto err = t->put(history_, row_key, core::encode(row)))
    return err;
  // The new row joins the walked ones in time order, unless it replaced a row of its time.
  auto at = std::lower_bound(rows.begin(), rows.end(), row.at,
                             [](const timed_entry& e, std::int64_t x) { return e.t < x; });
  if (at == rows.end() || at->t != row.at)
    rows.insert(at, {std::move(row_key), row.at});
  if (auto err = prune(*t, history_, rows, core::rows_rule(row.at, budget)))
    return err;
  hour_rows.push_back(row);
  auto hours_prefix = history_prefix('h', key);
  for (const auto& folded : core::fold_hours(std::move(hour_rows)))
    if (folded.start == hour)
      if (auto err = t->put(history_, timed_key(hours_prefix, hour), core::encode(folded)))
        return err;
  auto hours = entries_under(*t, history_, hours_prefix);
  if (!hours)
    return hours.error();
  if (auto err = prune(*t, history_, *hours, core::hours_rule(row.at, budget)))
    return err;
  if (auto err = t->commit())
    return err;
  return previous;
}

namespace {

/// The entries under prefix with from <= t < to that decode, ascending.
template <class Entry, class Decode>
caf::expected<std::vector<Entry>> read_between(env& main, MDB_dbi db, const std::string& prefix,
                                               std::int64_t from, std::int64_t to,
                                               Decode decode) {
  auto t = txn::begin(main, false);
  if (!t)
    return t.error();
  std::vector<Entry> out;
  auto err = t->for_each_prefix(db, prefix, [&](std::string_view k, std::string_view v) {
    if (k.size() != prefix.size() + 8)
      return true;
    auto at = time_of(k, prefix.size());
    if (at >= to)
      return false;
    if (at >= from)
      if (auto entry = decode(v))
        out.push_back(std::move(*entry));
    return true;
  });
  if (err)
    return err;
  return out;
}

} // namespace

caf::expected<std::vector<core::history_row>>
lmdb_watch_store::read_rows(std::string_view key, std::int64_t from, std::int64_t to) {
  return read_between<core::history_row>(*main_, history_, history_prefix('r', key), from, to,
                                        core::decode_history_row);
}

caf::expected<std::vector<core::history_hour>>
lmdb_watch_store::read_hours(std::string_view key, std::int64_t from, std::int64_t to) {
  return read_between<core::history_hour>(*main_, history_, history_prefix('h', key), from, to,
                                         core::decode_history_hour);
}

caf::expected<std::vector<std::optional<core::history_row>>>
lmdb_watch_store::latest_checks(const std::vector<std::string>& keys) {
  auto t = txn::begin(*main_, false);
  if (!t)
    return t.error();
  MDB_cursor* cursor = nullptr;
  if (auto rc = mdb_cursor_open(t->native(), history_, &cursor))
    return make_lmdb_error(rc, "mdb_cursor_open");
  std::unique_ptr<MDB_cursor, void (*)(MDB_cursor*)> guard{cursor, mdb_cursor_close};
  std::vector<std::optional<core::history_row>> out;
  out.reserve(keys.size());
  for (const auto& key : keys) {
    // The server's last row is the entry just before the first key after its prefix.
    auto prefix = history_prefix('r', key);
    auto after = prefix;
    after.back() = static_cast<char>('|' + 1);
    MDB_val k{after.size(), after.data()};
    MDB_val v{0, nullptr};
    auto rc = mdb_cursor_get(cursor, &k, &v, MDB_SET_RANGE);
    rc = rc == 0 ? mdb_cursor_get(cursor, &k, &v, MDB_PREV)
                 : mdb_cursor_get(cursor, &k, &v, MDB_LAST);
    std::optional<core::history_row> latest;
    if (rc == 0) {
      std::string_view found{static_cast<const char*>(k.mv_data), k.mv_size};
      if (found.size() == prefix.size() + 8 && found.substr(0, prefix.size()) == prefix)
        latest = core::decode_history_row(
          std::string_view{static_cast<const char*>(v.mv_data), v.mv_size});
    } else if (rc != MDB_NOTFOUND) {
      return make_lmdb_error(rc, "mdb_cursor_get");
    }
    out.push_back(std::move(latest));
  }
  return out;
}

} // namespace netherscope::storage
