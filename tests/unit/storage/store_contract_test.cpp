// The store's contract: the same cases against both implementations, LMDB in a temp dir and
// Redis on a real redis-server (tests/support/redis_server.hpp), so the actors can rely on
// the same behaviour whichever one they talk to.
#include <catch2/catch.hpp>

#include <atomic>
#include <ctime>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "actors/quota_actor.hpp"
#include "core/api_key.hpp"
#include "storage/accounts.hpp"
#include "storage/redis_keys.hpp"
#include "storage/redis_url.hpp"
#include "support/process.hpp"
#include "support/redis_server.hpp"
#include "support/store.hpp"
#include "support/wait.hpp"
#include "support/rooms.hpp"
#include "support/dates.hpp"

using namespace netherscope::test;
using storage::counter_mode;

namespace {

/// The clock these cases give the store: the real time, since Redis expires a counter at its
/// window's end by its own clock, so every window a case counts in must end after the real
/// time (a fixed instant would have its month's counters dropped once that month is over).
/// Within ten minutes of a month's end it is the next month's first second, so a case never
/// runs across the end of the window it counts in.
std::int64_t contract_now() {
  static const std::int64_t now = [] {
    auto real = static_cast<std::int64_t>(std::time(nullptr));
    auto reset = storage::window_of(real).reset_unix;
    return reset - real < 600 ? reset : real;
  }();
  return now;
}

/// The first second after contract_now()'s month: where its counters expire.
std::int64_t contract_month_end() {
  return storage::window_of(contract_now()).reset_unix;
}

/// One store of the backend a test case asks for, and a second handle on the same data (as a
/// second replica or process would have).
struct store_under_test {
  std::unique_ptr<test::temp_dir> dir;
  std::unique_ptr<test::redis_server> redis;
  std::shared_ptr<storage::store> first;
  std::shared_ptr<storage::store> second;
  /// The handles' shared parts, on Redis.
  std::shared_ptr<storage::shared_store> first_shared;
  std::shared_ptr<storage::shared_store> second_shared;

  explicit store_under_test(const std::string& backend) {
    storage::opened one;
    storage::opened two;
    if (backend == "lmdb") {
      dir = std::make_unique<test::temp_dir>();
      // LMDB allows one open of a directory per process, so both handles are the one store
      // (another process would open its own).
      one = test::open_lmdb(dir->path());
      two = one;
    } else {
      redis = std::make_unique<test::redis_server>();
      one = test::open_redis(redis->url());
      two = test::open_redis(redis->url());
    }
    first = one.store;
    second = two.store;
    first_shared = one.shared;
    second_shared = two.shared;
    REQUIRE(to_string(first->backend()) == backend);
  }
};

/// The store at a Redis URL, with this many connections.
std::shared_ptr<storage::store> redis_at(const std::string& url, unsigned connections = 4) {
  return test::open_redis(url, connections).store;
}

storage::counter_op op(std::string subject, std::uint64_t limit, counter_mode mode) {
  storage::counter_op out;
  out.endpoint = "offer";
  out.scope = "ip";
  out.subject = std::move(subject);
  out.window = storage::window_of(contract_now()).label;
  out.expires_unix = contract_month_end();
  out.limit = limit;
  out.mode = mode;
  return out;
}

std::uint64_t used(storage::store& s, const std::string& subject) {
  auto r = s.apply_counters({op(subject, 100, counter_mode::peek)});
  REQUIRE(r);
  return r->front().used;
}

} // namespace

TEST_CASE("store contract: counters stop at the limit, peeks change nothing, refunds give "
          "one back",
          "[store]") {
  auto backend = GENERATE(as<std::string>{}, "lmdb", "redis");
  store_under_test st{backend};
  auto& s = *st.first;
  INFO(backend);
  REQUIRE_FALSE(s.ping());
  auto three = s.apply_counters({op("a", 2, counter_mode::count), op("a", 2, counter_mode::count),
                                 op("a", 2, counter_mode::count)});
  REQUIRE(three);
  REQUIRE(three->size() == 3);
  CHECK((*three)[0].used == 1);
  CHECK_FALSE((*three)[0].refused);
  CHECK((*three)[1].used == 2);
  CHECK_FALSE((*three)[1].refused);
  CHECK((*three)[2].refused);
  CHECK((*three)[2].used == 2);
  CHECK(used(s, "a") == 2);
  // Another subject has its own counter.
  CHECK(used(s, "b") == 0);
  auto refund = s.apply_counters({op("a", 2, counter_mode::refund)});
  REQUIRE(refund);
  CHECK(refund->front().used == 1);
  // A refund never goes below zero.
  auto below = s.apply_counters({op("b", 2, counter_mode::refund)});
  REQUIRE(below);
  CHECK(below->front().used == 0);
  // The second handle sees the same counters.
  CHECK(used(*st.second, "a") == 1);
}

