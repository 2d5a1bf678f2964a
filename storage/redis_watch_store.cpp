#include "storage/redis_watch_store.hpp"

#include <set>
#include <utility>

#include "storage/redis_keys.hpp"
#include "storage/redis_reply.hpp"
#include "storage/redis_scripts.hpp"

namespace netherscope::storage {


namespace {

/// How many servers one schedule script call carries, so no call holds Redis long.
constexpr std::size_t schedule_batch = 256;

std::string decimal(std::int64_t n) {
  return std::to_string(n);
}

/// The string elements of an array reply; an error for any other shape.
caf::expected<std::vector<std::string_view>> strings_of(const redisReply* r) {
  if (r->type == REDIS_REPLY_ERROR)
    return reply_error(r);
  if (r->type != REDIS_REPLY_ARRAY)
    return redis_error("a list was expected");
  std::vector<std::string_view> out;
  out.reserve(r->elements);
  for (std::size_t i = 0; i < r->elements; ++i) {
    auto* e = r->element[i];
    if (e->type != REDIS_REPLY_STRING)
      return redis_error("a list of strings was expected");
    out.push_back(reply_text(e));
  }
  return out;
}

/// A decimal integer a script wrote; nullopt when it is not one.
std::optional<std::int64_t> integer_of(std::string_view text) {
  if (text.empty() || text.size() > 19)
    return std::nullopt;
  std::int64_t n = 0;
  bool negative = text.front() == '-';
  for (auto c : text.substr(negative ? 1 : 0)) {
    if (c < '0' || c > '9')
      return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return negative ? -n : n;
}

/// The rows of a list of members, skipping any that do not decode.
std::vector<core::history_row> rows_of(const std::vector<std::string_view>& members) {
  std::vector<core::history_row> out;
  for (auto m : members)
    if (auto row = core::decode_history_row(m))
      out.push_back(std::move(*row));
  return out;
}

/// The commands that prune one sorted set by a rule: older than its time, then beyond its
/// count (the oldest first).
void add_prune(std::vector<redis_command>& cmds, const std::string& key,
               const core::prune_rule& rule) {
  cmds.push_back({"ZREMRANGEBYSCORE", key, "-inf", "(" + decimal(rule.drop_before)});
  cmds.push_back({"ZREMRANGEBYRANK", key, "0",
                  decimal(-static_cast<std::int64_t>(rule.keep_at_most) - 1)});
}

} // namespace

redis_watch_store::redis_watch_store(std::shared_ptr<redis_pool> pool) : pool_(std::move(pool)) {
  // nop
}

caf::expected<std::vector<std::string>>
redis_watch_store::sync_schedule(const std::vector<scheduled_target>& targets,
                                 std::int64_t now_ms) {
  auto ready = redis_schedule_ready_key();
  auto entries = redis_schedule_entries_key();
  for (std::size_t i = 0; i < targets.size(); i += schedule_batch) {
    redis_command cmd{"EVAL", std::string{redis_scripts::schedule_put}, "2", ready, entries};
    for (std::size_t j = i; j < targets.size() && j < i + schedule_batch; ++j) {
      const auto& x = targets[j];
      auto period = std::max<std::int64_t>(x.period_ms, 1);
      cmd.push_back(x.key);
      cmd.push_back(decimal(period));
      cmd.push_back(decimal(core::slot_offset(x.key, period)));
      cmd.push_back(decimal(core::next_due(x.key, period, now_ms)));
    }
    if (auto r = pool_->exec_one(std::move(cmd)); !r)
      return r.error();
  }
  auto listed = pool_->exec_one({"HKEYS", entries});
  if (!listed)
    return listed.error();
  auto keys = strings_of(listed->get());
  if (!keys)
    return keys.error();
  std::set<std::string_view> wanted;
  for (const auto& x : targets)
    wanted.insert(x.key);
  std::vector<std::string> gone;
  for (auto key : *keys)
    if (wanted.count(key) == 0)
      gone.emplace_back(key);
  for (std::size_t i = 0; i < gone.size(); i += schedule_batch) {
    redis_command cmd{"EVAL", std::string{redis_scripts::schedule_remove}, "2", ready, entries};
    std::vector<redis_command> cmds;
    for (std::size_t j = i; j < gone.size() && j < i + schedule_batch; ++j) {
      cmd.push_back(gone[j]);
      cmds.push_back({"DEL", redis_history_rows_key(gone[j]), redis_history_hours_key(gone[j])});
    }
    cmds.insert(cmds.begin(), std::move(cmd));
    auto replies = pool_->exec(cmds);
    if (!replies)
      return replies.error();
    for (const auto& r : *replies)
      if (r->type == REDIS_REPLY_ERROR)
        return reply_error(r.get());
  }
  return gone;
}

caf::expected<std::vector<core::schedule_claim>>
redis_watch_store::claim_checks(const std::string& owner, std::int64_t now_ms, std::size_t max,
                                std::int64_t lease_ms) {
  auto r = pool_->exec_one({"EVAL", std::string{redis_scripts::schedule_claim}, "2",
                            redis_schedule_ready_key(), redis_schedule_entries_key(),
                            decimal(now_ms), decimal(static_cast<std::int64_t>(max)),
                            decimal(std::max<std::int64_t>(lease_ms, 1)), owner});
  if (!r)
    return r.error();
  auto values = strings_of(r->get());
  if (!values)
    return values.error();
  if (values->size() % 4 != 0)
    return redis_error("the schedule's claim answered an odd list");
  std::vector<core::schedule_claim> out;
  for (std::size_t i = 0; i < values->size(); i += 4) {
    core::schedule_claim c;
    c.key = std::string{(*values)[i]};
    auto due = integer_of((*values)[i + 1]);
    auto until = integer_of((*values)[i + 2]);
    if (!due || !until)
      return redis_error("the schedule's claim answered a time that is not a number");
    c.due_ms = *due;
    c.lease_until_ms = *until;
    c.taken_from = std::string{(*values)[i + 3]};
    out.push_back(std::move(c));
  }
  return out;
}

caf::expected<bool> redis_watch_store::complete_check(std::string_view key,
                                                      std::string_view owner,
                                                      std::int64_t due_ms, std::int64_t now_ms) {
  auto r = pool_->exec_one({"EVAL", std::string{redis_scripts::schedule_complete}, "2",
                            redis_schedule_ready_key(), redis_schedule_entries_key(),
                            std::string{key}, std::string{owner}, decimal(due_ms),
                            decimal(now_ms)});
  if (!r)
    return r.error();
  if ((*r)->type != REDIS_REPLY_INTEGER)
    return redis_error("the schedule's completion answered no number");
  return (*r)->integer == 1;
}

caf::expected<std::optional<core::history_row>>
redis_watch_store::record_check(std::string_view key, const core::history_row& row,
                                const core::history_budget& budget) {
  auto rows_key = redis_history_rows_key(key);
  auto hours_key = redis_history_hours_key(key);
  auto at = decimal(row.at);
  auto hour = core::hour_start(row.at);
  auto read = pool_->exec({{"ZREVRANGEBYSCORE", rows_key, "(" + at, "-inf", "LIMIT", "0", "1"},
                           {"ZRANGEBYSCORE", rows_key, decimal(hour), "(" + at}});
  if (!read)
    return read.error();
  auto latest = strings_of((*read)[0].get());
  auto hour_members = strings_of((*read)[1].get());
  if (!latest)
    return latest.error();
  if (!hour_members)
    return hour_members.error();
  std::optional<core::history_row> previous;
  if (auto rows = rows_of(*latest); !rows.empty())
    previous = rows.back();
  auto hour_rows = rows_of(*hour_members);
  hour_rows.push_back(row);
  std::vector<redis_command> cmds;
  cmds.push_back({"MULTI"});
  cmds.push_back({"ZREMRANGEBYSCORE", rows_key, at, at});
  cmds.push_back({"ZADD", rows_key, at, core::encode(row)});
  for (const auto& folded : core::fold_hours(std::move(hour_rows)))
    if (folded.start == hour) {
      cmds.push_back({"ZREMRANGEBYSCORE", hours_key, decimal(hour), decimal(hour)});
      cmds.push_back({"ZADD", hours_key, decimal(hour), core::encode(folded)});
    }
  add_prune(cmds, rows_key, core::rows_rule(row.at, budget));
  add_prune(cmds, hours_key, core::hours_rule(row.at, budget));
  cmds.push_back({"EXEC"});
  auto written = pool_->exec(cmds);
  if (!written)
    return written.error();
  const auto& exec = written->back();
  if (exec->type != REDIS_REPLY_ARRAY)
    return exec->type == REDIS_REPLY_ERROR ? reply_error(exec.get())
                                           : redis_error("the history write was not applied");
  for (std::size_t i = 0; i < exec->elements; ++i)
    if (exec->element[i]->type == REDIS_REPLY_ERROR)
      return reply_error(exec->element[i]);
  return previous;
}

caf::expected<std::vector<core::history_row>>
redis_watch_store::read_rows(std::string_view key, std::int64_t from, std::int64_t to) {
  auto r = pool_->exec_one(
    {"ZRANGEBYSCORE", redis_history_rows_key(key), decimal(from), "(" + decimal(to)});
  if (!r)
    return r.error();
  auto members = strings_of(r->get());
  if (!members)
    return members.error();
  return rows_of(*members);
}

caf::expected<std::vector<core::history_hour>>
redis_watch_store::read_hours(std::string_view key, std::int64_t from, std::int64_t to) {
  auto r = pool_->exec_one(
    {"ZRANGEBYSCORE", redis_history_hours_key(key), decimal(from), "(" + decimal(to)});
  if (!r)
    return r.error();
  auto members = strings_of(r->get());
  if (!members)
    return members.error();
  std::vector<core::history_hour> out;
  for (auto m : *members)
    if (auto hour = core::decode_history_hour(m))
      out.push_back(std::move(*hour));
  return out;
}

caf::expected<std::vector<std::optional<core::history_row>>>
redis_watch_store::latest_checks(const std::vector<std::string>& keys) {
  std::vector<std::optional<core::history_row>> out;
  out.reserve(keys.size());
  // Pipelined in batches, so one scrape of many servers is a few round trips.
  for (std::size_t i = 0; i < keys.size(); i += schedule_batch) {
    std::vector<redis_command> cmds;
    for (std::size_t j = i; j < keys.size() && j < i + schedule_batch; ++j)
      cmds.push_back({"ZRANGE", redis_history_rows_key(keys[j]), "-1", "-1"});
    auto replies = pool_->exec(cmds);
    if (!replies)
      return replies.error();
    for (const auto& r : *replies) {
      auto members = strings_of(r.get());
      if (!members)
        return members.error();
      auto rows = rows_of(*members);
      out.push_back(rows.empty() ? std::nullopt : std::optional<core::history_row>{rows.back()});
    }
  }
  return out;
}

} // namespace netherscope::storage
