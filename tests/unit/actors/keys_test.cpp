// Keys, sessions, used sign-in states and pruning: the keys actor and the storage functions
// under it, on both stores (a real LMDB file and a real redis-server) with an injected clock.
#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>

#include <caf/all.hpp>

#include "actors/keys_actor.hpp"
#include "core/api_key.hpp"
#include "storage/accounts.hpp"
#include "storage/auth_records.hpp"
#include "storage/records.hpp"
#include "support/process.hpp"
#include "support/redis_server.hpp"
#include "support/store.hpp"
#include "support/rooms.hpp"
#include "support/dates.hpp"

using namespace netherscope::test;

namespace {

// 2026-11-22T12:00:00Z.

const auto fail_on_error = [](caf::error& err) { FAIL("error reply: " << caf::to_string(err)); };

/// A real store whose counter reads fail while fail_reads is set, as a Redis connection that
/// broke between a committed record transaction and the usage read after it would. Everything
/// else goes to the store underneath.
class unreadable_usage_store : public test::forwarding_store {
public:
  using forwarding_store::forwarding_store;

  std::atomic<bool> fail_reads{false};

  caf::expected<std::vector<std::uint64_t>>
  read_counters(const std::vector<storage::counter_op>& ops) override {
    if (fail_reads)
      return caf::make_error(caf::sec::runtime_error, "counter read failed (injected)");
    return forwarding_store::read_counters(ops);
  }
};

/// A store of the backend a case asks for and a keys actor whose clock the test sets.
struct keys_fixture {
  test::temp_dir dir;
  std::unique_ptr<test::redis_server> redis;
  std::shared_ptr<storage::store> store;
  std::shared_ptr<std::atomic<std::int64_t>> clock
    = std::make_shared<std::atomic<std::int64_t>>(nov_22);
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> system;
  keys_actor actor;

  /// The store the actor uses: the real one behind a switch that fails counter reads.
  std::shared_ptr<unreadable_usage_store> switchable;

  explicit keys_fixture(const std::string& backend = "lmdb",
                        std::uint64_t rotations_per_hour = 5) {
    store = backend == "lmdb" ? open_lmdb() : open_redis();
    switchable = std::make_shared<unreadable_usage_store>(store);
    cfg.set("scheduler.max-threads", 2);
    system = std::make_unique<caf::actor_system>(cfg);
    keys_settings settings;
    settings.limits = quota_limits{3, 5, 2, 4};
    settings.rotations_per_hour = rotations_per_hour;
    settings.now = [c = clock] { return c->load(); };
    // Pruning runs when a test sends sweep_atom, not on a timer.
    settings.sweep_interval = std::chrono::milliseconds{0};
    actor = system->spawn<caf::detached>(actors::keys, std::shared_ptr<storage::store>{switchable},
                                         settings);
  }

  std::shared_ptr<storage::store> open_lmdb() {
    return test::open_lmdb(dir.path()).store;
  }

  std::shared_ptr<storage::store> open_redis() {
    redis = std::make_unique<test::redis_server>();
    return test::open_redis(redis->url()).store;
  }

  /// Runs fn in a record transaction of the store, as another process would.
  template <class F>
  void in_records(bool write, F fn) {
    test::in_records(*store, write, fn);
  }

  ~keys_fixture() {
    caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
  }

  template <class... Ts>
  account_view ask(Ts&&... xs) {
    caf::scoped_actor self{*system};
    account_view result;
    self->request(actor, caf::infinite, std::forward<Ts>(xs)...)
      .receive([&](account_view& v) { result = std::move(v); }, fail_on_error);
    return result;
  }

  account_view sign_in(std::uint64_t user = 4242, const std::string& login = "octocat",
                       const std::string& old_session_hash = {}) {
    return ask(signin_atom::value, user, login, old_session_hash);
  }

  account_view page(const std::string& session, page_action action,
                    const std::string& csrf = {}) {
    return ask(page_atom::value,
               page_request{storage::session_id_hash(session), csrf, action});
  }

  failure claim(const std::string& state, std::int64_t expires) {
    caf::scoped_actor self{*system};
    failure result;
    self->request(actor, caf::infinite, claim_atom::value, state, expires)
      .receive([&](failure& f) { result = std::move(f); }, fail_on_error);
    return result;
  }

  /// Sends sweep_atom and waits until the actor handled it (a later request answers after).
  void sweep() {
    caf::anon_send(actor, sweep_atom::value);
    ask(account_atom::value, std::string{"sync"});
  }