TEST_CASE("store contract: a count of several adds what the limit leaves, a refund of several "
          "stops at zero",
          "[store]") {
  auto backend = GENERATE(as<std::string>{}, "lmdb", "redis");
  store_under_test st{backend};
  auto& s = *st.first;
  INFO(backend);
  auto many = [](std::uint64_t limit, counter_mode mode, std::uint64_t amount) {
    auto o = op("m", limit, mode);
    o.amount = amount;
    return o;
  };
  auto counted = s.apply_counters({many(10, counter_mode::count, 4),
                                   many(10, counter_mode::count, 5),
                                   many(10, counter_mode::count, 4),
                                   many(10, counter_mode::count, 1)});
  REQUIRE(counted);
  REQUIRE(counted->size() == 4);
  CHECK((*counted)[0].used == 4);
  CHECK((*counted)[0].granted == 4);
  CHECK((*counted)[1].used == 9);
  CHECK((*counted)[1].granted == 5);
  // Only one was left under the limit: it is added, and the count is not refused.
  CHECK((*counted)[2].used == 10);
  CHECK((*counted)[2].granted == 1);
  CHECK_FALSE((*counted)[2].refused);
  CHECK((*counted)[3].refused);
  CHECK((*counted)[3].granted == 0);
  auto back = s.apply_counters({many(10, counter_mode::refund, 7),
                                many(10, counter_mode::refund, 7)});
  REQUIRE(back);
  CHECK((*back)[0].used == 3);
  CHECK((*back)[0].granted == 7);
  CHECK((*back)[1].used == 0);
  CHECK((*back)[1].granted == 3);
  CHECK(used(*st.second, "m") == 0);
}

TEST_CASE("store contract: concurrent counting from two handles stops exactly at the limit",
          "[store]") {
  auto backend = GENERATE(as<std::string>{}, "lmdb", "redis");
  store_under_test st{backend};
  INFO(backend);
  constexpr std::uint64_t limit = 150;
  std::atomic<std::uint64_t> granted{0};
  std::atomic<std::uint64_t> refused{0};
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    auto target = i % 2 == 0 ? st.first : st.second;
    threads.emplace_back([&, target] {
      for (int n = 0; n < 25; ++n) {
        // Batches of two, as the quota actor sends them under load.
        auto r = target->apply_counters({op("shared", limit, counter_mode::count),
                                         op("shared", limit, counter_mode::count)});
        if (!r) {
          failed = true;
          return;
        }
        for (auto& x : *r)
          (x.refused ? refused : granted)++;
      }
    });
  }
  for (auto& t : threads)
    t.join();
  REQUIRE_FALSE(failed);
  CHECK(granted == limit);
  CHECK(refused == 200 - limit);
  CHECK(used(*st.first, "shared") == limit);
}

TEST_CASE("store contract: target memory recalls what was remembered, until it expires",
          "[store]") {
  auto backend = GENERATE(as<std::string>{}, "lmdb", "redis");
  store_under_test st{backend};
  auto& s = *st.first;
  INFO(backend);
  // The real time: Redis expires a scheme record at its end by its own clock.
  auto now = static_cast<std::int64_t>(std::time(nullptr));
  auto nothing = s.recall_target("example.net", 7551, now);
  REQUIRE(nothing);
  CHECK(nothing->scheme == remembered_scheme::unknown);
  CHECK(nothing->key_sha256.empty());
  target_memory_update learn;
  learn.change = target_memory_update::scheme_change::store;
  learn.scheme = remembered_scheme::tls;
  learn.scheme_expires = now + 3600;
  learn.key_sha256 = std::string(64, 'a');
  REQUIRE_FALSE(s.remember_target("example.net", 7551, learn, now));
  auto recalled = st.second->recall_target("example.net", 7551, now + 10);
  REQUIRE(recalled);
  CHECK(recalled->scheme == remembered_scheme::tls);
  CHECK(recalled->scheme_expires == now + 3600);
  CHECK(recalled->key_sha256 == std::string(64, 'a'));
  // Another port is another target.
  auto other = s.recall_target("example.net", 7552, now);
  REQUIRE(other);
  CHECK(other->scheme == remembered_scheme::unknown);
  // Past its expiry the scheme reads unknown; the key pin stays.
  auto later = s.recall_target("example.net", 7551, now + 3601);
  REQUIRE(later);
  CHECK(later->scheme == remembered_scheme::unknown);
  CHECK(later->key_sha256 == std::string(64, 'a'));
  target_memory_update forget;
  forget.change = target_memory_update::scheme_change::forget;
  REQUIRE_FALSE(s.remember_target("example.net", 7551, forget, now + 20));
  auto forgotten = s.recall_target("example.net", 7551, now + 20);
  REQUIRE(forgotten);
  CHECK(forgotten->scheme == remembered_scheme::unknown);
  CHECK(forgotten->key_sha256 == std::string(64, 'a'));
}

TEST_CASE("store contract: a named record is created once and every handle gets it",
          "[store]") {
  auto backend = GENERATE(as<std::string>{}, "lmdb", "redis");
  store_under_test st{backend};
  INFO(backend);
  // Two handles race to create it, as replicas starting together do.
  caf::expected<std::string> a{std::string{}};
  caf::expected<std::string> b{std::string{}};
  std::thread t1{[&] { a = storage::load_or_create_secret(*st.first, "secret", 32); }};
  std::thread t2{[&] { b = storage::load_or_create_secret(*st.second, "secret", 32); }};
  t1.join();
  t2.join();
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->size() == 32);
  CHECK(*a == *b);
  auto again = storage::load_or_create_secret(*st.first, "secret", 32);
  REQUIRE(again);
  CHECK(*again == *a);
  // A decision to replace takes effect, and an error leaves the record as it was.
  auto replaced = st.second->load_or_replace_record(
    "secret", [](std::optional<std::string_view>) -> caf::expected<std::optional<std::string>> {
      return std::optional<std::string>{std::string(32, 'x')};
    });
  REQUIRE(replaced);
  CHECK(*replaced == std::string(32, 'x'));
  auto refused = st.first->load_or_replace_record(
    "secret", [](std::optional<std::string_view>) -> caf::expected<std::optional<std::string>> {
      return caf::make_error(caf::sec::runtime_error, "no");
    });
  CHECK_FALSE(refused);
  auto kept = storage::load_or_create_secret(*st.first, "secret", 32);
  REQUIRE(kept);
  CHECK(*kept == std::string(32, 'x'));
}

