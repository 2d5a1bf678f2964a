// Test support: stores opened the way the service opens them (storage::open), what tests read
// and write through them, and a store that forwards every call to another, for tests that
// watch or break one operation.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <caf/expected.hpp>

#include "storage/open.hpp"
#include "storage/record_txn.hpp"
#include "storage/redis_url.hpp"
#include "storage/store.hpp"
#include "support/process.hpp"
#include "support/redis_server.hpp"
#include "support/rooms.hpp"

namespace netherscope::test {

/// A store of the backend a test section names: "lmdb" in a temp dir of its own, or "redis" on
/// a redis-server of its own; both live as long as this.
struct backend_store {
  std::unique_ptr<temp_dir> dir;
  std::unique_ptr<redis_server> redis;
  std::shared_ptr<storage::store> store;
  /// The watch store opened beside it.
  std::shared_ptr<storage::watch_store> watching;

  explicit backend_store(const std::string& backend);
};

/// Whether a test of backend ("lmdb" or "redis") can run here: false, with a warning that the
/// case is skipped, for Redis where redis-server is not installed.
bool backend_available(const std::string& backend);

/// The store options name; the test fails when it cannot be opened.
storage::opened open_store(const storage::open_options& options);

/// The LMDB store in dir, as the service opens it. LMDB allows one open of a directory per
/// process: a test that needs the store twice shares what this returned.
storage::opened open_lmdb(const std::string& dir);

/// storage::read_redis_url with its problem as an error (caf::sec::invalid_argument), so a
/// test reads a URL and its refusal in one value.
caf::expected<storage::redis_address> parse_redis_url(std::string_view url);

/// How long a test's durable write waits for its replicas. A replica on a machine busy with
/// sanitizer runs can take longer than the service's half second to acknowledge, and a test
/// that expects a write to succeed must not fail for that; a refusal takes this long.
inline constexpr std::chrono::milliseconds patient_replica_wait{3000};

/// The Redis store at url, with this many connections; min_replicas as --store-min-replicas
/// (unset: the service's default for the URL). Durable writes wait patient_replica_wait, and
/// a command's limit is long enough for that wait.
storage::opened open_redis(const std::string& url, unsigned connections = 4,
                           std::optional<unsigned> min_replicas = std::nullopt);

/// One count (or, with mode peek, one read) of a counter of the "info" endpoint on an ip
/// subject, in window, that expires an hour from now and allows a million counts: for tests
/// of the store itself, which need a counter the store keeps whatever the date.
storage::counter_op hour_counter(const std::string& window, const std::string& subject,
                                 storage::counter_mode mode = storage::counter_mode::count,
                                 std::uint64_t amount = 1);

/// What s holds for one counter; nothing is written.
std::uint64_t counter_value(storage::store& s, const std::string& endpoint,
                            const std::string& scope, const std::string& subject,
                            const std::string& window);

/// Runs fn in one record transaction of s, a write (kept) when write is set, as another
/// process would; the test fails when the store does.
void in_records(storage::store& s, bool write,
                const std::function<void(storage::record_txn&)>& fn);

/// A store that forwards every call to another.
class forwarding_store : public storage::store {
public:
  explicit forwarding_store(std::shared_ptr<storage::store> inner);

  store_backend backend() const noexcept override;
  caf::error ping() override;
  caf::expected<std::vector<storage::counter_result>>
  apply_counters(const std::vector<storage::counter_op>& ops) override;
  bool defers_durability() const noexcept override;
  caf::error settle_counters() override;
  caf::expected<std::vector<std::uint64_t>>
  read_counters(const std::vector<storage::counter_op>& ops) override;
  caf::error with_records(bool write, const storage::record_work& work) override;
  caf::expected<std::vector<std::optional<storage::key_record>>>
  find_keys(const std::vector<std::string>& key_hashes) override;
  caf::expected<target_memory> recall_target(std::string_view host, std::uint16_t port,
                                             std::int64_t now_unix) override;
  caf::error remember_target(std::string_view host, std::uint16_t port,
                             const target_memory_update& update,
                             std::int64_t now_unix) override;
  caf::expected<std::size_t> sweep_targets(std::int64_t now_unix, std::size_t limit) override;
  caf::expected<std::string>
  load_or_replace_record(std::string_view name, const storage::record_decision& decide) override;
  caf::error flush() override;

private:
  std::shared_ptr<storage::store> inner_;
};

} // namespace netherscope::test