  /// Records under a prefix of a table.
  std::size_t count(storage::record_table table, std::string_view prefix) {
    std::size_t n = 0;
    in_records(false, [&](storage::record_txn& t) {
      n = 0;
      REQUIRE_FALSE(t.for_each_prefix(table, prefix, [&](std::string_view, std::string_view) {
        ++n;
        return true;
      }));
    });
    return n;
  }

  /// The size of the LMDB store's data file.
  std::uintmax_t file_size() {
    return std::filesystem::file_size(dir.path() + "/data.mdb");
  }

  bool key_works(const std::string& key) {
    return ask(account_atom::value, core::hash_api_key(key)).error.ok();
  }
};

} // namespace

TEST_CASE("keys: the first sign-in shows a key, later ones never touch it", "[keys]") {
  keys_fixture f{GENERATE(as<std::string>{}, "lmdb", "redis")};
  auto first = f.sign_in();
  REQUIRE(first.error.ok());
  CHECK(first.new_key.rfind("nsk_", 0) == 0);
  CHECK(first.key_active);
  CHECK(first.session.size() == 43);
  CHECK(first.csrf.size() == 43);
  // Signing in again (a link or pop-up from any site can make a browser do it): the key
  // stays, no key is shown, and a new session opens.
  f.clock->store(nov_22 + 60);
  auto again = f.sign_in(4242, "octocat-renamed");
  REQUIRE(again.error.ok());
  CHECK(again.new_key.empty());
  CHECK(again.key_active);
  CHECK(again.login == "octocat-renamed");
  CHECK(again.session != first.session);
  CHECK(again.csrf != first.csrf);
  CHECK(f.key_works(first.new_key));
  // Both sessions are live: the first was in another browser.
  CHECK(f.page(first.session, page_action::view).error.ok());
  CHECK(f.page(again.session, page_action::view).login == "octocat-renamed");
}

TEST_CASE("keys: a sign-in ends the session the browser had", "[keys]") {
  keys_fixture f{GENERATE(as<std::string>{}, "lmdb", "redis")};
  auto planted = f.sign_in(1, "attacker");
  auto mine = f.sign_in(4242, "octocat", storage::session_id_hash(planted.session));
  CHECK(f.page(planted.session, page_action::view).error.code == error_code::unauthorized);
  CHECK(f.page(mine.session, page_action::view).login == "octocat");
}

TEST_CASE("keys: the account page's actions need the session's token", "[keys]") {
  keys_fixture f{GENERATE(as<std::string>{}, "lmdb", "redis")};
  auto in = f.sign_in();
  REQUIRE(in.error.ok());
  auto view = f.page(in.session, page_action::view);
  CHECK(view.error.ok());
  CHECK(view.csrf == in.csrf);
  CHECK(view.new_key.empty());
  // Without the token, or with another session's, nothing changes.
  auto other = f.sign_in(7, "mona");
  for (auto token : {std::string{}, std::string{"guess"}, other.csrf}) {
    CHECK(f.page(in.session, page_action::new_key, token).error.code
          == error_code::csrf_rejected);
    CHECK(f.page(in.session, page_action::revoke, token).error.code
          == error_code::csrf_rejected);
    CHECK(f.page(in.session, page_action::sign_out, token).error.code
          == error_code::csrf_rejected);
  }
  CHECK(f.key_works(in.new_key));
  // With it: a new key, the old one revoked.
  auto renewed = f.page(in.session, page_action::new_key, in.csrf);
  REQUIRE(renewed.error.ok());
  CHECK(renewed.new_key.rfind("nsk_", 0) == 0);
  CHECK_FALSE(f.key_works(in.new_key));
  CHECK(f.key_works(renewed.new_key));
  auto revoked = f.page(in.session, page_action::revoke, in.csrf);
  REQUIRE(revoked.error.ok());
  CHECK_FALSE(revoked.key_active);
  CHECK_FALSE(f.key_works(renewed.new_key));
  // A user without a key signs in and asks for a new one.
  auto back = f.sign_in();
  CHECK(back.new_key.empty());
  CHECK_FALSE(back.key_active);
  auto fresh = f.page(back.session, page_action::new_key, back.csrf);
  REQUIRE(fresh.error.ok());
  CHECK(f.key_works(fresh.new_key));
  // Sign-out ends the session and only the session.
  CHECK(f.page(back.session, page_action::sign_out, back.csrf).error.ok());
  CHECK(f.page(back.session, page_action::view).error.code == error_code::unauthorized);
  CHECK(f.key_works(fresh.new_key));
}