TEST_CASE("store contract: quota charges through either store give the same verdicts",
          "[store]") {
  auto backend = GENERATE(as<std::string>{}, "lmdb", "redis");
  store_under_test st{backend};
  INFO(backend);
  quota_limits limits{3, 5, 2, 4, 1};
  auto offer = quota_charge::count_call(endpoint::offer, "198.51.100.7", {});
  const auto now = contract_now();
  auto first = apply_charges(*st.first, limits, {offer, offer}, now);
  REQUIRE(first.size() == 2);
  CHECK(first[0].error.ok());
  CHECK(first[0].remaining == 1);
  CHECK(first[1].error.ok());
  CHECK(first[1].remaining == 0);
  CHECK(first[1].reset == contract_month_end());
  auto refused = apply_charges(*st.second, limits, {offer}, now);
  CHECK(refused[0].error.code == error_code::quota_exhausted);
  CHECK(refused[0].error.retry_after == contract_month_end() - now);
  // An unknown key is counted against the address and refused as unauthorized.
  auto keyed = quota_charge::count_call(endpoint::info, "198.51.100.8", std::string(32, 'k'));
  auto unknown = apply_charges(*st.first, limits, {keyed}, now);
  CHECK(unknown[0].error.code == error_code::unauthorized);
  CHECK(unknown[0].scope == quota_scope::ip);
  CHECK(unknown[0].remaining == 2);
  // Sign-in attempts have their own hourly counter and code.
  // (At the real time: Redis expires a counter at its window's end by its own clock.)
  auto signin = quota_charge::count_call(endpoint::signin, "198.51.100.9", {});
  auto signins = apply_charges(*st.first, limits, {signin, signin}, std::time(nullptr));
  CHECK(signins[0].error.ok());
  CHECK(signins[1].error.code == error_code::signin_rate_limited);
}

TEST_CASE("redis store: unreachable Redis is an error, and the store recovers by itself "
          "within 5 s of Redis returning",
          "[store][redis]") {
  test::redis_server redis;
  auto store = redis_at(redis.url(), 2);
  auto& s = *store;
  REQUIRE_FALSE(s.ping());
  auto counted = s.apply_counters({op("r", 10, counter_mode::count)});
  REQUIRE(counted);
  redis.kill();
  CHECK(s.ping());
  CHECK_FALSE(s.apply_counters({op("r", 10, counter_mode::count)}));
  CHECK_FALSE(s.recall_target("example.net", 1, nov_22));
  redis.start();
  auto back = std::chrono::steady_clock::now();
  INFO("every pooled connection answers again");
  REQUIRE(test::wait_until([&] { return !s.ping() && !s.ping(); }, std::chrono::seconds(5)));
  CHECK(std::chrono::steady_clock::now() - back < std::chrono::seconds(5));
  // The restarted server has no persistence: counting starts again from nothing.
  auto after = s.apply_counters({op("r", 10, counter_mode::count)});
  REQUIRE(after);
  CHECK(after->front().used == 1);
}

TEST_CASE("redis store: counters expire at the end of their window, under versioned keys "
          "with a hash tag",
          "[store][redis]") {
  test::redis_server redis;
  auto store = redis_at(redis.url() + "/3");
  auto& s = *store;
  auto now = static_cast<std::int64_t>(std::time(nullptr));
  auto o = op("203.0.113.5", 10, counter_mode::count);
  o.expires_unix = now + 3600;
  REQUIRE(s.apply_counters({o}));
  auto key = storage::redis_counter_key(o);
  CHECK(key.rfind("ns1:", 0) == 0);
  CHECK(key.find("{ip:203.0.113.5}") != std::string::npos);
  auto seconds = std::stol(redis_command(redis.port(), {"TTL", key}, {}, 3));
  CHECK(seconds > 3500);
  CHECK(seconds <= 3600);
  // The counter went to database 3, as the URL asked.
  CHECK(redis_command(redis.port(), {"EXISTS", key}) == "0");
}

TEST_CASE("redis URLs: parsed, refused with a reason, and logged without the password",
          "[store]") {
  auto full = parse_redis_url("redis://:s3cret@127.0.0.1:6380/2");
  REQUIRE(full);
  CHECK(full->host == "127.0.0.1");
  CHECK(full->port == 6380);
  CHECK(full->db == 2);
  CHECK(full->password == "s3cret");
  auto plain = parse_redis_url("redis://[::1]");
  REQUIRE(plain);
  CHECK(plain->host == "::1");
  CHECK(plain->port == 6379);
  CHECK(plain->db == 0);
  for (auto bad : {"http://127.0.0.1:6379", "rediss://127.0.0.1:6379?y", "redis://127.0.0.1/x",
                   "redis://127.0.0.1:0", "redis://", "not a url", "redis://h/1?x=1"}) {
    INFO(bad);
    auto parsed = parse_redis_url(bad);
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error() == caf::sec::invalid_argument);
  }
  auto shown = storage::redacted_store_url("redis://:s3cret@127.0.0.1:6380/2");
  CHECK(shown.find("s3cret") == std::string::npos);
  CHECK(shown == "redis://:REDACTED@127.0.0.1:6380/2");
}

