// The quota actor with a real LMDB file and an injected clock.
#include <catch2/catch.hpp>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>

#include <caf/all.hpp>

#include "actors/keys_actor.hpp"
#include "actors/quota_actor.hpp"
#include "core/api_key.hpp"
#include "storage/accounts.hpp"
#include "storage/records.hpp"
#include "support/process.hpp"
#include "support/store.hpp"
#include "support/rooms.hpp"
#include "support/dates.hpp"

using namespace netherscope::test;

namespace {

// 2026-11-22T12:00:00Z and the first second of each following month.
constexpr std::int64_t jan_1_2027 = 1798761600;

/// An actor system, a store in a temp dir, and a quota actor whose clock the test sets.
struct quota_fixture {
  test::temp_dir dir;
  std::shared_ptr<storage::store> store;
  std::shared_ptr<std::atomic<std::int64_t>> clock = std::make_shared<std::atomic<std::int64_t>>(nov_22);
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> system;
  quota_actor actor;
  quota_limits limits{3, 5, 2, 4};

  quota_fixture() {
    open_store();
    cfg.set("scheduler.max-threads", 2);
    system = std::make_unique<caf::actor_system>(cfg);
    start();
  }

  ~quota_fixture() {
    caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
  }

  void open_store() {
    store = test::open_lmdb(dir.path()).store;
  }

  void start() {
    auto c = clock;
    actor = system->spawn<caf::detached>(quota_on, store,
                                         quota_settings{limits, [c] { return c->load(); }});
  }

  quota_verdict charge(quota_charge c) {
    caf::scoped_actor self{*system};
    quota_verdict result;
    self->request(actor, caf::infinite, charge_atom::value, std::move(c))
      .receive([&](quota_verdict& v) { result = std::move(v); },
               [&](caf::error& err) { FAIL(caf::to_string(err)); });
    return result;
  }

  quota_verdict info(const std::string& client, const std::string& key_hash = {}) {
    return charge(quota_charge::count_call(endpoint::info, client, key_hash));
  }

  std::string new_key(std::uint64_t user, const std::string& login) {
    std::string key;
    test::in_records(*store, true, [&](storage::record_txn& records) {
      auto issued = storage::issue_key(records, user, login, clock->load());
      REQUIRE(issued);
      key = issued->key;
    });
    return key;
  }

  /// What the store holds for a counter of an address or an account.
  std::uint64_t counted(const std::string& endpoint, const std::string& scope,
                        const std::string& subject, const std::string& month) {
    return test::counter_value(*store, endpoint, scope, subject, month);
  }
};

// The error handler of a blocking request: an error reply fails the test, where an empty
// handler would leave a default-constructed (and so "ok") reply for the checks to pass on.
const auto fail_on_error = [](caf::error& err) { FAIL("error reply: " << caf::to_string(err)); };

} // namespace

TEST_CASE("months: windows and resets in UTC", "[quota]") {
  auto w = storage::window_of(nov_22);
  CHECK(w.label == "2026-11");
  CHECK(w.reset_unix == dec_1);
  CHECK(storage::window_of(dec_1 - 1).label == "2026-11");
  CHECK(storage::window_of(dec_1).label == "2026-12");
  // December rolls over into January of the next year.
  CHECK(storage::window_of(jan_1_2027 - 1).reset_unix == jan_1_2027);
  CHECK(storage::window_of(jan_1_2027).label == "2027-01");
  // 2028 is a leap year: 29 February belongs to February.
  CHECK(storage::window_of(1835395200).label == "2028-02"); // 2028-02-29T00:00:00Z
}

TEST_CASE("quota: the 429 boundary at limit-1 then limit then limit+1", "[quota]") {
  quota_fixture f;
  auto first = f.info("198.51.100.7");
  CHECK(first.error.ok());
  CHECK(first.scope == quota_scope::ip);
  CHECK(first.limit == 3);
  CHECK(first.remaining == 2);
  CHECK(first.reset == dec_1);
  CHECK(f.info("198.51.100.7").remaining == 1);
  auto last = f.info("198.51.100.7");
  CHECK(last.error.ok());
  CHECK(last.remaining == 0);
  auto over = f.info("198.51.100.7");
  CHECK(over.error.code == error_code::quota_exhausted);
  CHECK(over.remaining == 0);
  CHECK(over.error.retry_after == dec_1 - nov_22);
  // A refused call is not counted: the count stays at the limit.
  CHECK(f.counted("info", "ip", "198.51.100.7", "2026-11") == 3);
}

