#include "storage/redis_store.hpp"

#include <algorithm>
#include <charconv>

#include <caf/sec.hpp>

#include "storage/redis_keys.hpp"
#include "storage/redis_pool.hpp"
#include "storage/redis_records.hpp"
#include "storage/redis_scripts.hpp"
#include "storage/target_records.hpp"

namespace netherscope::storage {

// -- the store --------------------------------------------------------------------

redis_store::redis_store(redis_settings settings)
  : pool_(std::make_shared<redis_pool>(std::move(settings))) {
  // nop
}

redis_store::~redis_store() = default;

caf::error redis_store::ping() {
  auto r = pool_->exec_one({"PING"});
  if (!r)
    return r.error();
  if ((*r)->type != REDIS_REPLY_STATUS || reply_text(r->get()) != "PONG")
    return redis_error("PING was not answered PONG");
  return {};
}

caf::expected<std::vector<counter_result>>
redis_store::apply_counters(const std::vector<counter_op>& ops) {
  if (ops.empty())
    return std::vector<counter_result>{};
  redis_command cmd{"EVAL", std::string{redis_scripts::counters}, std::to_string(ops.size())};
  for (auto& op : ops)
    cmd.push_back(redis_counter_key(op));
  for (auto& op : ops) {
    cmd.push_back(op.mode == storage::counter_mode::count ? "c"
                  : op.mode == storage::counter_mode::peek ? "p"
                                                   : "r");
    cmd.push_back(std::to_string(op.limit));
    cmd.push_back(std::to_string(op.expires_unix));
    cmd.push_back(std::to_string(op.amount));
  }
  // A count or a reservation is a charge a reply depends on; a peek writes nothing.
  bool writes = std::any_of(ops.begin(), ops.end(),
                            [](const counter_op& op) { return op.mode != counter_mode::peek; });
  auto r = writes ? pool_->exec_one_durable(std::move(cmd)) : pool_->exec_one(std::move(cmd));
  if (!r)
    return r.error();
  std::vector<counter_result> out;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    long long used = 0;
    long long refused = 0;
    long long granted = 0;
    if (!reply_integer_at(r->get(), 3 * i, used) || !reply_integer_at(r->get(), 3 * i + 1, refused)
        || !reply_integer_at(r->get(), 3 * i + 2, granted) || used < 0 || granted < 0)
      return redis_error("the counter script answered something else than counts");
    out.push_back(counter_result{static_cast<std::uint64_t>(used), refused != 0,
                                 static_cast<std::uint64_t>(granted)});
  }
  return out;
}

caf::expected<std::vector<std::uint64_t>>
redis_store::read_counters(const std::vector<counter_op>& ops) {
  std::vector<redis_command> cmds;
  for (auto& op : ops)
    cmds.push_back({"GET", redis_counter_key(op)});
  if (cmds.empty())
    return std::vector<std::uint64_t>{};
  auto replies = pool_->exec(cmds);
  if (!replies)
    return replies.error();
  std::vector<std::uint64_t> out;
  for (auto& r : *replies) {
    if (auto err = reply_error(r.get()))
      return err;
    std::uint64_t used = 0;
    if (r->type == REDIS_REPLY_STRING) {
      auto text = reply_text(r.get());
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), used);
      if (ec != std::errc{} || end != text.data() + text.size())
        return redis_error("a counter holds something else than a count");
    } else if (r->type != REDIS_REPLY_NIL) {
      return redis_error("GET answered something else than a value");
    }
    out.push_back(used);
  }
  return out;
}

caf::error redis_store::with_records(bool write, const record_work& work) {
  return run_record_transaction(*pool_, write, work);
}

caf::expected<std::vector<std::optional<key_record>>>
redis_store::find_keys(const std::vector<std::string>& key_hashes) {
  std::vector<std::optional<key_record>> out;
  if (key_hashes.empty())
    return out;
  redis_command cmd{"HMGET", redis_record_hash(record_table::accounts)};
  for (auto& hash : key_hashes)
    cmd.push_back(key_key(hash));
  auto r = pool_->exec_one(std::move(cmd));
  if (!r)
    return r.error();
  auto* reply = r->get();
  if (reply->type != REDIS_REPLY_ARRAY || reply->elements != key_hashes.size())
    return redis_error("HMGET answered something else than one value per key");
  for (std::size_t i = 0; i < reply->elements; ++i) {
    auto* value = reply->element[i];
    if (value->type != REDIS_REPLY_STRING) {
      out.emplace_back();
      continue;
    }
    auto record = decode_key(reply_text(value));
    if (!record)
      return redis_error("an unreadable key record");
    out.emplace_back(std::move(*record));
  }
  return out;
}