TEST_CASE("redis store: an offer cached by one handle is read by the other until its lifetime "
          "ends, and a call that wants reachability reads only a probed one",
          "[store][redis]") {
  store_under_test s{"redis"};
  target where{"203.0.113.9", 19132, tls_mode::auto_detect};
  auto none = s.second_shared->get_offer(where, false);
  REQUIRE(none);
  CHECK_FALSE(*none);
  REQUIRE_FALSE(s.first_shared->put_offer(where, {"{\"answer\":\"v=0\"}", nov_22, false},
                                   std::chrono::seconds(1)));
  auto plain = s.second_shared->get_offer(where, false);
  REQUIRE(plain);
  REQUIRE(*plain);
  CHECK((*plain)->body == "{\"answer\":\"v=0\"}");
  CHECK((*plain)->retrieved_unix == nov_22);
  CHECK_FALSE((*plain)->probed);
  auto probed = s.second_shared->get_offer(where, true);
  REQUIRE(probed);
  CHECK_FALSE(*probed);
  // Another TLS mode is another target.
  auto other_tls = s.second_shared->get_offer(target{"203.0.113.9", 19132, tls_mode::on}, false);
  REQUIRE(other_tls);
  CHECK_FALSE(*other_tls);
  CHECK(test::wait_until(
    [&] {
      auto gone = s.second_shared->get_offer(where, false);
      return gone && !*gone;
    },
    std::chrono::seconds(3)));
}

TEST_CASE("redis store: one flight lock per target, freed only by its holder, and by itself "
          "after its lifetime",
          "[store][redis]") {
  store_under_test s{"redis"};
  target where{"203.0.113.9", 19132, tls_mode::auto_detect};
  auto ttl = std::chrono::milliseconds(800);
  auto a = s.first_shared->lock_flight(where, false, "owner-a", ttl);
  REQUIRE(a);
  CHECK(*a);
  auto b = s.second_shared->lock_flight(where, false, "owner-b", ttl);
  REQUIRE(b);
  CHECK_FALSE(*b);
  // A flight with reachability checks is a flight of its own.
  auto b_probe = s.second_shared->lock_flight(where, true, "owner-b", ttl);
  REQUIRE(b_probe);
  CHECK(*b_probe);
  // Not the holder: nothing is freed.
  REQUIRE_FALSE(s.second_shared->unlock_flight(where, false, "owner-b"));
  auto still = s.second_shared->lock_flight(where, false, "owner-b", ttl);
  REQUIRE(still);
  CHECK_FALSE(*still);
  REQUIRE_FALSE(s.first_shared->unlock_flight(where, false, "owner-a"));
  auto after = s.second_shared->lock_flight(where, false, "owner-b", ttl);
  REQUIRE(after);
  CHECK(*after);
  // A holder that never frees its lock blocks others only for the lock's lifetime.
  CHECK(test::wait_until(
    [&] {
      auto c = s.first_shared->lock_flight(where, false, "owner-c", ttl);
      return c && *c;
    },
    std::chrono::seconds(3)));
}

// -- the account records ----------------------------------------------------------

namespace {

using storage::record_table;
using storage::record_txn;

/// The keys under prefix in a table, in the order a walk gives them, read by s.
std::vector<std::string> walk(storage::store& s, record_table table, std::string_view prefix) {
  std::vector<std::string> keys;
  auto err = s.with_records(false, [&](record_txn& t) -> caf::expected<bool> {
    keys.clear();
    auto walked = t.for_each_prefix(table, prefix, [&](std::string_view key, std::string_view) {
      keys.emplace_back(key);
      return true;
    });
    if (walked)
      return walked;
    return true;
  });
  REQUIRE_FALSE(err);
  return keys;
}

std::optional<std::string> read(storage::store& s, record_table table, std::string_view key) {
  std::optional<std::string> out;
  auto err = s.with_records(false, [&](record_txn& t) -> caf::expected<bool> {
    auto got = t.get(table, key);
    if (!got)
      return got.error();
    out = *got ? std::optional<std::string>{std::string{**got}} : std::nullopt;
    return true;
  });
  REQUIRE_FALSE(err);
  return out;
}

/// Writes one record through s in a transaction of its own.
void write(storage::store& s, record_table table, std::string_view key, std::string_view value) {
  REQUIRE_FALSE(s.with_records(true, [&](record_txn& t) -> caf::expected<bool> {
    if (auto put = t.put(table, key, value))
      return put;
    return true;
  }));
}

} // namespace

