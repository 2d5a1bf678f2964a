// The store on Redis (--store redis://...): shared by every replica, so quotas, accounts and
// keys, sign-in states and sessions, target memory, the offer cache and the service's identity
// are one across them.
//
// Every call blocks on a connection of storage/redis_pool (the actors that use a store run
// detached, so a round trip stalls only their own thread); the keys are named in
// storage/redis_keys, the scripts are storage/redis_scripts, and the record transactions
// storage/redis_records. A batch of counters runs as one Lua script: atomic against every
// other replica, and one round trip.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "storage/redis_pool.hpp"
#include "storage/redis_url.hpp"
#include "storage/shared_store.hpp"
#include "storage/store.hpp"

namespace netherscope::storage {

/// The store on Redis, and the part of it that replicas on several hosts share.
class redis_store final : public store, public shared_store {
public:
  explicit redis_store(redis_settings settings);
  ~redis_store() override;
  redis_store(const redis_store&) = delete;
  redis_store& operator=(const redis_store&) = delete;

  /// The store's connections, for the parts of the Redis backend kept in their own classes
  /// (storage/redis_watch_store.hpp).
  std::shared_ptr<redis_pool> pool() const noexcept {
    return pool_;
  }

  // -- store --------------------------------------------------------------------

  core::store_backend backend() const noexcept override {
    return core::store_backend::redis;
  }
  caf::error ping() override;
  caf::expected<std::vector<counter_result>>
  apply_counters(const std::vector<counter_op>& ops) override;
  caf::expected<std::vector<std::uint64_t>>
  read_counters(const std::vector<counter_op>& ops) override;
  caf::error with_records(bool write, const record_work& work) override;
  caf::expected<std::vector<std::optional<key_record>>>
  find_keys(const std::vector<std::string>& key_hashes) override;
  caf::expected<core::target_memory> recall_target(std::string_view host, std::uint16_t port,
                                             std::int64_t now_unix) override;
  caf::error remember_target(std::string_view host, std::uint16_t port,
                             const core::target_memory_update& update,
                             std::int64_t now_unix) override;
  caf::expected<std::size_t> sweep_targets(std::int64_t now_unix, std::size_t limit) override;
  caf::expected<std::string> load_or_replace_record(std::string_view name,
                                                    const record_decision& decide) override;
  caf::error flush() override;

  // -- shared_store -------------------------------------------------------------

  caf::expected<std::optional<shared_offer>> get_offer(const core::target& where,
                                                       bool probe) override;
  caf::error put_offer(const core::target& where, const shared_offer& offer,
                       std::chrono::seconds ttl) override;
  caf::expected<bool> lock_flight(const core::target& where, bool probe, std::string_view owner,
                                  std::chrono::milliseconds ttl) override;
  caf::error unlock_flight(const core::target& where, bool probe, std::string_view owner) override;
  caf::expected<std::chrono::seconds> take_offer_slot(const std::vector<std::string>& servers,
                                                      unsigned per_minute, std::string_view owner,
                                                      std::chrono::milliseconds in_flight_ttl,
                                                      unsigned in_flight_limit) override;
  caf::error release_offer_slot(const std::vector<std::string>& servers,
                                std::string_view owner) override;
  caf::expected<std::optional<std::string>> get_value(std::string_view name) override;
  caf::error put_value(std::string_view name, std::string_view value,
                       std::chrono::milliseconds ttl) override;
  caf::expected<bool> take_lease(std::string_view name, std::string_view owner,
                                 std::chrono::milliseconds ttl) override;
  caf::error release_lease(std::string_view name, std::string_view owner) override;

private:
  std::shared_ptr<redis_pool> pool_;
};

} // namespace netherscope::storage
