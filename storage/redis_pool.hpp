// The Redis store's connections: a small pool of hiredis 0.14 synchronous connections, each
// behind its own mutex, connected on demand (over rediss:// through the TLS tunnel of
// storage/redis_tls) and dropped when they fail. A connection that fails is tried again after
// a backoff of 100 ms doubling to 1 s, so the store recovers within a few seconds of Redis
// returning, and while the backoff runs a call on it fails at once: a dead Redis costs a call
// one refused connect at most, and usually none.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include "core/telemetry.hpp"
#include "storage/redis_reply.hpp"
#include "storage/redis_tls.hpp"
#include "storage/redis_url.hpp"

namespace netherscope::storage {

/// Settings of the Redis store.
struct redis_settings {
  redis_address address;
  /// Connections in the pool. Each caller (the quota, memory and keys actors, the offer gate,
  /// the cache's shared-offers worker, start-up) holds one at a time, the first free one.
  unsigned connections = 4;
  /// Limit of a connect and of one command's round trip.
  std::chrono::milliseconds timeout{1000};
  /// Replicas that must acknowledge a durable write before it counts as done (WAIT); 0 waits
  /// for none (--store-min-replicas).
  unsigned min_replicas = 0;
  /// How long a durable write waits for them; kept under timeout, so the WAIT's reply always
  /// arrives before the connection's own limit would drop it.
  std::chrono::milliseconds replica_wait{500};
};

/// One command: its words, sent as binary-safe arguments.
using redis_command = std::vector<std::string>;

/// Connections to one Redis, reconnected on demand with a backoff.
class redis_pool {
public:
  /// One connection and its backoff.
  struct slot {
    std::mutex mutex;
    redisContext* ctx = nullptr;
    /// The TLS tunnel whose plain end ctx reads and writes (rediss:// only).
    std::unique_ptr<redis_tls_tunnel> tunnel;
    std::chrono::steady_clock::time_point next_try{};
    std::chrono::milliseconds backoff{0};
    /// Under Sentinel, the master's generation when ctx connected: a connection of an older
    /// one is dropped before its next use.
    std::uint64_t generation = 0;
  };

  explicit redis_pool(redis_settings settings);
  ~redis_pool();
  redis_pool(const redis_pool&) = delete;
  redis_pool& operator=(const redis_pool&) = delete;

  /// Runs fn(slot) on a free connection, connected first: one round trip or several on one
  /// connection (WATCH ... EXEC). Redis is up when the connection survived them, whatever the
  /// commands said.
  template <class F>
  caf::error with_slot(F fn);

  /// Sends every command, then reads every reply: one round trip on s. An I/O error drops
  /// the connection, so the next call starts with a fresh one.
  caf::expected<std::vector<redis_reply>> pipeline(slot& s,
                                                   const std::vector<redis_command>& cmds);

  /// One command on s.
  caf::expected<redis_reply> run(slot& s, redis_command cmd);

  /// Runs the commands on a free connection in one round trip; replies that are errors are
  /// returned as replies.
  caf::expected<std::vector<redis_reply>> exec(const std::vector<redis_command>& cmds);

  /// One command on a free connection; a reply that is an error is returned as the error.
  caf::expected<redis_reply> exec_one(redis_command cmd);

  /// As exec, for writes a reply depends on: in the same round trip, WAIT for min_replicas
  /// replicas to acknowledge them, and fail (the writes made on the master, but not promised
  /// to survive its loss) when fewer did within replica_wait.
  caf::expected<std::vector<redis_reply>> exec_durable(const std::vector<redis_command>& cmds);

  /// As exec_one, durable as exec_durable.
  caf::expected<redis_reply> exec_one_durable(redis_command cmd);

  /// Whether durable writes wait for replicas.
  bool waits_for_replicas() const noexcept {
    return settings_.min_replicas > 0;
  }

  /// The WAIT that follows durable writes on their connection.
  redis_command wait_command() const;

  /// The error of a WAIT's reply: none when enough replicas acknowledged.
  caf::error check_acknowledged(const redisReply* r) const;

private:
  /// The first free connection from a rotating start, else the one at the start.
  std::unique_lock<std::mutex> choose(slot*& chosen);

  /// Connects to the server (under Sentinel, the master the sentinels name, checked with
  /// ROLE), authenticates and selects the database; the error says which step failed, never
  /// with the password. Backs off on failure.
  caf::error connect(slot& s);

  /// Connects s to one server and authenticates; a sentinel selects no database and needs no
  /// password of its own.
  caf::error open(slot& s, const redis_endpoint& at, bool sentinel);

  /// The master the sentinels name now, asking each in turn from the one that answered last.
  caf::expected<redis_endpoint> find_master();

  /// Under Sentinel, on a thread of its own until the pool goes: subscribed to a sentinel's
  /// +switch-master, it moves the master's generation on at each failover of ours (and after
  /// it lost its subscription, when one may have been missed), so every connection to the
  /// old master is dropped before it is used again.
  void watch_failovers();

  static void drop(slot& s);
  static void back_off(slot& s);

  redis_settings settings_;
  std::vector<slot> slots_;
  std::atomic<std::size_t> next_{0};
  std::atomic<std::size_t> sentinel_next_{0};
  std::atomic<std::uint64_t> master_generation_{0};
  std::atomic<bool> stopping_{false};
  std::thread watcher_;
};

template <class F>
caf::error redis_pool::with_slot(F fn) {
  slot* chosen = nullptr;
  auto guard = choose(chosen);
  auto& s = *chosen;
  bool fresh = false;
  if (s.ctx && s.generation != master_generation_.load(std::memory_order_acquire))
    drop(s);
  if (!s.ctx) {
    if (auto err = connect(s)) {
      core::process_telemetry().set_redis_up(false);
      return err;
    }
    fresh = true;
  }
  auto err = fn(s);
  if (s.ctx) {
    s.backoff = std::chrono::milliseconds{0};
    s.next_try = {};
  } else if (fresh) {
    // Connected, then lost before any answer: back off as for a refused connect.
    back_off(s);
  }
  core::process_telemetry().set_redis_up(s.ctx != nullptr);
  return err;
}

} // namespace netherscope::storage