TEST_CASE("store contract: a record transaction keeps all its writes or none, and sees its own",
          "[store]") {
  auto backend = GENERATE(as<std::string>{}, "lmdb", "redis");
  store_under_test st{backend};
  INFO(backend);
  // Binary keys and values, and a key with a glob character, as states and hashes have.
  const std::string binary_key = std::string{"o|\0\xff*?[x]\\", 10} + "end";
  auto err = st.first->with_records(true, [&](record_txn& t) -> caf::expected<bool> {
    for (auto [key, value] : {std::pair{"a|2", "two"}, std::pair{"a|1", "one"},
                              std::pair{"a|3", "three"}, std::pair{"b|1", "other"}})
      if (auto put = t.put(record_table::accounts, key, value))
        return put;
    if (auto put = t.put(record_table::auth, binary_key, std::string{"\0v\0", 3}))
      return put;
    if (auto gone = t.del(record_table::accounts, "a|3"))
      return gone;
    // The transaction reads what it wrote, before anything is committed.
    auto got = t.get(record_table::accounts, "a|1");
    REQUIRE(got);
    REQUIRE(*got);
    CHECK(**got == "one");
    std::vector<std::string> seen;
    auto walked = t.for_each_prefix(record_table::accounts, "a|",
                                    [&](std::string_view key, std::string_view) {
                                      seen.emplace_back(key);
                                      return true;
                                    });
    REQUIRE_FALSE(walked);
    CHECK(seen == std::vector<std::string>{"a|1", "a|2"});
    return true;
  });
  REQUIRE_FALSE(err);
  // The other handle sees the commit, in key order, and the tables apart.
  CHECK(walk(*st.second, record_table::accounts, "a|") == std::vector<std::string>{"a|1", "a|2"});
  CHECK(walk(*st.second, record_table::auth, "a|").empty());
  CHECK(read(*st.second, record_table::auth, binary_key) == std::string{"\0v\0", 3});
  // A prefix with glob characters matches them literally.
  CHECK(walk(*st.second, record_table::auth, binary_key.substr(0, 6))
        == std::vector<std::string>{binary_key});
  CHECK(walk(*st.second, record_table::auth, std::string{"o|\0\xffx", 5}).empty());
  // A transaction that declines, or fails, keeps nothing it wrote.
  err = st.first->with_records(true, [&](record_txn& t) -> caf::expected<bool> {
    REQUIRE_FALSE(t.put(record_table::accounts, "a|9", "nine"));
    REQUIRE_FALSE(t.del(record_table::accounts, "a|1"));
    return false;
  });
  REQUIRE_FALSE(err);
  err = st.first->with_records(true, [&](record_txn& t) -> caf::expected<bool> {
    REQUIRE_FALSE(t.put(record_table::accounts, "a|8", "eight"));
    return caf::make_error(caf::sec::runtime_error, "the work failed");
  });
  CHECK(err);
  CHECK(walk(*st.second, record_table::accounts, "a|") == std::vector<std::string>{"a|1", "a|2"});
  // A read transaction cannot write.
  err = st.first->with_records(false, [&](record_txn& t) -> caf::expected<bool> {
    if (auto put = t.put(record_table::accounts, "a|7", "seven"))
      return put;
    return true;
  });
  CHECK(err);
  CHECK_FALSE(read(*st.second, record_table::accounts, "a|7"));
}

TEST_CASE("store contract: concurrent record transactions from two handles lose no update",
          "[store]") {
  auto backend = GENERATE(as<std::string>{}, "lmdb", "redis");
  store_under_test st{backend};
  INFO(backend);
  constexpr int per_thread = 40;
  const std::string key = "u|rotate|key|7|2026-11-22T12";
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  for (auto* handle : {st.first.get(), st.second.get()}) {
    threads.emplace_back([&, handle] {
      for (int i = 0; i < per_thread; ++i) {
        auto err = handle->with_records(true, [&](record_txn& t) -> caf::expected<bool> {
          auto n = storage::read_count(t, key);
          if (!n)
            return n.error();
          if (auto put = storage::write_count(t, key, *n + 1))
            return put;
          return true;
        });
        if (err)
          ++failed;
      }
    });
  }
  for (auto& t : threads)
    t.join();
  CHECK(failed == 0);
  std::uint64_t total = 0;
  REQUIRE_FALSE(st.first->with_records(false, [&](record_txn& t) -> caf::expected<bool> {
    auto n = storage::read_count(t, key);
    if (!n)
      return n.error();
    total = *n;
    return true;
  }));
  CHECK(total == 2 * per_thread);
}

TEST_CASE("store contract: a key issued on one handle is found and counted on the other",
          "[store]") {
  auto backend = GENERATE(as<std::string>{}, "lmdb", "redis");
  store_under_test st{backend};
  INFO(backend);
  std::string key;
  REQUIRE_FALSE(st.first->with_records(true, [&](record_txn& t) -> caf::expected<bool> {
    auto issued = storage::issue_key(t, 4242, "octocat", nov_22);
    if (!issued)
      return issued.error();
    key = issued->key;
    return true;
  }));
  auto hash = core::hash_api_key(key);
  auto found = st.second->find_keys({hash, core::hash_api_key("nsk_unknown")});
  REQUIRE(found);
  REQUIRE(found->size() == 2);
  REQUIRE((*found)[0]);
  CHECK((*found)[0]->user_id == 4242);
  CHECK_FALSE((*found)[0]->revoked);
  CHECK_FALSE((*found)[1]);
  // The account's usage is read from the quota counters, wherever the store keeps them.
  auto charge = op("4242", 10, counter_mode::count);
  charge.scope = "key";
  REQUIRE(st.first->apply_counters({charge, charge, charge}));
  auto usage = storage::usage_of(*st.second, 4242, charge.window);
  REQUIRE(usage);
  CHECK(usage->offer == 3);
  CHECK(usage->info == 0);
  // Revoked on the second handle: the first handle's lookup says so.
  REQUIRE_FALSE(st.second->with_records(true, [&](record_txn& t) -> caf::expected<bool> {
    return storage::revoke_active_key(t, 4242, nov_22 + 1);
  }));
  found = st.first->find_keys({hash});
  REQUIRE(found);
  REQUIRE(found->front());
  CHECK(found->front()->revoked);
}

