// Reservations of the quota actor (actors/quota_actor.hpp): a busy caller's calls counted
// ahead on a real LMDB file, with the store read after every answer.
#include <catch2/catch.hpp>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <caf/all.hpp>

#include "actors/quota_actor.hpp"
#include "core/api_key.hpp"
#include "core/telemetry.hpp"
#include "storage/accounts.hpp"
#include "storage/records.hpp"
#include "support/process.hpp"
#include "support/store.hpp"
#include "support/wait.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

/// A real LMDB store that counts the counter batches it applies.
class counting_store : public test::forwarding_store {
public:
  using forwarding_store::forwarding_store;

  caf::expected<std::vector<storage::counter_result>>
  apply_counters(const std::vector<storage::counter_op>& ops) override {
    ++batches;
    return forwarding_store::apply_counters(ops);
  }

  std::atomic<int> batches{0};
};

/// An LMDB file, a store on it (shared by every quota actor the test starts, as replicas share
/// --data-dir) and an actor system.
struct reserve_fixture {
  test::temp_dir dir;
  /// The store on the file: LMDB allows one open per process, so every quota actor the test
  /// starts counts on it, each through a counting_store of its own.
  std::shared_ptr<storage::store> file;
  std::shared_ptr<counting_store> store;
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> system;

  reserve_fixture() {
    file = test::open_lmdb(dir.path()).store;
    store = make_store();
    cfg.set("scheduler.max-threads", 2);
    system = std::make_unique<caf::actor_system>(cfg);
  }

  /// A store on the file; each quota actor gets its own, as each replica has its own.
  std::shared_ptr<counting_store> make_store() {
    return std::make_shared<counting_store>(file);
  }

  quota_actor start(std::uint64_t offer_limit, std::uint64_t reserve_max,
                    std::chrono::milliseconds ttl = 1000ms,
                    std::shared_ptr<storage::store> on = nullptr) {
    quota_settings settings{quota_limits{1000, 1000, offer_limit, offer_limit},
                            [] { return static_cast<std::int64_t>(std::time(nullptr)); }};
    settings.reserve_max = reserve_max;
    settings.reserve_ttl = ttl;
    return system->spawn<caf::detached>(quota_on, on ? on : store, settings);
  }

  /// Stops an actor and waits until it is gone (its exit handler gives reservations back).
  void stop(const quota_actor& actor) {
    caf::scoped_actor self{*system};
    self->monitor(actor);
    self->send_exit(actor, caf::exit_reason::user_shutdown);
    self->receive([](const caf::down_msg&) {});
  }

  quota_verdict charge(const quota_actor& actor, quota_charge c) {
    caf::scoped_actor self{*system};
    quota_verdict result;
    self->request(actor, caf::infinite, charge_atom::value, std::move(c))
      .receive([&](quota_verdict& v) { result = std::move(v); },
               [&](caf::error& err) { FAIL(caf::to_string(err)); });
    return result;
  }

  /// Makes calls offer calls from client, one after another, each of them let through.
  void charge_ok(const quota_actor& actor, const std::string& client, int calls) {
    for (int i = 0; i < calls; ++i)
      REQUIRE(charge(actor, quota_charge::count_call(endpoint::offer, client, {})).error.ok());
  }

  /// What the file holds for the offer counter of an address this month.
  std::uint64_t counted(const std::string& client) {
    return test::counter_value(*file, "offer", "ip", client,
                               storage::window_of(std::time(nullptr)).label);
  }

  std::string new_key(std::uint64_t user, const std::string& login) {
    std::string key;
    test::in_records(*file, true, [&](storage::record_txn& records) {
      auto issued = storage::issue_key(records, user, login, std::time(nullptr));
      REQUIRE(issued);
      key = issued->key;
    });
    return key;
  }
};

quota_charge offer_by(const std::string& client, const std::string& key_hash = {}) {
  return quota_charge::count_call(endpoint::offer, client, key_hash);
}

