// The quota actor answers a charge only once the store says it is durable, also when the
// store defers durability to the next batch (LMDB with one fsync per batch).
#include <catch2/catch.hpp>

#include <condition_variable>
#include <mutex>
#include <set>

#include <caf/all.hpp>

#include "actors/quota_actor.hpp"
#include "support/process.hpp"
#include "support/store.hpp"
#include "support/wait.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

/// What happened, in order: a batch applied (with the clients it counted), a flush, or an
/// answer (with its client).
struct event {
  enum kind_t { apply, flush, answer } kind;
  std::set<std::string> clients;
};

/// A real LMDB store that logs every batch, and every flush or settle (both "flush").
class recording_store : public test::forwarding_store {
public:
  recording_store(std::shared_ptr<storage::store> inner, std::mutex& m, std::vector<event>& log)
    : forwarding_store(std::move(inner)), mutex_(m), log_(log) {
    // nop
  }

  caf::expected<std::vector<storage::counter_result>>
  apply_counters(const std::vector<storage::counter_op>& ops) override {
    auto result = forwarding_store::apply_counters(ops);
    std::set<std::string> clients;
    for (auto& op : ops)
      clients.insert(op.subject);
    std::lock_guard<std::mutex> guard{mutex_};
    // Logged after the store returned: from here on the batch is what the store promised.
    log_.push_back({event::apply, std::move(clients)});
    return result;
  }

  caf::error flush() override {
    auto err = forwarding_store::flush();
    std::lock_guard<std::mutex> guard{mutex_};
    log_.push_back({event::flush, {}});
    return err;
  }

  caf::error settle_counters() override {
    auto err = forwarding_store::settle_counters();
    std::lock_guard<std::mutex> guard{mutex_};
    log_.push_back({event::flush, {}});
    return err;
  }

private:
  std::mutex& mutex_;
  std::vector<event>& log_;
};

struct durability_fixture {
  test::temp_dir dir;
  std::mutex mutex;
  std::condition_variable answered;
  std::vector<event> log;
  std::shared_ptr<recording_store> store;
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> system;
  quota_actor actor;

  explicit durability_fixture(bool sync) {
    storage::open_options options;
    options.data_dir = dir.path();
    options.sync = sync;
    store = std::make_shared<recording_store>(test::open_store(options).store, mutex, log);
    cfg.set("scheduler.max-threads", 2);
    system = std::make_unique<caf::actor_system>(cfg);
    quota_limits limits{100, 100, 100, 100};
    actor = system->spawn<caf::detached>(quota_on, store,
                                         quota_settings{limits, [] { return std::int64_t{1795348800}; }});
  }

  ~durability_fixture() {
    caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
  }

  /// Charges client with a callback that logs its answer.
  void charge(const std::string& client) {
    verdict_fn then = [this, client](quota_verdict&& verdict) {
      CHECK(verdict.error.ok());
      std::lock_guard<std::mutex> guard{mutex};
      log.push_back({event::answer, {client}});
      answered.notify_all();
    };
    caf::anon_send(actor, charge_atom::value, quota_charge::count_call(endpoint::info, client, {}),
                   std::move(then));
  }

  /// Waits until n answers were logged.
  bool wait_answers(std::size_t n) {
    std::unique_lock<std::mutex> guard{mutex};
    return answered.wait_for(guard, 10s, [&] {
      return static_cast<std::size_t>(std::count_if(log.begin(), log.end(), [](auto& e) {
               return e.kind == event::answer;
             }))
             >= n;
    });
  }

  /// Every answer came after the batch that counted its client, and after a later batch or a
  /// flush that made that batch durable.
  void check_answers_were_durable() {
    std::lock_guard<std::mutex> guard{mutex};
    for (std::size_t z = 0; z < log.size(); ++z) {
      if (log[z].kind != event::answer)
        continue;
      auto client = *log[z].clients.begin();
      INFO("answer to " << client << " at event " << z);
      std::size_t applied = log.size();
      for (std::size_t a = 0; a < z; ++a)
        if (log[a].kind == event::apply && log[a].clients.count(client) != 0)
          applied = a;
      REQUIRE(applied < z);
      bool made_durable = false;
      for (std::size_t k = applied + 1; k < z; ++k)
        made_durable = made_durable || log[k].kind != event::answer;
      CHECK(made_durable);
    }
  }
};

} // namespace

TEST_CASE("quota durability: with one fsync per batch, a lone charge is answered only after "
          "the flush that makes it durable",
          "[quota]") {
  durability_fixture f{true};
  REQUIRE(f.store->defers_durability());
  f.charge("198.51.100.1");
  REQUIRE(f.wait_answers(1));
  f.check_answers_were_durable();
}

TEST_CASE("quota durability: under a burst every answer waits for a later commit or flush, "
          "and every charge counts once",
          "[quota]") {
  durability_fixture f{true};
  constexpr int n = 300;
  for (int i = 0; i < n; ++i)
    f.charge("198.51.100." + std::to_string(i));
  REQUIRE(f.wait_answers(n));
  f.check_answers_were_durable();
  std::lock_guard<std::mutex> guard{f.mutex};
  std::multiset<std::string> applied;
  for (auto& e : f.log)
    if (e.kind == event::apply)
      applied.insert(e.clients.begin(), e.clients.end());
  CHECK(applied.size() == static_cast<std::size_t>(n));
}

TEST_CASE("quota durability: a store without fsync promises nothing to wait for", "[quota]") {
  durability_fixture f{false};
  CHECK_FALSE(f.store->defers_durability());
  f.charge("198.51.100.1");
  REQUIRE(f.wait_answers(1));
}