caf::expected<core::target_memory> redis_store::recall_target(std::string_view host,
                                                        std::uint16_t port,
                                                        std::int64_t now_unix) {
  auto tag = redis_target_tag(host, port);
  auto replies = pool_->exec({{"GET", tag + ":scheme"}, {"GET", tag + ":key"}});
  if (!replies)
    return replies.error();
  for (auto& r : *replies)
    if (auto err = reply_error(r.get()))
      return err;
  // GET answers a string, or nil when the key is absent.
  auto value = [](const redis_reply& r) -> std::optional<std::string_view> {
    if (r->type != REDIS_REPLY_STRING)
      return std::nullopt;
    return reply_text(r.get());
  };
  return storage::read_target_memory(value((*replies)[0]), value((*replies)[1]), now_unix);
}

caf::error redis_store::remember_target(std::string_view host, std::uint16_t port,
                                        const core::target_memory_update& update,
                                        std::int64_t now_unix) {
  using change = core::target_memory_update::scheme_change;
  auto tag = redis_target_tag(host, port);
  std::vector<redis_command> cmds;
  if (update.change == change::store && update.scheme_expires > now_unix)
    // The record expires with its hint, so Redis needs no sweep.
    cmds.push_back({"SET", tag + ":scheme",
                    encode(scheme_record{update.scheme, update.scheme_expires}), "EXAT",
                    std::to_string(update.scheme_expires)});
  else if (update.change != change::keep)
    cmds.push_back({"DEL", tag + ":scheme"});
  if (!update.key_sha256.empty())
    cmds.push_back(
      {"SET", tag + ":key", encode(identity_key_record{update.key_sha256, now_unix})});
  if (cmds.empty())
    return {};
  auto replies = pool_->exec(cmds);
  if (!replies)
    return replies.error();
  for (auto& r : *replies)
    if (auto err = reply_error(r.get()))
      return err;
  return {};
}

caf::expected<std::size_t> redis_store::sweep_targets(std::int64_t, std::size_t) {
  // Scheme records carry their expiry in Redis (EXAT); nothing is left to sweep.
  return std::size_t{0};
}

caf::expected<std::string> redis_store::load_or_replace_record(std::string_view name,
                                                               const record_decision& decide) {
  auto key = redis_meta_key(name);
  // Another replica may write between our read and our write; then we read again and decide
  // on what it wrote. A few rounds are plenty: each lost round means someone else won.
  for (int round = 0; round < 5; ++round) {
    auto got = pool_->exec_one({"GET", key});
    if (!got)
      return got.error();
    std::optional<std::string> stored;
    if ((*got)->type == REDIS_REPLY_STRING)
      stored = std::string{reply_text(got->get())};
    auto decision = decide(stored ? std::optional<std::string_view>{*stored} : std::nullopt);
    if (!decision)
      return decision.error();
    if (!*decision) {
      if (!stored)
        return caf::make_error(caf::sec::runtime_error, "nothing stored and nothing to store");
      return std::move(*stored);
    }
    auto wrote = stored ? pool_->exec_one_durable({"EVAL", std::string{redis_scripts::replace_record},
                                                   "1", key, *stored, **decision})
                        : pool_->exec_one_durable({"SET", key, **decision, "NX"});
    if (!wrote)
      return wrote.error();
    auto won = stored ? (*wrote)->type == REDIS_REPLY_INTEGER && (*wrote)->integer == 1
                      : (*wrote)->type == REDIS_REPLY_STATUS;
    if (won)
      return std::move(**decision);
  }
  return redis_error("the record '" + std::string{name} + "' kept changing under us");
}

caf::expected<std::optional<shared_offer>> redis_store::get_offer(const core::target& where,
                                                                  bool probe) {
  // A call without probe is served by either entry, as the local cache does; the probed
  // one carries more.
  std::vector<redis_command> cmds{{"GET", redis_offer_key(where, true)}};
  if (!probe)
    cmds.push_back({"GET", redis_offer_key(where, false)});
  auto replies = pool_->exec(cmds);
  if (!replies)
    return replies.error();
  std::optional<shared_offer> best;
  for (auto& r : *replies) {
    if (auto err = reply_error(r.get()))
      return err;
    if (r->type != REDIS_REPLY_STRING)
      continue;
    auto offer = decode_shared_offer(reply_text(r.get()));
    if (offer && (!best || offer->retrieved_unix > best->retrieved_unix))
      best = std::move(offer);
  }
  return best;
}