/// Sends calls charges from as many requesters at once and counts the verdicts that let the
/// call go on.
int charge_at_once(caf::actor_system& system, const quota_actor& actor, int calls,
                   const std::string& client) {
  struct collected {
    std::mutex mutex;
    std::condition_variable changed;
    int answered = 0;
    int allowed = 0;
  };
  auto results = std::make_shared<collected>();
  for (int i = 0; i < calls; ++i)
    system.spawn([=](caf::event_based_actor* a) {
      a->request(actor, caf::infinite, charge_atom::value, offer_by(client))
        .then(
          [=](quota_verdict& v) {
            std::lock_guard<std::mutex> guard{results->mutex};
            ++results->answered;
            results->allowed += v.error.ok() ? 1 : 0;
            results->changed.notify_all();
          },
          [=](caf::error&) {
            std::lock_guard<std::mutex> guard{results->mutex};
            ++results->answered;
            results->changed.notify_all();
          });
    });
  std::unique_lock<std::mutex> lock{results->mutex};
  bool all = results->changed.wait_for(lock, 20s, [&] { return results->answered == calls; });
  REQUIRE(all);
  return results->allowed;
}

} // namespace

TEST_CASE("quota reserve: a busy caller is answered from calls counted ahead, and the file "
          "never holds fewer than were answered",
          "[quota][reserve]") {
  reserve_fixture f;
  auto actor = f.start(1000000, 64);
  auto reserved_before = process_telemetry().reserved_calls();
  constexpr int calls = 600;
  std::uint64_t last_remaining = 1000000;
  for (int i = 1; i <= calls; ++i) {
    auto verdict = f.charge(actor, offer_by("198.51.100.7"));
    REQUIRE(verdict.error.ok());
    // The caller sees every call it made, and none counted ahead.
    CHECK(verdict.remaining == last_remaining - 1);
    last_remaining = verdict.remaining;
    // Durable before the reply: the file already counts this call.
    REQUIRE(f.counted("198.51.100.7") >= static_cast<std::uint64_t>(i));
    CHECK(f.counted("198.51.100.7") <= static_cast<std::uint64_t>(i) + 64);
  }
  // Far fewer store batches than calls: most were answered from a reservation.
  INFO("store batches: " << f.store->batches.load());
  CHECK(f.store->batches.load() < calls / 8);
  CHECK(process_telemetry().reserved_calls() - reserved_before > calls / 2);
  // Stopping gives back what was counted ahead and not used.
  f.stop(actor);
  CHECK(f.counted("198.51.100.7") == calls);
}

TEST_CASE("quota reserve: without reservations every call is its own count", "[quota][reserve]") {
  reserve_fixture f;
  auto actor = f.start(1000000, 0);
  for (int i = 1; i <= 50; ++i) {
    REQUIRE(f.charge(actor, offer_by("198.51.100.8")).error.ok());
    CHECK(f.counted("198.51.100.8") == static_cast<std::uint64_t>(i));
  }
  CHECK(f.store->batches.load() >= 50);
  f.stop(actor);
}

TEST_CASE("quota reserve: the limit holds exactly, for one replica and for two on one file",
          "[quota][reserve]") {
  reserve_fixture f;
  SECTION("one replica") {
    auto actor = f.start(256, 64);
    CHECK(charge_at_once(*f.system, actor, 400, "203.0.113.9") == 256);
    f.stop(actor);
    CHECK(f.counted("203.0.113.9") == 256);
  }
  SECTION("two replicas") {
    auto one = f.start(256, 64);
    auto two = f.start(256, 64, 1000ms, f.make_store());
    int allowed = 0;
    std::thread other{[&] { allowed += charge_at_once(*f.system, two, 300, "203.0.113.9"); }};
    auto mine = charge_at_once(*f.system, one, 300, "203.0.113.9");
    other.join();
    CHECK(mine + allowed == 256);
    f.stop(one);
    f.stop(two);
    CHECK(f.counted("203.0.113.9") == 256);
  }
}

