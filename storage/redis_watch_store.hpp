// The watch store on Redis: the schedule every replica claims from, and each watched
// server's history, on the Redis store's connections. The schedule is a sorted set of servers
// by ready time and a hash of entries, changed only by the scripts of storage/redis_scripts,
// so each claim is atomic and each slot runs on one replica; a server's rows and hours are two
// sorted sets scored by time (keys in storage/redis_keys).
#pragma once

#include <memory>

#include "storage/redis_pool.hpp"
#include "storage/watch_store.hpp"

namespace netherscope::storage {

/// The watch store on Redis.
class redis_watch_store final : public watch_store {
public:
  explicit redis_watch_store(std::shared_ptr<redis_pool> pool);

  caf::expected<std::vector<std::string>>
  sync_schedule(const std::vector<scheduled_target>& targets, std::int64_t now_ms) override;
  caf::expected<std::vector<core::schedule_claim>>
  claim_checks(const std::string& owner, std::int64_t now_ms, std::size_t max,
               std::int64_t lease_ms) override;
  caf::expected<bool> complete_check(std::string_view key, std::string_view owner,
                                     std::int64_t due_ms, std::int64_t now_ms) override;
  caf::expected<std::optional<core::history_row>>
  record_check(std::string_view key, const core::history_row& row,
               const core::history_budget& budget) override;
  caf::expected<std::vector<core::history_row>>
  read_rows(std::string_view key, std::int64_t from, std::int64_t to) override;
  caf::expected<std::vector<core::history_hour>>
  read_hours(std::string_view key, std::int64_t from, std::int64_t to) override;
  caf::expected<std::vector<std::optional<core::history_row>>>
  latest_checks(const std::vector<std::string>& keys) override;

private:
  std::shared_ptr<redis_pool> pool_;
};

} // namespace netherscope::storage