TEST_CASE("quota: endpoints and clients are counted apart", "[quota]") {
  quota_fixture f;
  f.info("198.51.100.7");
  CHECK(f.info("198.51.100.8").remaining == 2);
  auto offer = f.charge(quota_charge::count_call(endpoint::offer, "198.51.100.7", {}));
  CHECK(offer.limit == 2);
  CHECK(offer.remaining == 1);
}

TEST_CASE("quota: month rollover from December to January", "[quota]") {
  quota_fixture f;
  f.clock->store(jan_1_2027 - 10);
  for (int i = 0; i < 3; ++i)
    CHECK(f.info("198.51.100.7").error.ok());
  auto over = f.info("198.51.100.7");
  CHECK(over.error.code == error_code::quota_exhausted);
  CHECK(over.reset == jan_1_2027);
  CHECK(over.error.retry_after == 10);
  f.clock->store(jan_1_2027);
  auto fresh = f.info("198.51.100.7");
  CHECK(fresh.error.ok());
  CHECK(fresh.remaining == 2);
  CHECK(fresh.reset == 1801440000); // 2027-02-01
}

TEST_CASE("quota: key and ip scopes are independent", "[quota]") {
  quota_fixture f;
  auto key = f.new_key(4242, "octocat");
  auto hash = core::hash_api_key(key);
  for (int i = 0; i < 3; ++i)
    f.info("198.51.100.7");
  CHECK(f.info("198.51.100.7").error.code == error_code::quota_exhausted);
  auto keyed = f.info("198.51.100.7", hash);
  CHECK(keyed.error.ok());
  CHECK(keyed.scope == quota_scope::key);
  CHECK(keyed.limit == 5);
  CHECK(keyed.remaining == 4);
  CHECK(keyed.user_id == 4242);
  // The same key from another address counts against the same account.
  CHECK(f.info("203.0.113.9", hash).remaining == 3);
}

TEST_CASE("quota: unknown and revoked keys are 401 and charged to the IP", "[quota]") {
  quota_fixture f;
  auto unknown = f.info("198.51.100.7", core::hash_api_key("nsk_not_issued"));
  CHECK(unknown.error.code == error_code::unauthorized);
  CHECK(unknown.scope == quota_scope::ip);
  CHECK(unknown.remaining == 2);
  auto old_key = f.new_key(7, "alice");
  f.new_key(7, "alice"); // issuing a new key revokes the old one
  auto revoked = f.info("198.51.100.7", core::hash_api_key(old_key));
  CHECK(revoked.error.code == error_code::unauthorized);
  // One code for both; the caller is still told which it was (a revoked key needs a new
  // one), without the test leaning on the wording.
  CHECK(revoked.error.message != unknown.error.message);
  CHECK(revoked.remaining == 1);
}

TEST_CASE("quota: looking up does not count", "[quota]") {
  quota_fixture f;
  f.info("198.51.100.7");
  auto peek = f.charge(quota_charge::look_up(endpoint::info, "198.51.100.7", {}));
  CHECK(peek.error.ok());
  CHECK(peek.remaining == 2);
  CHECK(f.info("198.51.100.7").remaining == 1);
}

TEST_CASE("quota: concurrent charges are all counted exactly once", "[quota]") {
  quota_fixture f;
  f.limits.info_ip = 1000;
  caf::anon_send_exit(f.actor, caf::exit_reason::user_shutdown);
  f.start();
  constexpr int calls = 300;
  // First one after another.
  for (int i = 0; i < calls; ++i)
    CHECK(f.info("198.51.100.7").error.ok());
  // Now truly concurrent: many requesters at once, batched by the actor. Each verdict (or
  // error) is handed back under a mutex, and the test waits on the condition variable until
  // all have come, with a deadline so a lost reply fails the test instead of hanging it.
  struct collected {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<std::uint64_t> remaining;
    std::vector<std::string> errors;
  };
  auto results = std::make_shared<collected>();
  std::vector<caf::actor> requesters;
  for (int i = 0; i < calls; ++i) {
    requesters.push_back(f.system->spawn([=, q = f.actor](caf::event_based_actor* a) {
      a->request(q, caf::infinite, charge_atom::value,
                 quota_charge::count_call(endpoint::info, "198.51.100.7", {}))
        .then(
          [=](quota_verdict& v) {
            std::lock_guard<std::mutex> guard{results->mutex};
            results->remaining.push_back(v.remaining);
            results->changed.notify_all();
          },
          [=](caf::error& err) {
            std::lock_guard<std::mutex> guard{results->mutex};
            results->errors.push_back(caf::to_string(err));
            results->changed.notify_all();
          });
    }));
  }
  std::unique_lock<std::mutex> lock{results->mutex};
  bool all_came = results->changed.wait_for(lock, std::chrono::seconds(10), [&] {
    return results->remaining.size() + results->errors.size()
           == static_cast<std::size_t>(calls);
  });
  std::vector<std::uint64_t> remaining = results->remaining;
  std::vector<std::string> errors = results->errors;
  lock.unlock();
  REQUIRE(all_came);
  INFO("first error: " << (errors.empty() ? std::string{"none"} : errors.front()));
  REQUIRE(errors.empty());
  std::set<std::uint64_t> distinct(remaining.begin(), remaining.end());
  CHECK(remaining.size() == static_cast<std::size_t>(calls));
  CHECK(distinct.size() == static_cast<std::size_t>(calls));
  CHECK(*distinct.begin() == 1000 - 2 * calls);
  CHECK(*distinct.rbegin() == 1000 - calls - 1);
}

