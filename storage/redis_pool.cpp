#include "storage/redis_pool.hpp"

#include <poll.h>

#include <algorithm>

#include "storage/open.hpp"

namespace netherscope::storage {

redis_pool::redis_pool(redis_settings settings)
  : settings_(std::move(settings)), slots_(std::max(1u, settings_.connections)) {
  if (!settings_.address.sentinels.empty())
    watcher_ = std::thread{[this] { watch_failovers(); }};
}

redis_pool::~redis_pool() {
  stopping_ = true;
  if (watcher_.joinable())
    watcher_.join();
  for (auto& s : slots_)
    if (s.ctx)
      redisFree(s.ctx);
}

void redis_pool::drop(slot& s) {
  redisFree(s.ctx);
  s.ctx = nullptr;
  s.tunnel.reset();
}

void redis_pool::back_off(slot& s) {
  // 100 ms, then doubling up to 1 s: a Redis that comes back is found within a second.
  s.backoff = std::min(std::chrono::milliseconds{1000},
                       std::max(std::chrono::milliseconds{100}, s.backoff * 2));
  s.next_try = std::chrono::steady_clock::now() + s.backoff;
}

std::unique_lock<std::mutex> redis_pool::choose(slot*& chosen) {
  // The first free connection from a rotating start, so one long call (a record
  // transaction, a sweep) holds up no other caller while another connection is free; when
  // all are busy, wait for the one at the start.
  auto start = next_.fetch_add(1, std::memory_order_relaxed) % slots_.size();
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    auto& candidate = slots_[(start + i) % slots_.size()];
    std::unique_lock<std::mutex> attempt{candidate.mutex, std::try_to_lock};
    if (attempt.owns_lock()) {
      chosen = &candidate;
      return attempt;
    }
  }
  chosen = &slots_[start];
  return std::unique_lock<std::mutex>{chosen->mutex};
}

caf::error redis_pool::open(slot& s, const redis_endpoint& at, bool sentinel) {
  auto& a = settings_.address;
  redisContext* ctx = nullptr;
  auto fail = [&](std::string why) {
    if (ctx)
      redisFree(ctx);
    s.tunnel.reset();
    return redis_error(std::move(why));
  };
  auto where = at.host + ":" + std::to_string(at.port);
  if (a.tls) {
    std::string problem;
    s.tunnel = redis_tls_tunnel::open({at.host, at.port, a.ca_file, settings_.timeout}, problem);
    if (!s.tunnel)
      return fail(problem);
    ctx = redisConnectFd(s.tunnel->take_client_fd());
  } else {
    ctx = redisConnectWithTimeout(at.host.c_str(), at.port, to_timeval(settings_.timeout));
  }
  if (!ctx)
    return fail("cannot allocate a connection");
  if (ctx->err)
    return fail("cannot connect to " + where + ": " + ctx->errstr);
  redisSetTimeout(ctx, to_timeval(settings_.timeout));
  s.ctx = ctx;
  ctx = nullptr;
  if (!a.password.empty()) {
    auto r = a.user.empty() ? run(s, {"AUTH", a.password}) : run(s, {"AUTH", a.user, a.password});
    if (!r) {
      if (s.ctx)
        drop(s);
      return fail("AUTH at " + where + " failed");
    }
    if (reply_error(r->get())) {
      // A sentinel without a password of its own refuses AUTH; it still answers.
      auto said = r->get()->str != nullptr ? std::string{r->get()->str, r->get()->len} : "";
      bool unneeded = sentinel && said.find("without any password configured") != std::string::npos;
      if (!unneeded) {
        drop(s);
        return fail("AUTH refused at " + where);
      }
    }
  }
  if (!sentinel && a.db != 0) {
    auto r = run(s, {"SELECT", std::to_string(a.db)});
    if (!r || reply_error(r->get())) {
      if (s.ctx)
        drop(s);
      return fail("SELECT " + std::to_string(a.db) + " failed");
    }
  }
  return {};
}

