#include "storage/redis_records.hpp"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "storage/redis_keys.hpp"

namespace netherscope::storage {

namespace {

// A MATCH pattern for the fields starting with prefix: glob characters in it are escaped.
std::string prefix_pattern(std::string_view prefix) {
  std::string out;
  for (char c : prefix) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\')
      out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('*');
  return out;
}

// HSCAN rounds of one walk at most: 4096 rounds of COUNT 256 is about a million fields, far
// past what the account tables hold; a walk that reaches it fails rather than loop forever.
constexpr int max_scan_rounds = 4096;

/// One record transaction on a Redis connection. Reads go to Redis (and are remembered, so a
/// value read twice is the same); writes stay here until commit sends them as one MULTI/EXEC,
/// which Redis refuses when another client changed a watched table in between.
class redis_record_txn final : public record_txn {
public:
  redis_record_txn(redis_pool& p, redis_pool::slot& s, bool write)
    : pool_(p), slot_(s), write_(write) {
    // nop
  }

  caf::expected<std::optional<std::string_view>> get(record_table table,
                                                     std::string_view key) override {
    auto name = entry_name(table, key);
    auto i = entries_.find(name);
    if (i == entries_.end()) {
      auto r = read(table, {"HGET", redis_record_hash(table), std::string{key}});
      if (!r)
        return r.error();
      entry e;
      if ((*r)->type == REDIS_REPLY_STRING)
        e.value = std::string{reply_text(r->get())};
      else if ((*r)->type != REDIS_REPLY_NIL)
        return redis_error("HGET answered something else than a value");
      i = entries_.emplace(std::move(name), std::move(e)).first;
    }
    if (!i->second.value)
      return std::optional<std::string_view>{};
    return std::optional<std::string_view>{*i->second.value};
  }

  caf::error put(record_table table, std::string_view key, std::string_view value) override {
    return change(table, key, std::string{value});
  }

  caf::error del(record_table table, std::string_view key) override {
    return change(table, key, std::nullopt);
  }

  caf::error for_each_prefix(record_table table, std::string_view prefix,
                             const visitor& fn) override {
    std::map<std::string, std::string> found;
    std::string cursor = "0";
    auto pattern = prefix_pattern(prefix);
    for (int round = 0;; ++round) {
      if (round == max_scan_rounds)
        return redis_error("a walk over " + redis_record_hash(table) + " did not end");
      auto r = read(table, {"HSCAN", redis_record_hash(table), cursor, "MATCH", pattern,
                            "COUNT", "256"});
      if (!r)
        return r.error();
      auto* reply = r->get();
      if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 2
          || reply->element[0]->type != REDIS_REPLY_STRING
          || reply->element[1]->type != REDIS_REPLY_ARRAY)
        return redis_error("HSCAN answered something else than a cursor and fields");
      auto* fields = reply->element[1];
      for (std::size_t i = 0; i + 1 < fields->elements; i += 2) {
        auto field = reply_text(fields->element[i]);
        if (field.substr(0, prefix.size()) == prefix)
          found[std::string{field}] = std::string{reply_text(fields->element[i + 1])};
      }
      cursor = std::string{reply_text(reply->element[0])};
      if (cursor == "0")
        break;
    }
    // This transaction's own writes win over what Redis holds.
    auto first = entry_name(table, prefix);
    for (auto i = entries_.lower_bound(first);
         i != entries_.end() && i->first.compare(0, first.size(), first) == 0; ++i) {
      if (!i->second.dirty)
        continue;
      auto field = i->first.substr(1);
      if (i->second.value)
        found[field] = *i->second.value;
      else
        found.erase(field);
    }
    for (auto& [key, value] : found)
      if (!fn(key, value))
        break;
    return {};
  }

  /// The commands that apply this transaction's writes; empty when it wrote nothing.
  std::vector<redis_command> writes() const {
    std::vector<redis_command> cmds;
    for (auto& [name, e] : entries_) {
      if (!e.dirty)
        continue;
      auto table = static_cast<record_table>(name[0] - '0');
      if (e.value)
        cmds.push_back({"HSET", redis_record_hash(table), name.substr(1), *e.value});
      else
        cmds.push_back({"HDEL", redis_record_hash(table), name.substr(1)});
    }
    return cmds;
  }

private:
  struct entry {
    std::optional<std::string> value;
    bool dirty = false;
  };