TEST_CASE("quota: counts survive reopening the store", "[quota]") {
  quota_fixture f;
  f.info("198.51.100.7");
  f.info("198.51.100.7");
  caf::anon_send_exit(f.actor, caf::exit_reason::user_shutdown);
  f.system->await_all_actors_done();
  f.store.reset();
  f.open_store();
  f.start();
  CHECK(f.info("198.51.100.7").remaining == 0);
}

TEST_CASE("keys actor: sign-in issues a key and one key is active", "[quota]") {
  quota_fixture f;
  keys_settings cfg;
  cfg.limits = f.limits;
  cfg.now = [c = f.clock] { return c->load(); };
  cfg.sweep_interval = std::chrono::milliseconds{0};
  auto accounts = f.system->spawn<caf::detached>(actors::keys, f.store, cfg);
  caf::scoped_actor self{*f.system};
  account_view first;
  self->request(accounts, caf::infinite, signin_atom::value, std::uint64_t{4242},
                std::string{"octocat"}, std::string{})
    .receive([&](account_view& v) { first = std::move(v); }, fail_on_error);
  REQUIRE(first.error.ok());
  CHECK(first.login == "octocat");
  CHECK(first.new_key.rfind("nsk_", 0) == 0);
  CHECK(first.new_key.size() == 4 + 43);
  CHECK(first.month == "2026-11");
  CHECK(first.info_limit == 5);
  f.info("198.51.100.7", core::hash_api_key(first.new_key));
  account_view seen;
  self->request(accounts, caf::infinite, account_atom::value, core::hash_api_key(first.new_key))
    .receive([&](account_view& v) { seen = std::move(v); }, fail_on_error);
  CHECK(seen.error.ok());
  CHECK(seen.info_used == 1);
  CHECK(seen.new_key.empty());
  account_view rotated;
  self->request(accounts, caf::infinite, rotate_atom::value, core::hash_api_key(first.new_key))
    .receive([&](account_view& v) { rotated = std::move(v); }, fail_on_error);
  REQUIRE(rotated.error.ok());
  CHECK(rotated.new_key != first.new_key);
  CHECK(f.info("198.51.100.7", core::hash_api_key(first.new_key)).error.code
        == error_code::unauthorized);
  CHECK(f.info("198.51.100.7", core::hash_api_key(rotated.new_key)).error.ok());
  account_view revoked;
  self->request(accounts, caf::infinite, revoke_atom::value, core::hash_api_key(rotated.new_key))
    .receive([&](account_view& v) { revoked = std::move(v); }, fail_on_error);
  CHECK(revoked.error.ok());
  CHECK(f.info("198.51.100.7", core::hash_api_key(rotated.new_key)).error.code
        == error_code::unauthorized);
  // The stored records hold hashes only, never the keys.
  bool leaked = false;
  test::in_records(*f.store, false, [&](storage::record_txn& t) {
    REQUIRE_FALSE(t.for_each_prefix(storage::record_table::accounts, "",
                                    [&](std::string_view k, std::string_view v) {
                                      for (auto& key : {first.new_key, rotated.new_key})
                                        if (k.find(key) != std::string_view::npos
                                            || v.find(key) != std::string_view::npos)
                                          leaked = true;
                                      return true;
                                    }));
  });
  CHECK_FALSE(leaked);
  caf::anon_send_exit(accounts, caf::exit_reason::user_shutdown);
}