TEST_CASE("keys: sessions expire", "[keys]") {
  keys_fixture f{GENERATE(as<std::string>{}, "lmdb", "redis")};
  auto in = f.sign_in();
  f.clock->store(nov_22 + session_lifetime_seconds - 1);
  CHECK(f.page(in.session, page_action::view).error.ok());
  f.clock->store(nov_22 + session_lifetime_seconds);
  CHECK(f.page(in.session, page_action::view).error.code == error_code::unauthorized);
  CHECK(f.page("never-issued", page_action::view).error.code == error_code::unauthorized);
}

TEST_CASE("keys: new keys are limited per account and hour", "[keys]") {
  keys_fixture f{GENERATE(as<std::string>{}, "lmdb", "redis")};
  auto key = f.sign_in().new_key;
  REQUIRE_FALSE(key.empty());
  // The first key of a new account is not a rotation; five more are allowed this hour.
  for (int i = 0; i < 5; ++i) {
    auto rotated = f.ask(rotate_atom::value, core::hash_api_key(key));
    REQUIRE(rotated.error.ok());
    key = rotated.new_key;
  }
  auto refused = f.ask(rotate_atom::value, core::hash_api_key(key));
  CHECK(refused.error.code == error_code::rotation_limited);
  CHECK(refused.error.retry_after == 3600);
  CHECK(refused.new_key.empty());
  // A refusal changes nothing: the key still works, and it was not counted.
  CHECK(f.key_works(key));
  // Other accounts have their own.
  auto mona = f.sign_in(7, "mona").new_key;
  CHECK(f.ask(rotate_atom::value, core::hash_api_key(mona)).error.ok());
  f.clock->store(nov_22 + 1800);
  auto later = f.ask(rotate_atom::value, core::hash_api_key(key));
  CHECK(later.error.code == error_code::rotation_limited);
  CHECK(later.error.retry_after == 1800);
  f.clock->store(nov_22 + 3600);
  CHECK(f.ask(rotate_atom::value, core::hash_api_key(key)).error.ok());
}

TEST_CASE("keys: a key or session committed before the usage read failed is still shown",
          "[keys]") {
  keys_fixture f{GENERATE(as<std::string>{}, "lmdb", "redis")};
  f.switchable->fail_reads = true;
  // A first sign-in: the key is the account's only one and is shown only here.
  auto first = f.sign_in();
  REQUIRE(first.error.ok());
  CHECK(first.new_key.rfind("nsk_", 0) == 0);
  CHECK(first.session.size() == 43);
  CHECK_FALSE(first.usage_known);
  // A rotation: the old key is revoked by the same commit that made the new one.
  auto rotated = f.ask(rotate_atom::value, core::hash_api_key(first.new_key));
  REQUIRE(rotated.error.ok());
  CHECK(rotated.new_key.rfind("nsk_", 0) == 0);
  CHECK_FALSE(rotated.usage_known);
  // A plain look-up changed nothing, so it fails as the store did.
  CHECK(f.ask(account_atom::value, core::hash_api_key(rotated.new_key)).error.code
        == error_code::unavailable);
  f.switchable->fail_reads = false;
  auto view = f.ask(account_atom::value, core::hash_api_key(rotated.new_key));
  REQUIRE(view.error.ok());
  CHECK(view.usage_known);
  CHECK_FALSE(f.key_works(first.new_key));
}

TEST_CASE("keys: rotating in a loop leaves the store bounded", "[keys]") {
  // No hourly limit to speak of: the bound must come from pruning alone.
  keys_fixture f{"lmdb", 1000000};
  auto key = f.sign_in().new_key;
  std::vector<std::string> keys{key};
  std::size_t records_after_warmup = 0;
  std::uintmax_t file_after_warmup = 0;
  for (int i = 0; i < 600; ++i) {
    auto rotated = f.ask(rotate_atom::value, core::hash_api_key(key));
    REQUIRE(rotated.error.ok());
    key = rotated.new_key;
    keys.push_back(key);
    if (i == 99) {
      records_after_warmup = f.count(storage::record_table::accounts, "");
      file_after_warmup = f.file_size();
    }
  }
  // One account, its active key and the newest revoked ones: nothing else.
  CHECK(f.count(storage::record_table::accounts, "k|") == storage::keep_revoked_keys + 1);
  auto records = f.count(storage::record_table::accounts, "");
  CHECK(records == storage::keep_revoked_keys + 2);
  CHECK(records == records_after_warmup);
  // LMDB reuses freed pages: 500 more rotations did not make the file grow beyond a few
  // pages (of 4 KiB) of slack (the free list itself takes some).
  CHECK(f.file_size() <= file_after_warmup + 8 * 4096);
  // The newest revoked keys still say "revoked"; older ones are unknown now.
  auto found = f.store->find_keys({core::hash_api_key(keys[keys.size() - 2]),
                                   core::hash_api_key(keys.front())});
  REQUIRE(found);
  auto& recent = (*found)[0];
  REQUIRE(recent);
  CHECK(recent->revoked);
  CHECK(recent->revoked_unix == nov_22);
  CHECK_FALSE((*found)[1]);
}