  static std::string entry_name(record_table table, std::string_view key) {
    std::string out;
    out.push_back(static_cast<char>('0' + static_cast<int>(table)));
    out += key;
    return out;
  }

  caf::error change(record_table table, std::string_view key, std::optional<std::string> value) {
    if (!write_)
      return redis_error("a write in a read-only record transaction");
    auto& e = entries_[entry_name(table, key)];
    e.value = std::move(value);
    e.dirty = true;
    return {};
  }

  // A read of table. A write transaction watches a table with its first read of it (in the
  // same round trip), and only the tables it reads: its EXEC then fails exactly when what it
  // read changed, and a change to a table it only writes (or does not touch) costs it no
  // round. Writes need no watch: MULTI/EXEC applies them all or none.
  caf::expected<redis_reply> read(record_table table, std::vector<std::string> cmd) {
    auto index = static_cast<std::size_t>(table);
    if (!write_ || watched_[index])
      return call(std::move(cmd));
    auto replies = pool_.pipeline(slot_, {{"WATCH", redis_record_hash(table)}, std::move(cmd)});
    if (!replies)
      return replies.error();
    for (auto& r : *replies)
      if (auto err = reply_error(r.get()))
        return err;
    watched_[index] = true;
    return std::move(replies->back());
  }

  caf::expected<redis_reply> call(std::vector<std::string> cmd) {
    // A connection lost earlier in this transaction was dropped; pipeline sends nothing then.
    auto r = pool_.run(slot_, std::move(cmd));
    if (!r)
      return r.error();
    if (auto err = reply_error(r->get()))
      return err;
    return r;
  }

  redis_pool& pool_;
  redis_pool::slot& slot_;
  bool write_;
  std::array<bool, 4> watched_{};
  std::map<std::string, entry> entries_;
};

} // namespace

caf::error run_record_transaction(redis_pool& pool, bool write, const record_work& work) {
  // Each round runs work, which watches the tables it reads, and sends its writes as one
  // MULTI/EXEC; Redis refuses the EXEC when another replica changed one of those tables in
  // between, and work runs again on what that replica wrote. Account changes are rare and
  // quick, so a few rounds are plenty; a pause that grows, and differs by thread, keeps two
  // losers from meeting again.
  constexpr int rounds = 16;
  auto jitter = std::hash<std::thread::id>{}(std::this_thread::get_id()) % 500;
  for (int round = 0; round < rounds; ++round) {
    if (round > 0)
      std::this_thread::sleep_for(std::chrono::microseconds(200 * round + jitter));
    bool lost_race = false;
    auto err = pool.with_slot([&](redis_pool::slot& s) -> caf::error {
      // The transaction watches each table as it first reads it (redis_record_txn::read).
      redis_record_txn records{pool, s, write};
      auto keep = work(records);
      auto cmds = keep && *keep && write ? records.writes() : std::vector<redis_command>{};
      if (cmds.empty()) {
        if (write && s.ctx)
          pool.run(s, {"UNWATCH"});
        return keep ? caf::error{} : keep.error();
      }
      cmds.insert(cmds.begin(), {"MULTI"});
      cmds.push_back({"EXEC"});
      // Under --store-min-replicas, the WAIT rides in the same round trip.
      bool wait = pool.waits_for_replicas();
      if (wait)
        cmds.push_back(pool.wait_command());
      auto replies = pool.pipeline(s, cmds);
      if (!replies)
        return replies.error();
      auto& exec = (*replies)[replies->size() - (wait ? 2 : 1)];
      if (exec->type == REDIS_REPLY_NIL) {
        lost_race = true;
        return {};
      }
      for (auto& r : *replies)
        if (auto err = reply_error(r.get()))
          return err;
      // EXEC answers with one reply per queued command, and a command that failed there
      // (a wrong type) is an error inside that array: Redis applied the others, so this must
      // not be reported as a success.
      if (exec->type == REDIS_REPLY_ARRAY)
        for (std::size_t i = 0; i < exec->elements; ++i)
          if (auto err = reply_error(exec->element[i]))
            return err;
      return wait ? pool.check_acknowledged(replies->back().get()) : caf::error{};
    });
    if (err || !lost_race)
      return err;
  }
  return redis_error("the account records kept changing under us; try again");
}

} // namespace netherscope::storage