TEST_CASE("quota: a refund gives one call back and never goes below zero", "[quota]") {
  quota_fixture f;
  f.info("198.51.100.7");
  auto charged = f.info("198.51.100.7");
  auto give_back = quota_charge::refund_call(endpoint::info, "198.51.100.7", {}, charged);
  auto refund = f.charge(give_back);
  CHECK(refund.error.ok());
  CHECK(refund.remaining == 2);
  f.charge(give_back);
  auto floor = f.charge(give_back);
  CHECK(floor.remaining == 3);
  CHECK(f.info("198.51.100.7").remaining == 2);
}

TEST_CASE("quota: sign-in callbacks have an hourly limit of their own", "[quota]") {
  quota_fixture f;
  f.limits.signin_ip = 2;
  caf::anon_send_exit(f.actor, caf::exit_reason::user_shutdown);
  f.start();
  // The address spent its monthly info quota; sign-in does not care.
  for (int i = 0; i < 3; ++i)
    f.info("198.51.100.7");
  CHECK(f.info("198.51.100.7").error.code == error_code::quota_exhausted);
  auto signin = [&](const std::string& client) {
    return f.charge(quota_charge::count_call(endpoint::signin, client, {}));
  };
  CHECK(signin("198.51.100.7").error.ok());
  auto second = signin("198.51.100.7");
  CHECK(second.error.ok());
  CHECK(second.remaining == 0);
  auto third = signin("198.51.100.7");
  CHECK(third.error.code == error_code::signin_rate_limited);
  // 2026-11-22T12:00:00Z: the next hour starts in 3600 s.
  CHECK(third.error.retry_after == 3600);
  CHECK(third.reset == nov_22 + 3600);
  // Another address is counted apart, and the info quota was never touched by sign-in.
  CHECK(signin("203.0.113.9").error.ok());
  CHECK(f.info("203.0.113.9").remaining == 2);
  f.clock->store(nov_22 + 3599);
  CHECK(signin("198.51.100.7").error.code == error_code::signin_rate_limited);
  CHECK(signin("198.51.100.7").error.retry_after == 1);
  f.clock->store(nov_22 + 3600);
  CHECK(signin("198.51.100.7").error.ok());
}

TEST_CASE("quota: a refund goes back to the counter that was charged", "[quota]") {
  quota_fixture f;
  auto key = f.new_key(4242, "octocat");
  auto hash = core::hash_api_key(key);
  // The address has used its offer quota, partly; the key one call.
  f.charge(quota_charge::count_call(endpoint::offer, "198.51.100.7", {}));
  auto charged = f.charge(quota_charge::count_call(endpoint::offer, "198.51.100.7", hash));
  REQUIRE(charged.error.ok());
  CHECK(charged.scope == quota_scope::key);
  CHECK(charged.remaining == 3);
  // The key is revoked while the offer runs.
  test::in_records(*f.store, true, [&](storage::record_txn& records) {
    REQUIRE(*storage::revoke_active_key(records, 4242, f.clock->load()));
  });
  // The per-target limit refuses the offer: the refund names the key's counter.
  auto refund = quota_charge::refund_call(endpoint::offer, "198.51.100.7", hash, charged);
  auto after = f.charge(refund);
  CHECK(after.error.ok());
  CHECK(after.scope == quota_scope::key);
  CHECK(after.remaining == 4);
  // The address's counter, never charged for that call, still shows its one call.
  CHECK(f.charge(quota_charge::look_up(endpoint::offer, "198.51.100.7", {})).remaining == 1);
  CHECK(f.counted("offer", "key", "4242", "2026-11") == 0);
  CHECK(f.counted("offer", "ip", "198.51.100.7", "2026-11") == 1);
}

TEST_CASE("quota: a refund across a month boundary goes to the month charged", "[quota]") {
  quota_fixture f;
  f.info("198.51.100.7");
  auto charged = f.info("198.51.100.7");
  f.clock->store(dec_1);
  f.info("198.51.100.7");
  auto refund = quota_charge::refund_call(endpoint::info, "198.51.100.7", {}, charged);
  f.charge(refund);
  CHECK(f.counted("info", "ip", "198.51.100.7", "2026-11") == 1);
  CHECK(f.counted("info", "ip", "198.51.100.7", "2026-12") == 1);
}
