// The watch store on LMDB: the one process runs the schedule itself (core/watch_schedule,
// in memory: slots follow from the servers, so a restart loses nothing but the leases), and
// each server's history lives in the history database of the main environment, its rows and
// hours under keys ordered by time, so a prune deletes a prefix.
//
//   r|<host>|<port>|<at, 8 bytes big-endian>      → a history row
//   h|<host>|<port>|<start, 8 bytes big-endian>   → an hourly aggregate
#pragma once

#include <memory>
#include <mutex>

#include "storage/lmdb.hpp"
#include "storage/watch_store.hpp"

namespace netherscope::storage {

/// The watch store on LMDB.
class lmdb_watch_store final : public watch_store {
public:
  lmdb_watch_store(std::shared_ptr<env> main, MDB_dbi history);

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
  std::shared_ptr<env> main_;
  MDB_dbi history_;
  /// The schedule; callers on several threads (a test's replicas) may share the store.
  std::mutex schedule_mutex_;
  core::watch_schedule schedule_;
};

} // namespace netherscope::storage