caf::expected<redis_endpoint> redis_pool::find_master() {
  auto& a = settings_.address;
  std::string problems;
  auto count = a.sentinels.size();
  auto first = sentinel_next_.load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < count; ++i) {
    auto index = (first + i) % count;
    const auto& sentinel = a.sentinels[index];
    auto where = sentinel.host + ":" + std::to_string(sentinel.port);
    slot asked;
    if (auto err = open(asked, sentinel, true)) {
      problems += (problems.empty() ? "" : "; ") + message_of(err);
      continue;
    }
    auto r = run(asked, {"SENTINEL", "get-master-addr-by-name", a.master_name});
    if (asked.ctx)
      drop(asked);
    const redisReply* reply = r ? r->get() : nullptr;
    if (reply == nullptr || reply->type != REDIS_REPLY_ARRAY || reply->elements != 2
        || reply->element[0]->type != REDIS_REPLY_STRING
        || reply->element[1]->type != REDIS_REPLY_STRING) {
      problems += (problems.empty() ? "" : "; ") + where + ": no master named " + a.master_name;
      continue;
    }
    auto port = std::string{reply->element[1]->str, reply->element[1]->len};
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos
        || std::stoul(port) == 0 || std::stoul(port) > 65535) {
      problems += (problems.empty() ? "" : "; ") + where + ": an unreadable port";
      continue;
    }
    // The sentinel that answered is asked first next time.
    sentinel_next_.store(index, std::memory_order_relaxed);
    return redis_endpoint{std::string{reply->element[0]->str, reply->element[0]->len},
                          static_cast<std::uint16_t>(std::stoul(port))};
  }
  return redis_error("no sentinel named the master " + a.master_name + " (" + problems + ")");
}

caf::error redis_pool::connect(slot& s) {
  auto now = std::chrono::steady_clock::now();
  if (now < s.next_try)
    return redis_error("unreachable (next reconnect attempt within "
                       + std::to_string(s.backoff.count()) + " ms)");
  auto& a = settings_.address;
  auto fail = [&](caf::error err) {
    back_off(s);
    return err;
  };
  auto generation = master_generation_.load(std::memory_order_acquire);
  redis_endpoint at{a.host, a.port};
  if (!a.sentinels.empty()) {
    // Asked at every connect: after a failover the next connection finds the new master.
    auto master = find_master();
    if (!master)
      return fail(master.error());
    at = std::move(*master);
  }
  if (auto err = open(s, at, false))
    return fail(err);
  if (!a.sentinels.empty()) {
    // The sentinels may name a master that is one no longer (a failover under way): never
    // write to a replica.
    auto r = run(s, {"ROLE"});
    const redisReply* reply = r ? r->get() : nullptr;
    bool master = reply != nullptr && reply->type == REDIS_REPLY_ARRAY && reply->elements > 0
                  && reply->element[0]->type == REDIS_REPLY_STRING
                  && std::string{reply->element[0]->str, reply->element[0]->len} == "master";
    if (!master) {
      if (s.ctx)
        drop(s);
      return fail(redis_error(at.host + ":" + std::to_string(at.port)
                              + ", which the sentinels name as the master, is not one"));
    }
  }
  // The generation is read before the master was asked for, so a failover announced while
  // this connected drops it at its next use.
  s.generation = generation;
  // The backoff ends once a command was answered (with_slot): a server that accepts
  // connections but never answers must not cost every call a fresh connect and a timeout.
  return {};
}

void redis_pool::watch_failovers() {
  const auto& a = settings_.address;
  const auto pause = std::chrono::milliseconds{200};
  bool lost = false;
  std::size_t next = 0;
  while (!stopping_) {
    slot watch;
    const auto& sentinel = a.sentinels[next++ % a.sentinels.size()];
    if (open(watch, sentinel, true)
        || redisAppendCommand(watch.ctx, "SUBSCRIBE +switch-master") != REDIS_OK) {
      if (watch.ctx)
        drop(watch);
      std::this_thread::sleep_for(pause);
      continue;
    }
    if (lost) {
      // A failover may have come and gone while no sentinel was heard.
      master_generation_.fetch_add(1, std::memory_order_acq_rel);
      lost = false;
    }
    int done = 0;
    while (!stopping_ && redisBufferWrite(watch.ctx, &done) == REDIS_OK && !done) {
    }
    // Read what comes, waking every 200 ms to see whether the pool is going.
    while (!stopping_ && watch.ctx) {
      pollfd p{watch.ctx->fd, POLLIN, 0};
      auto ready = ::poll(&p, 1, static_cast<int>(pause.count()));
      if (ready == 0)
        continue;
      if (ready < 0 || redisBufferRead(watch.ctx) != REDIS_OK)
        break;
      void* raw = nullptr;
      while (watch.ctx && redisGetReplyFromReader(watch.ctx, &raw) == REDIS_OK && raw) {
        redis_reply message{static_cast<redisReply*>(raw)};
        raw = nullptr;
        const auto* r = message.get();
        // ["message", "+switch-master", "NAME OLD-IP OLD-PORT NEW-IP NEW-PORT"]
        if (r->type == REDIS_REPLY_ARRAY && r->elements == 3
            && r->element[2]->type == REDIS_REPLY_STRING) {
          std::string_view text{r->element[2]->str, r->element[2]->len};
          if (text.substr(0, text.find(' ')) == a.master_name)
            master_generation_.fetch_add(1, std::memory_order_acq_rel);
        }
      }
    }
    if (watch.ctx)
      drop(watch);
    lost = true;
    if (!stopping_)
      std::this_thread::sleep_for(pause);
  }
}