caf::error redis_store::put_offer(const core::target& where, const shared_offer& offer,
                                  std::chrono::seconds ttl) {
  auto r = pool_->exec_one({"SET", redis_offer_key(where, offer.probed), encode(offer), "EX",
                            std::to_string(std::max<std::int64_t>(1, ttl.count()))});
  if (!r)
    return r.error();
  return {};
}

caf::expected<bool> redis_store::lock_flight(const core::target& where, bool probe,
                                             std::string_view owner,
                                             std::chrono::milliseconds ttl) {
  auto r = pool_->exec_one({"SET", redis_flight_key(where, probe), std::string{owner}, "NX", "PX",
                            std::to_string(std::max<std::int64_t>(1, ttl.count()))});
  if (!r)
    return r.error();
  return (*r)->type == REDIS_REPLY_STATUS;
}

caf::error redis_store::unlock_flight(const core::target& where, bool probe, std::string_view owner) {
  auto r = pool_->exec_one({"EVAL", std::string{redis_scripts::delete_if_owner}, "1",
                            redis_flight_key(where, probe), std::string{owner}});
  if (!r)
    return r.error();
  return {};
}

caf::expected<std::optional<std::string>> redis_store::get_value(std::string_view name) {
  auto r = pool_->exec_one({"GET", redis_value_key(name)});
  if (!r)
    return r.error();
  if ((*r)->type != REDIS_REPLY_STRING)
    return std::optional<std::string>{};
  return std::optional<std::string>{reply_text(r->get())};
}

caf::error redis_store::put_value(std::string_view name, std::string_view value,
                                  std::chrono::milliseconds ttl) {
  auto r = pool_->exec_one({"SET", redis_value_key(name), std::string{value}, "PX",
                            std::to_string(std::max<std::int64_t>(1, ttl.count()))});
  if (!r)
    return r.error();
  return {};
}

caf::expected<bool> redis_store::take_lease(std::string_view name, std::string_view owner,
                                            std::chrono::milliseconds ttl) {
  auto r = pool_->exec_one({"SET", redis_lease_key(name), std::string{owner}, "NX", "PX",
                            std::to_string(std::max<std::int64_t>(1, ttl.count()))});
  if (!r)
    return r.error();
  return (*r)->type == REDIS_REPLY_STATUS;
}

caf::error redis_store::release_lease(std::string_view name, std::string_view owner) {
  auto r = pool_->exec_one({"EVAL", std::string{redis_scripts::delete_if_owner}, "1",
                            redis_lease_key(name), std::string{owner}});
  if (!r)
    return r.error();
  return {};
}

caf::expected<std::chrono::seconds>
redis_store::take_offer_slot(const std::vector<std::string>& servers, unsigned per_minute,
                             std::string_view owner, std::chrono::milliseconds in_flight_ttl,
                             unsigned in_flight_limit) {
  if (servers.empty())
    return std::chrono::seconds::zero();
  redis_command cmd{"EVAL", std::string{redis_scripts::take_offer_slot},
                    std::to_string(2 * servers.size())};
  for (auto& server : servers) {
    cmd.push_back(redis_server_tag(server) + ":sent");
    cmd.push_back(redis_server_tag(server) + ":inflights");
  }
  cmd.push_back(std::to_string(per_minute));
  cmd.push_back(std::string{owner});
  cmd.push_back(std::to_string(std::max<std::int64_t>(1, in_flight_ttl.count())));
  cmd.push_back(std::to_string(std::max(1u, in_flight_limit)));
  auto r = pool_->exec_one(std::move(cmd));
  if (!r)
    return r.error();
  if ((*r)->type != REDIS_REPLY_INTEGER || (*r)->integer < 0)
    return redis_error("the offer limit script answered something else than a wait");
  if ((*r)->integer == 0)
    return std::chrono::seconds::zero();
  // Whole seconds, rounded up, and at least one, as the local limiter says them.
  return std::chrono::seconds{((*r)->integer + 999) / 1000};
}

caf::error redis_store::release_offer_slot(const std::vector<std::string>& servers,
                                           std::string_view owner) {
  if (servers.empty())
    return {};
  redis_command cmd{"EVAL", std::string{redis_scripts::release_offer_slot},
                    std::to_string(servers.size())};
  for (auto& server : servers)
    cmd.push_back(redis_server_tag(server) + ":inflights");
  cmd.push_back(std::string{owner});
  auto r = pool_->exec_one(std::move(cmd));
  if (!r)
    return r.error();
  return {};
}

caf::error redis_store::flush() {
  // Every write was acknowledged by Redis before its call returned; how Redis keeps it
  // (RDB, AOF) is its operator's setting.
  return {};
}

} // namespace netherscope::storage