TEST_CASE("quota reserve: an unused reservation is given back after its time",
          "[quota][reserve]") {
  reserve_fixture f;
  auto actor = f.start(1000000, 64, 100ms);
  f.charge_ok(actor, "192.0.2.44", 20);
  CHECK(f.counted("192.0.2.44") > 20);
  CHECK(test::wait_until([&] { return f.counted("192.0.2.44") == 20; }, 5s));
  f.stop(actor);
  CHECK(f.counted("192.0.2.44") == 20);
}

TEST_CASE("quota reserve: a refund gives the call back to the reservation", "[quota][reserve]") {
  reserve_fixture f;
  auto actor = f.start(1000000, 64);
  quota_verdict last;
  for (int i = 0; i < 10; ++i)
    last = f.charge(actor, offer_by("192.0.2.45"));
  REQUIRE(last.error.ok());
  CHECK(last.remaining == 1000000 - 10);
  auto refund = quota_charge::refund_call(endpoint::offer, "192.0.2.45", {}, last);
  auto after = f.charge(actor, refund);
  CHECK(after.remaining == 1000000 - 9);
  auto next = f.charge(actor, offer_by("192.0.2.45"));
  CHECK(next.remaining == 1000000 - 10);
  f.stop(actor);
  CHECK(f.counted("192.0.2.45") == 10);
}

TEST_CASE("quota reserve: a key revoked on the store stops within the reservation's time",
          "[quota][reserve]") {
  reserve_fixture f;
  auto actor = f.start(1000000, 64, 200ms);
  auto key = f.new_key(31, "dana");
  auto hash = core::hash_api_key(key);
  for (int i = 0; i < 10; ++i) {
    auto verdict = f.charge(actor, offer_by("192.0.2.46", hash));
    REQUIRE(verdict.error.ok());
    CHECK(verdict.scope == quota_scope::key);
  }
  test::in_records(*f.file, true, [](storage::record_txn& records) {
    auto revoked = storage::revoke_active_key(records, 31, std::time(nullptr));
    REQUIRE(revoked);
    REQUIRE(*revoked);
  });
  // Calls counted ahead may still be answered, at most reserve_max of them and only until
  // the reservation's time is up; after that the key is looked up again and refused.
  int allowed = 0;
  quota_verdict verdict;
  auto deadline = std::chrono::steady_clock::now() + 5s;
  do {
    verdict = f.charge(actor, offer_by("192.0.2.46", hash));
    allowed += verdict.error.ok() ? 1 : 0;
  } while (verdict.error.ok() && std::chrono::steady_clock::now() < deadline);
  CHECK(verdict.error.code == error_code::unauthorized);
  CHECK(allowed <= 64);
  f.stop(actor);
}

TEST_CASE("quota reserve: stopping under a burst gives back every call counted ahead",
          "[quota][reserve]") {
  reserve_fixture f;
  auto actor = f.start(1000000, 64);
  CHECK(charge_at_once(*f.system, actor, 300, "192.0.2.47") == 300);
  // Refills may be on their way to the store as the actor stops: none stays counted.
  f.stop(actor);
  CHECK(f.counted("192.0.2.47") == 300);
}

TEST_CASE("quota reserve: a caller near its limit after a pause gets every call it has left",
          "[quota][reserve]") {
  reserve_fixture f;
  // 256 calls a month, so at most 4 counted ahead; they last 100 ms.
  auto actor = f.start(256, 64, 100ms);
  f.charge_ok(actor, "192.0.2.48", 252);
  // The reservation's time runs out and what it held goes back.
  REQUIRE(test::wait_until([&] { return f.counted("192.0.2.48") == 252; }, 5s));
  for (int i = 0; i < 4; ++i) {
    auto verdict = f.charge(actor, offer_by("192.0.2.48"));
    INFO("call " << 253 + i);
    REQUIRE(verdict.error.ok());
    CHECK(verdict.remaining == static_cast<std::uint64_t>(3 - i));
  }
  auto refused = f.charge(actor, offer_by("192.0.2.48"));
  CHECK(refused.error.code == error_code::quota_exhausted);
  f.stop(actor);
  CHECK(f.counted("192.0.2.48") == 256);
}