caf::expected<std::vector<redis_reply>>
redis_pool::pipeline(slot& s, const std::vector<redis_command>& cmds) {
  // An earlier command of the same call may have dropped the connection.
  if (!s.ctx)
    return redis_error("connection lost");
  for (auto& cmd : cmds) {
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (auto& a : cmd) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    if (redisAppendCommandArgv(s.ctx, static_cast<int>(argv.size()), argv.data(), lens.data())
        != REDIS_OK) {
      auto why = std::string{s.ctx->errstr};
      drop(s);
      return redis_error(why);
    }
  }
  std::vector<redis_reply> replies;
  for (std::size_t i = 0; i < cmds.size(); ++i) {
    void* raw = nullptr;
    if (redisGetReply(s.ctx, &raw) != REDIS_OK || !raw) {
      auto why = std::string{s.ctx->errstr};
      drop(s);
      return redis_error(why.empty() ? "connection lost" : why);
    }
    replies.emplace_back(static_cast<redisReply*>(raw));
  }
  for (auto& r : replies)
    if (reply_wrong_server(r.get())) {
      drop(s);
      break;
    }
  return replies;
}

caf::expected<redis_reply> redis_pool::run(slot& s, redis_command cmd) {
  auto replies = pipeline(s, {std::move(cmd)});
  if (!replies)
    return replies.error();
  return std::move(replies->front());
}

caf::expected<std::vector<redis_reply>>
redis_pool::exec(const std::vector<redis_command>& cmds) {
  std::vector<redis_reply> out;
  auto err = with_slot([&](slot& s) -> caf::error {
    auto replies = pipeline(s, cmds);
    if (!replies)
      return replies.error();
    out = std::move(*replies);
    return {};
  });
  if (err)
    return err;
  return out;
}

caf::expected<redis_reply> redis_pool::exec_one(redis_command cmd) {
  auto replies = exec({std::move(cmd)});
  if (!replies)
    return replies.error();
  if (auto err = reply_error(replies->front().get()))
    return err;
  return std::move(replies->front());
}

caf::expected<std::vector<redis_reply>>
redis_pool::exec_durable(const std::vector<redis_command>& cmds) {
  if (!waits_for_replicas())
    return exec(cmds);
  auto with_wait = cmds;
  with_wait.push_back(wait_command());
  auto replies = exec(with_wait);
  if (!replies)
    return replies.error();
  if (auto err = check_acknowledged(replies->back().get()))
    return err;
  replies->pop_back();
  return replies;
}

caf::expected<redis_reply> redis_pool::exec_one_durable(redis_command cmd) {
  auto replies = exec_durable({std::move(cmd)});
  if (!replies)
    return replies.error();
  if (auto err = reply_error(replies->front().get()))
    return err;
  return std::move(replies->front());
}

redis_command redis_pool::wait_command() const {
  return {"WAIT", std::to_string(settings_.min_replicas),
          std::to_string(std::max<std::int64_t>(1, settings_.replica_wait.count()))};
}

caf::error redis_pool::check_acknowledged(const redisReply* r) const {
  if (auto err = reply_error(r))
    return err;
  if (r->type != REDIS_REPLY_INTEGER)
    return redis_error("WAIT answered something else than a count of replicas");
  if (r->integer < static_cast<long long>(settings_.min_replicas))
    return redis_error(std::to_string(r->integer) + " of the "
                       + std::to_string(settings_.min_replicas)
                       + " replicas required (--store-min-replicas) acknowledged the write within "
                       + std::to_string(settings_.replica_wait.count()) + " ms");
  return {};
}

} // namespace netherscope::storage