TEST_CASE("redis store: the shared per-target offer limit holds across handles", "[store][redis]") {
  store_under_test st{"redis"};
  const std::vector<std::string> server{"192.0.2.7:19132"};
  const auto ttl = std::chrono::milliseconds{20000};
  auto take = [&](storage::shared_store& s, const std::vector<std::string>& servers,
                  const std::string& owner) {
    auto wait = s.take_offer_slot(servers, 2, owner, ttl);
    REQUIRE(wait);
    return wait->count();
  };
  CHECK(take(*st.first_shared, server, "one") == 0);
  // One in flight: the other replica waits a second, for that server and any set naming it.
  CHECK(take(*st.second_shared, server, "two") == 1);
  CHECK(take(*st.second_shared, {"198.51.100.1:19132", "192.0.2.7:19132"}, "two") == 1);
  // A refused start recorded nothing: another server is free.
  CHECK(take(*st.second_shared, {"198.51.100.1:19132"}, "three") == 0);
  // Only the owner frees its mark.
  REQUIRE_FALSE(st.second_shared->release_offer_slot(server, "someone-else"));
  CHECK(take(*st.second_shared, server, "two") == 1);
  REQUIRE_FALSE(st.first_shared->release_offer_slot(server, "one"));
  CHECK(take(*st.second_shared, server, "two") == 0);
  REQUIRE_FALSE(st.second_shared->release_offer_slot(server, "two"));
  // Two in the last minute: the third waits for the first to leave the window.
  auto wait = take(*st.first_shared, server, "four");
  CHECK(wait >= 55);
  CHECK(wait <= 61);
}

TEST_CASE("redis store: a join's players may have their offers in flight together, and no more",
          "[store][redis][join]") {
  store_under_test st{"redis"};
  const std::vector<std::string> server{"192.0.2.8:19132"};
  const auto ttl = std::chrono::milliseconds{20000};
  auto take = [&](storage::shared_store& s, const std::string& owner, unsigned in_flight) {
    auto wait = s.take_offer_slot(server, 10, owner, ttl, in_flight);
    REQUIRE(wait);
    return wait->count();
  };
  // Two players on two replicas: both go.
  CHECK(take(*st.first_shared, "player-one", 2) == 0);
  CHECK(take(*st.second_shared, "player-two", 2) == 0);
  // A third, or a plain offer meanwhile, waits.
  CHECK(take(*st.first_shared, "player-three", 2) == 1);
  CHECK(take(*st.second_shared, "offer", 1) == 1);
  // One player's end frees one place, its own.
  REQUIRE_FALSE(st.first_shared->release_offer_slot(server, "player-one"));
  CHECK(take(*st.second_shared, "offer", 1) == 1);
  CHECK(take(*st.first_shared, "player-three", 2) == 0);
  REQUIRE_FALSE(st.second_shared->release_offer_slot(server, "player-two"));
  REQUIRE_FALSE(st.first_shared->release_offer_slot(server, "player-three"));
  CHECK(take(*st.second_shared, "offer", 1) == 0);
}

TEST_CASE("redis store: an in-flight mark ends with its lifetime", "[store][redis][join]") {
  store_under_test st{"redis"};
  const std::vector<std::string> server{"192.0.2.9:19132"};
  auto short_ttl = std::chrono::milliseconds{300};
  auto first = st.first_shared->take_offer_slot(server, 10, "gone", short_ttl, 1);
  REQUIRE(first);
  CHECK(first->count() == 0);
  auto blocked = st.second_shared->take_offer_slot(server, 10, "next", short_ttl, 1);
  REQUIRE(blocked);
  CHECK(blocked->count() == 1);
  // The owner never released it (its replica died): the mark lapses by itself.
  std::this_thread::sleep_for(std::chrono::milliseconds{500});
  auto after = st.second_shared->take_offer_slot(server, 10, "next", short_ttl, 1);
  REQUIRE(after);
  CHECK(after->count() == 0);
}

TEST_CASE("redis store over TLS: rediss:// with the CA that signed Redis's certificate works, "
          "another CA, another name and a plain URL do not",
          "[store][redis]") {
  test::temp_dir dir;
  auto files = test::make_redis_tls_files(dir.path());
  test::redis_server redis{files};
  auto open = [](const std::string& url) { return redis_at(url); };
  auto s = open(redis.url());
  REQUIRE_FALSE(s->ping());
  auto counted = s->apply_counters({op("tls", 5, counter_mode::count)});
  REQUIRE(counted);
  CHECK(counted->front().used == 1);
  // A record transaction's several round trips on one connection, and a larger reply.
  REQUIRE_FALSE(s->with_records(true, [&](storage::record_txn& t) -> caf::expected<bool> {
    for (int i = 0; i < 200; ++i)
      if (auto err = t.put(storage::record_table::auth, "s|" + std::to_string(i),
                           std::string(500, 'x')))
        return err;
    return true;
  }));
  CHECK(walk(*s, storage::record_table::auth, "s|").size() == 200);
  // A CA that did not sign the certificate: the handshake fails and says why.
  auto other = test::make_redis_tls_files(dir.path(), "other");
  auto url = redis.url();
  auto distrusting = open(url.substr(0, url.find('?')) + "?ssl_ca_certs=" + other.ca);
  auto refused = distrusting->ping();
  REQUIRE(refused);
  CHECK(caf::to_string(refused).find("certificate") != std::string::npos);
  // The right CA, but a name the certificate does not carry (it names only 127.0.0.1):
  // refused, so a certificate is never taken for another host's.
  auto misnamed
    = open("rediss://localhost:" + std::to_string(redis.port()) + url.substr(url.find('?')));
  auto mismatch = misnamed->ping();
  REQUIRE(mismatch);
  CHECK(caf::to_string(mismatch).find("mismatch") != std::string::npos);
  // Plain redis:// to the TLS port gets no answer it can read.
  auto plain = open("redis://127.0.0.1:" + std::to_string(redis.port()));
  CHECK(plain->ping());
}

