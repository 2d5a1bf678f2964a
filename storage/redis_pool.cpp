#include "storage/redis_pool.hpp"

#include <algorithm>

namespace netherscope::storage {

redis_pool::redis_pool(redis_settings settings)
  : settings_(std::move(settings)), slots_(std::max(1u, settings_.connections)) {
  // nop
}

redis_pool::~redis_pool() {
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

caf::error redis_pool::connect(slot& s) {
  auto now = std::chrono::steady_clock::now();
  if (now < s.next_try)
    return redis_error("unreachable (next reconnect attempt within "
                       + std::to_string(s.backoff.count()) + " ms)");
  auto& a = settings_.address;
  redisContext* ctx = nullptr;
  auto fail = [&](std::string why) {
    if (ctx)
      redisFree(ctx);
    s.tunnel.reset();
    back_off(s);
    return redis_error(std::move(why));
  };
  if (a.tls) {
    std::string problem;
    s.tunnel = redis_tls_tunnel::open({a.host, a.port, a.ca_file, settings_.timeout}, problem);
    if (!s.tunnel)
      return fail(problem);
    ctx = redisConnectFd(s.tunnel->take_client_fd());
  } else {
    ctx = redisConnectWithTimeout(a.host.c_str(), a.port, to_timeval(settings_.timeout));
  }
  if (!ctx)
    return fail("cannot allocate a connection");
  if (ctx->err)
    return fail("cannot connect to " + a.host + ":" + std::to_string(a.port) + ": "
                + ctx->errstr);
  redisSetTimeout(ctx, to_timeval(settings_.timeout));
  s.ctx = ctx;
  if (!a.password.empty()) {
    auto r = a.user.empty() ? run(s, {"AUTH", a.password}) : run(s, {"AUTH", a.user, a.password});
    if (!r) {
      ctx = nullptr; // run dropped it on an I/O error, or it is still in s.ctx
      if (s.ctx)
        drop(s);
      return fail("AUTH failed");
    }
    if (auto err = reply_error(r->get())) {
      drop(s);
      ctx = nullptr;
      return fail("AUTH refused");
    }
  }
  if (a.db != 0) {
    auto r = run(s, {"SELECT", std::to_string(a.db)});
    if (!r || reply_error(r->get())) {
      if (s.ctx)
        drop(s);
      ctx = nullptr;
      return fail("SELECT " + std::to_string(a.db) + " failed");
    }
  }
  // The backoff ends once a command was answered (with_slot): a server that accepts
  // connections but never answers must not cost every call a fresh connect and a timeout.
  return {};
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

} // namespace netherscope::storage
