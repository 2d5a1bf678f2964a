// The store on Redis (--store redis://...): shared by every replica, so quotas, accounts and
// keys, sign-in states and sessions, target memory, the offer cache and the service's identity
// are one across them.
//
// hiredis 0.14 (Debian's libhiredis-dev) with a small pool of synchronous connections: the
// actors that use a store run detached, so a blocking round trip stalls only their own
// thread. A connection that fails is dropped and reconnected on a later call, with a backoff
// that doubles up to 1 s, so the service recovers by itself within a few seconds of Redis
// coming back, and a dead Redis costs each call one refused connect at most.
//
// Key names start with a version prefix ("ns1:") and carry a hash tag ({...}) per target or
// per counter subject, so a Redis Cluster could hold them later. A batch of counters runs as
// one Lua script: atomic against every other replica, and one round trip.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "storage/store.hpp"

namespace netherscope::storage {

/// Where Redis is, from a redis:// URL.
struct redis_address {
  std::string host;
  std::uint16_t port = 6379;
  unsigned db = 0;
  /// An ACL user (Redis 6 and later), sent with AUTH before the password; empty for Redis's
  /// default user.
  std::string user;
  /// Sent with AUTH after connecting; empty for none. Never logged.
  std::string password;
  /// rediss://: TLS through storage/redis_tls, the certificate checked against ca_file (the
  /// system's CAs when empty).
  bool tls = false;
  std::string ca_file;
};

/// Parses redis://[[USER]:PASSWORD@]HOST[:PORT][/DB] and
/// rediss://[[USER]:PASSWORD@]HOST[:PORT][/DB][?ssl_ca_certs=PATH]. A user without a password
/// is refused: it is most often a password written without its colon, which would otherwise
/// be ignored and then logged.
caf::expected<redis_address> parse_redis_url(std::string_view url);

/// The same, with the reason a URL is refused as text; nullopt and a problem when refused.
std::optional<redis_address> read_redis_url(std::string_view url, std::string& problem);

/// Why url is refused, or "" when it is a usable redis:// URL (for option checks).
std::string redis_url_problem(std::string_view url);

/// The URL with its user and password replaced, fit for logs; the input unchanged when it has
/// none or does not parse (an unparsable URL is refused before anything is logged).
std::string redacted_store_url(std::string_view url);

/// Settings of the Redis store.
struct redis_settings {
  redis_address address;
  /// Connections in the pool. Each caller (the quota, memory and keys actors, the offer gate,
  /// the cache's shared-offers worker, start-up) holds one at a time, the first free one.
  unsigned connections = 4;
  /// Limit of a connect and of one command's round trip.
  std::chrono::milliseconds timeout{1000};
};

/// The store on Redis.
class redis_store final : public store {
public:
  explicit redis_store(redis_settings settings);
  ~redis_store() override;
  redis_store(const redis_store&) = delete;
  redis_store& operator=(const redis_store&) = delete;

  store_backend backend() const noexcept override {
    return store_backend::redis;
  }
  caf::error ping() override;
  caf::expected<std::vector<counter_result>>
  apply_counters(const std::vector<counter_op>& ops) override;
  caf::expected<std::vector<std::uint64_t>>
  read_counters(const std::vector<counter_op>& ops) override;
  caf::error with_records(bool write, const record_work& work) override;
  caf::expected<std::vector<std::optional<key_record>>>
  find_keys(const std::vector<std::string>& key_hashes) override;
  caf::expected<target_memory> recall_target(std::string_view host, std::uint16_t port,
                                             std::int64_t now_unix) override;
  caf::error remember_target(std::string_view host, std::uint16_t port,
                             const target_memory_update& update,
                             std::int64_t now_unix) override;
  caf::expected<std::size_t> sweep_targets(std::int64_t now_unix, std::size_t limit) override;
  caf::expected<std::string> load_or_replace_record(std::string_view name,
                                                    const record_decision& decide) override;
  bool shared_across_hosts() const noexcept override {
    return true;
  }
  caf::expected<std::optional<shared_offer>> get_offer(const target& where,
                                                       bool probe) override;
  caf::error put_offer(const target& where, const shared_offer& offer,
                       std::chrono::seconds ttl) override;
  caf::expected<bool> lock_flight(const target& where, bool probe, std::string_view owner,
                                  std::chrono::milliseconds ttl) override;
  caf::error unlock_flight(const target& where, bool probe, std::string_view owner) override;
  caf::expected<std::chrono::seconds> take_offer_slot(const std::vector<std::string>& servers,
                                                      unsigned per_minute, std::string_view owner,
                                                      std::chrono::milliseconds in_flight_ttl)
    override;
  caf::error release_offer_slot(const std::vector<std::string>& servers,
                                std::string_view owner) override;
  caf::error flush() override;

  /// Runs one command (tests use it to look at and clear the keys).
  caf::expected<std::string> command_text(const std::vector<std::string>& args);

  struct pool;

private:
  redis_settings settings_;
  std::unique_ptr<pool> pool_;
};

/// The Redis key of a counter.
std::string redis_counter_key(const counter_op& op);

} // namespace netherscope::storage