TEST_CASE("redis URLs: rediss:// may name its CAs, nothing else goes in a query", "[store]") {
  auto tls = parse_redis_url("rediss://:pw@127.0.0.1:6380/2?ssl_ca_certs=/etc/ca.pem");
  REQUIRE(tls);
  CHECK(tls->tls);
  CHECK(tls->ca_file == "/etc/ca.pem");
  CHECK(tls->port == 6380);
  CHECK(tls->db == 2);
  CHECK(tls->password == "pw");
  auto system_cas = parse_redis_url("rediss://redis.example");
  REQUIRE(system_cas);
  CHECK(system_cas->tls);
  CHECK(system_cas->ca_file.empty());
  for (auto bad : {"redis://127.0.0.1?ssl_ca_certs=/etc/ca.pem", "rediss://127.0.0.1?x=1",
                   "rediss://127.0.0.1?ssl_ca_certs=", "rediss://127.0.0.1?",
                   "rediss://127.0.0.1?ssl_ca_certs=a&ssl_ca_certs=b", "http://127.0.0.1"}) {
    INFO(bad);
    CHECK_FALSE(storage::redis_url_problem(bad).empty());
  }
}

TEST_CASE("redis store: a password is sent with AUTH, and a missing or wrong one is refused "
          "without showing it",
          "[store][redis]") {
  test::redis_server redis{std::nullopt, "s3cret-pass"};
  auto open = [](const std::string& url) { return redis_at(url); };
  auto good = open(redis.url());
  REQUIRE_FALSE(good->ping());
  REQUIRE(good->apply_counters({op("auth", 5, counter_mode::count)}));
  auto port = std::to_string(redis.port());
  auto missing = open("redis://127.0.0.1:" + port)->ping();
  REQUIRE(missing);
  CHECK(caf::to_string(missing).find("NOAUTH") != std::string::npos);
  auto wrong = open("redis://:not-it@127.0.0.1:" + port)->ping();
  REQUIRE(wrong);
  CHECK(caf::to_string(wrong).find("AUTH") != std::string::npos);
  CHECK(caf::to_string(wrong).find("not-it") == std::string::npos);
}

TEST_CASE("redis store: a URL's user is sent with AUTH as an ACL user, and a user without a "
          "password is refused before anything connects or is logged",
          "[store][redis]") {
  test::redis_server redis{std::nullopt, "admin-pass"};
  REQUIRE(redis_command(redis.port(),
                        {"ACL", "SETUSER", "app", "on", ">app-pass", "~*", "&*", "+@all"},
                        "admin-pass")
          == "OK");
  auto open = [](const std::string& url) { return redis_at(url); };
  auto port = std::to_string(redis.port());
  auto as_app = open("redis://app:app-pass@127.0.0.1:" + port);
  REQUIRE_FALSE(as_app->ping());
  REQUIRE(as_app->apply_counters({op("acl", 5, counter_mode::count)}));
  // The same password for the default user is wrong: the user was sent.
  auto as_default = open("redis://:app-pass@127.0.0.1:" + port)->ping();
  REQUIRE(as_default);
  CHECK(caf::to_string(as_default).find("app-pass") == std::string::npos);
  auto wrong = open("redis://app:nope@127.0.0.1:" + port)->ping();
  REQUIRE(wrong);
  CHECK(caf::to_string(wrong).find("nope") == std::string::npos);
  // A password written without its colon reads as a user: refused, and the problem does
  // not repeat it.
  std::string problem;
  CHECK_FALSE(storage::read_redis_url("redis://app-pass@127.0.0.1:" + port, problem));
  CHECK(problem.find("user but no password") != std::string::npos);
  CHECK(problem.find("app-pass") == std::string::npos);
  CHECK(storage::redacted_store_url("redis://app:app-pass@127.0.0.1:6380/2")
        == "redis://REDACTED:REDACTED@127.0.0.1:6380/2");
}

TEST_CASE("redis store: a record write that fails inside EXEC is an error, not a success",
          "[store][redis]") {
  test::redis_server redis;
  auto store = redis_at(redis.url());
  auto& s = *store;
  // The accounts hash's key holds a string, so HSET on it fails with WRONGTYPE when EXEC
  // runs it, after MULTI queued it without complaint.
  REQUIRE(redis_command(redis.port(), {"SET", "ns1:{accounts}:accounts", "not a hash"}) == "OK");
  auto err = s.with_records(true, [&](record_txn& t) -> caf::expected<bool> {
    if (auto put = t.put(record_table::accounts, "a|1", "one"))
      return put;
    return true;
  });
  REQUIRE(err);
  CHECK(caf::to_string(err).find("WRONGTYPE") != std::string::npos);
}

TEST_CASE("redis store: a long call on one connection holds up no caller while another "
          "connection is free",
          "[store][redis]") {
  test::redis_server redis;
  auto store = redis_at(redis.url(), 2);
  auto& s = *store;
  std::mutex mutex;
  std::condition_variable changed;
  bool holding = false;
  bool release = false;
  bool waited_out = false;
  // A record transaction that keeps its connection until the test lets it go (5 s at most).
  std::thread long_call([&] {
    auto err = s.with_records(false, [&](record_txn&) -> caf::expected<bool> {
      std::unique_lock<std::mutex> lock{mutex};
      holding = true;
      changed.notify_all();
      waited_out = !changed.wait_for(lock, std::chrono::seconds{5}, [&] { return release; });
      return true;
    });
    CHECK_FALSE(err);
  });
  {
    std::unique_lock<std::mutex> lock{mutex};
    REQUIRE(changed.wait_for(lock, std::chrono::seconds{5}, [&] { return holding; }));
  }
  // Round robin alone would send one of these to the busy connection and wait for it.
  for (int i = 0; i < 4; ++i)
    REQUIRE(s.apply_counters({op("free-" + std::to_string(i), 5, counter_mode::count)}));
  {
    std::lock_guard<std::mutex> lock{mutex};
    release = true;
  }
  changed.notify_all();
  long_call.join();
  CHECK_FALSE(waited_out);
}