TEST_CASE("keys: a sign-in state is claimed once, in the store", "[keys]") {
  keys_fixture f{GENERATE(as<std::string>{}, "lmdb", "redis")};
  std::string state(24, 's');
  CHECK(f.claim(state, nov_22 + 600).ok());
  CHECK(f.claim(state, nov_22 + 600).code == error_code::invalid_input);
  CHECK(f.claim(std::string(24, 't'), nov_22 + 600).ok());
  // Another process on the same store sees the claim: it is in the store, not in memory.
  f.in_records(true, [&](storage::record_txn& t) {
    auto again = storage::claim_state(t, state, nov_22 + 600, nov_22);
    REQUIRE(again);
    CHECK_FALSE(*again);
  });
}

TEST_CASE("keys: pruning deletes what expired and keeps what lives", "[keys]") {
  keys_fixture f{GENERATE(as<std::string>{}, "lmdb", "redis"), 1000};
  auto in = f.sign_in();
  auto key = in.new_key;
  for (int i = 0; i < 3; ++i)
    key = f.ask(rotate_atom::value, core::hash_api_key(key)).new_key;
  REQUIRE(f.claim(std::string(24, 'a'), nov_22 + 600).ok());
  REQUIRE(f.claim(std::string(24, 'b'), nov_22 + 7200).ok());
  CHECK(f.count(storage::record_table::auth, "o|") == 2);
  CHECK(f.count(storage::record_table::auth, "s|") == 1);
  CHECK(f.count(storage::record_table::accounts, "k|") == 4);
  CHECK(f.count(storage::record_table::usage, "u|rotate|") == 1);
  // Nothing is due yet.
  f.sweep();
  CHECK(f.count(storage::record_table::auth, "o|") == 2);
  CHECK(f.count(storage::record_table::auth, "s|") == 1);
  CHECK(f.count(storage::record_table::usage, "u|rotate|") == 1);
  // An hour and a bit later: the first state, the session and the past hour's counter.
  f.clock->store(nov_22 + 3700);
  f.sweep();
  CHECK(f.count(storage::record_table::auth, "o|") == 1);
  CHECK(f.count(storage::record_table::auth, "s|") == 0);
  CHECK(f.count(storage::record_table::usage, "u|rotate|") == 0);
  CHECK(f.count(storage::record_table::accounts, "k|") == 4);
  // Past the retention, revoked keys go; the active one stays.
  f.clock->store(nov_22 + storage::revoked_key_retention_seconds + 1);
  f.sweep();
  CHECK(f.count(storage::record_table::auth, "o|") == 0);
  CHECK(f.count(storage::record_table::accounts, "k|") == 1);
  CHECK(f.key_works(key));
}

TEST_CASE("keys: records written before pruning existed are still read", "[keys]") {
  // Version 1 records: an account without its list of revoked keys, a key without the time
  // it was revoked.
  std::string account{'\x01'};
  for (std::uint64_t v : {std::uint64_t{4242}, std::uint64_t{nov_22}})
    for (int i = 0; i < 8; ++i)
      account.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  for (std::string_view bytes : {std::string_view{"octocat"}, std::string_view{"HASH"}}) {
    for (int i = 0; i < 8; ++i)
      account.push_back(static_cast<char>(i == 0 ? bytes.size() : 0));
    account += bytes;
  }
  auto decoded = storage::decode_account(account);
  REQUIRE(decoded);
  CHECK(decoded->login == "octocat");
  CHECK(decoded->active_key_hash == "HASH");
  CHECK(decoded->revoked_key_hashes.empty());
  std::string key{'\x01'};
  for (std::uint64_t v : {std::uint64_t{4242}, std::uint64_t{nov_22}})
    for (int i = 0; i < 8; ++i)
      key.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  key.push_back('\x01');
  auto old_key = storage::decode_key(key);
  REQUIRE(old_key);
  CHECK(old_key->revoked);
  CHECK(old_key->revoked_unix == 0);
  // And the current versions round-trip.
  storage::account_record a{4242, "octocat", nov_22, "H", {"a", "b"}};
  auto back = storage::decode_account(storage::encode(a));
  REQUIRE(back);
  CHECK(back->revoked_key_hashes == a.revoked_key_hashes);
  CHECK_FALSE(storage::decode_account(storage::encode(a) + "x"));
}
