#include "support/store.hpp"

#include <ctime>

#include <caf/sec.hpp>
#include <catch2/catch.hpp>

#include "support/missing_part.hpp"

namespace netherscope::test {

storage::opened open_store(const storage::open_options& options) {
  auto opened = storage::open(options);
  INFO((opened ? std::string{} : storage::message_of(opened.error())));
  REQUIRE(opened);
  return std::move(*opened);
}

backend_store::backend_store(const std::string& backend) {
  storage::opened opened;
  if (backend == "lmdb") {
    dir = std::make_unique<temp_dir>();
    opened = open_lmdb(dir->path());
  } else {
    redis = std::make_unique<redis_server>();
    opened = open_redis(redis->url());
  }
  store = std::move(opened.store);
  watching = std::move(opened.watching);
}

bool backend_available(const std::string& backend) {
  if (backend == "redis" && !have_redis_server()) {
    missing_part("redis-server is not installed; skipping the Redis case");
    return false;
  }
  return true;
}

storage::opened open_lmdb(const std::string& dir) {
  storage::open_options options;
  options.data_dir = dir;
  return open_store(options);
}

caf::expected<storage::redis_address> parse_redis_url(std::string_view url) {
  std::string problem;
  auto address = storage::read_redis_url(url, problem);
  if (!address)
    return caf::make_error(caf::sec::invalid_argument, problem);
  return std::move(*address);
}

storage::opened open_redis(const std::string& url, unsigned connections,
                           std::optional<unsigned> min_replicas) {
  storage::open_options options;
  options.url = url;
  options.redis_connections = connections;
  options.min_replicas = min_replicas;
  options.replica_wait = patient_replica_wait;
  options.redis_timeout = 2 * patient_replica_wait + std::chrono::seconds(1);
  return open_store(options);
}

storage::counter_op hour_counter(const std::string& window, const std::string& subject,
                                 storage::counter_mode mode, std::uint64_t amount) {
  storage::counter_op out;
  out.endpoint = "info";
  out.scope = "ip";
  out.subject = subject;
  out.window = window;
  out.expires_unix = static_cast<std::int64_t>(std::time(nullptr)) + 3600;
  out.limit = 1000000;
  out.mode = mode;
  out.amount = amount;
  return out;
}

std::uint64_t counter_value(storage::store& s, const std::string& endpoint,
                            const std::string& scope, const std::string& subject,
                            const std::string& window) {
  storage::counter_op op;
  op.endpoint = endpoint;
  op.scope = scope;
  op.subject = subject;
  op.window = window;
  op.mode = storage::counter_mode::peek;
  auto read = s.read_counters({op});
  REQUIRE(read);
  return read->front();
}

void in_records(storage::store& s, bool write,
                const std::function<void(storage::record_txn&)>& fn) {
  auto err = s.with_records(write, [&](storage::record_txn& t) -> caf::expected<bool> {
    fn(t);
    return true;
  });
  INFO(caf::to_string(err));
  REQUIRE_FALSE(err);
}

// -- forwarding_store ---------------------------------------------------------------

forwarding_store::forwarding_store(std::shared_ptr<storage::store> inner)
  : inner_(std::move(inner)) {
  // nop
}

store_backend forwarding_store::backend() const noexcept {
  return inner_->backend();
}

caf::error forwarding_store::ping() {
  return inner_->ping();
}

caf::expected<std::vector<storage::counter_result>>
forwarding_store::apply_counters(const std::vector<storage::counter_op>& ops) {
  return inner_->apply_counters(ops);
}

bool forwarding_store::defers_durability() const noexcept {
  return inner_->defers_durability();
}

caf::error forwarding_store::settle_counters() {
  return inner_->settle_counters();
}

caf::expected<std::vector<std::uint64_t>>
forwarding_store::read_counters(const std::vector<storage::counter_op>& ops) {
  return inner_->read_counters(ops);
}

caf::error forwarding_store::with_records(bool write, const storage::record_work& work) {
  return inner_->with_records(write, work);
}

caf::expected<std::vector<std::optional<storage::key_record>>>
forwarding_store::find_keys(const std::vector<std::string>& key_hashes) {
  return inner_->find_keys(key_hashes);
}

caf::expected<target_memory> forwarding_store::recall_target(std::string_view host,
                                                             std::uint16_t port,
                                                             std::int64_t now_unix) {
  return inner_->recall_target(host, port, now_unix);
}

caf::error forwarding_store::remember_target(std::string_view host, std::uint16_t port,
                                             const target_memory_update& update,
                                             std::int64_t now_unix) {
  return inner_->remember_target(host, port, update, now_unix);
}

caf::expected<std::size_t> forwarding_store::sweep_targets(std::int64_t now_unix,
                                                           std::size_t limit) {
  return inner_->sweep_targets(now_unix, limit);
}

caf::expected<std::string>
forwarding_store::load_or_replace_record(std::string_view name,
                                         const storage::record_decision& decide) {
  return inner_->load_or_replace_record(name, decide);
}

caf::error forwarding_store::flush() {
  return inner_->flush();
}

} // namespace netherscope::test