namespace {

/// A TCP server on loopback that accepts connections and never answers, as a stopped or
/// overloaded Redis behind a live socket does; counts what it accepted.
class silent_server {
public:
  silent_server() {
    acceptor_.open(boost::asio::ip::tcp::v4());
    acceptor_.bind({boost::asio::ip::make_address("127.0.0.1"), 0});
    acceptor_.listen();
    acceptor_.non_blocking(true);
    worker_ = std::thread([this] {
      // Bounded: 10 ms turns until stopped, 30 s at most.
      for (int turn = 0; turn < 3000 && !stop_; ++turn) {
        boost::system::error_code ec;
        boost::asio::ip::tcp::socket peer{ioc_};
        acceptor_.accept(peer, ec);
        if (!ec) {
          accepted_.fetch_add(1);
          held_.push_back(std::move(peer));
        } else {
          std::this_thread::sleep_for(std::chrono::milliseconds{10});
        }
      }
    });
  }

  ~silent_server() {
    stop_ = true;
    worker_.join();
  }

  unsigned port() const {
    return acceptor_.local_endpoint().port();
  }

  int accepted() const {
    return accepted_.load();
  }

private:
  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::acceptor acceptor_{ioc_};
  std::vector<boost::asio::ip::tcp::socket> held_;
  std::atomic<int> accepted_{0};
  std::atomic<bool> stop_{false};
  std::thread worker_;
};

} // namespace

TEST_CASE("redis store: a server that accepts connections and never answers is backed off "
          "from, not connected to again on every call",
          "[store][redis]") {
  silent_server silent;
  storage::open_options options;
  options.url = "redis://127.0.0.1:" + std::to_string(silent.port());
  options.redis_connections = 1;
  options.redis_timeout = std::chrono::milliseconds{200};
  auto store = test::open_store(options).store;
  auto& s = *store;
  CHECK(s.ping());
  REQUIRE(test::wait_until([&] { return silent.accepted() == 1; }, std::chrono::seconds{2}));
  // At once again: the connection that never answered put the pool in its backoff.
  CHECK(s.ping());
  CHECK(s.ping());
  CHECK(silent.accepted() == 1);
}

TEST_CASE("redis store: a connection to a server that became a replica is dropped, so the next "
          "call connects afresh",
          "[store][redis]") {
  test::redis_server redis;
  auto store = redis_at(redis.url(), 1);
  auto& s = *store;
  REQUIRE(s.apply_counters({op("before", 5, counter_mode::count)}));
  auto connections = [&] {
    auto info = redis_command(redis.port(), {"INFO", "stats"});
    auto at = info.find("total_connections_received:");
    REQUIRE(at != std::string::npos);
    return std::stoi(info.substr(at + 27));
  };
  // A failover demoted it: writes are refused with READONLY. Port 1 has no primary, so it
  // stays a replica until told otherwise.
  REQUIRE(redis_command(redis.port(), {"REPLICAOF", "127.0.0.1", "1"}) == "OK");
  auto refused = s.apply_counters({op("during", 5, counter_mode::count)});
  REQUIRE_FALSE(refused);
  CHECK(caf::to_string(refused.error()).find("READONLY") != std::string::npos);
  REQUIRE(redis_command(redis.port(), {"REPLICAOF", "NO", "ONE"}) == "OK");
  auto before = connections();
  REQUIRE(s.apply_counters({op("after", 5, counter_mode::count)}));
  CHECK(connections() == before + 2); // the store's new connection and this look-up's own
}

TEST_CASE("redis store: a record transaction runs again when a table it read changed under it, "
          "and keeps both changes",
          "[store][redis]") {
  store_under_test st{"redis"};
  write(*st.first, record_table::accounts, "a|count", "1");
  int runs = 0;
  auto err = st.first->with_records(true, [&](record_txn& t) -> caf::expected<bool> {
    ++runs;
    auto got = t.get(record_table::accounts, "a|count");
    REQUIRE(got);
    REQUIRE(*got);
    auto value = std::stoi(std::string{**got});
    if (runs == 1) {
      // Another replica changes the record between this read and this commit.
      write(*st.second, record_table::accounts, "a|other", "x");
    }
    if (auto put = t.put(record_table::accounts, "a|count", std::to_string(value + 1)))
      return put;
    return true;
  });
  REQUIRE_FALSE(err);
  CHECK(runs == 2);
  CHECK(read(*st.first, record_table::accounts, "a|count") == "2");
  CHECK(read(*st.first, record_table::accounts, "a|other") == "x");
}

TEST_CASE("redis store: a change to a table a record transaction did not read costs it no "
          "round",
          "[store][redis]") {
  store_under_test st{"redis"};
  int runs = 0;
  auto err = st.first->with_records(true, [&](record_txn& t) -> caf::expected<bool> {
    ++runs;
    auto got = t.get(record_table::accounts, "a|1");
    REQUIRE(got);
    if (runs == 1) {
      // A sign-in on another replica writes a session: the auth table, not read here.
      write(*st.second, record_table::auth, "s|x", "session");
    }
    // Written, not read: a blind write needs no watch to be all or nothing.
    if (auto put = t.put(record_table::usage, "u|rotate|1", "1"))
      return put;
    if (auto put = t.put(record_table::accounts, "a|1", "one"))
      return put;
    return true;
  });
  REQUIRE_FALSE(err);
  CHECK(runs == 1);
  CHECK(read(*st.first, record_table::accounts, "a|1") == "one");
  CHECK(read(*st.first, record_table::usage, "u|rotate|1") == "1");
}
