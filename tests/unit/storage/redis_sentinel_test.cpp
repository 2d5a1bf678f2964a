// The Redis store under Sentinel (storage/redis_pool, storage/redis_url): URLs of the
// sentinels read and refused; against real redis-server processes on loopback (a master, a
// replica or two, and three sentinels), the store finds the master through the sentinels,
// follows a failover after the master is killed keeping every count it acknowledged, never
// writes to the old master once it is back as a replica, goes on with a sentinel down, and by
// default refuses counts while no replica can acknowledge them.
#include <catch2/catch.hpp>

#include <chrono>

#include "storage/open.hpp"
#include "storage/redis_keys.hpp"
#include "storage/redis_url.hpp"
#include "support/process.hpp"
#include "support/redis_server.hpp"
#include "support/store.hpp"
#include "support/wait.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

/// One count on a counter that lives for an hour from now.
storage::counter_op sentinel_count(std::uint64_t amount = 1) {
  return hour_counter("sentinel-test", "203.0.113.7", storage::counter_mode::count, amount);
}

/// The store's count after one more call, or nullopt when the store refused.
std::optional<std::uint64_t> count_once(storage::store& s) {
  auto r = s.apply_counters({sentinel_count()});
  if (!r) {
    UNSCOPED_INFO("the store refused: " << storage::message_of(r.error()));
    return std::nullopt;
  }
  return r->front().used;
}

} // namespace

TEST_CASE("redis URLs under Sentinel: the sentinels, the master's name and the database are "
          "read, and a bad one is refused with a reason",
          "[store][sentinel]") {
  auto full = parse_redis_url(
    "redis+sentinel://app:pa%40ss@10.0.0.1:26380,[::1],sentinel-3.example/main-db/2");
  REQUIRE(full);
  REQUIRE(full->sentinels.size() == 3);
  CHECK(full->sentinels[0].host == "10.0.0.1");
  CHECK(full->sentinels[0].port == 26380);
  CHECK(full->sentinels[1].host == "::1");
  CHECK(full->sentinels[1].port == 26379);
  CHECK(full->sentinels[2].host == "sentinel-3.example");
  CHECK(full->master_name == "main-db");
  CHECK(full->db == 2);
  CHECK(full->user == "app");
  CHECK(full->password == "pa@ss");
  CHECK_FALSE(full->tls);
  CHECK(full->host.empty());
  auto tls = parse_redis_url("rediss+sentinel://s1:26379/m?ssl_ca_certs=/etc/ca.pem");
  REQUIRE(tls);
  CHECK(tls->tls);
  CHECK(tls->ca_file == "/etc/ca.pem");
  CHECK(tls->db == 0);
  for (auto bad : {"redis+sentinel://s1:26379", "redis+sentinel://s1:26379/",
                   "redis+sentinel://s1:0/m", "redis+sentinel://s1:99999/m",
                   "redis+sentinel://,s1/m", "redis+sentinel://s1,/m", "redis+sentinel://s1/m/x",
                   "redis+sentinel://s1/m n", "redis+sentinel://user@s1/m",
                   "redis+sentinel://s1/m?ssl_ca_certs=x", "redis+sentinel://[::1/m"}) {
    INFO(bad);
    CHECK_FALSE(storage::redis_url_problem(bad).empty());
  }
  auto shown = storage::redacted_store_url("redis+sentinel://app:s3cret@s1:26379,s2/m/1");
  CHECK(shown.find("s3cret") == std::string::npos);
  CHECK(shown.find("app") == std::string::npos);
  CHECK(shown == "redis+sentinel://REDACTED:REDACTED@s1:26379,s2/m/1");
}

TEST_CASE("redis store under Sentinel: the master found through the sentinels, a failover "
          "followed after the master is killed with every acknowledged count kept, and the old "
          "master never written once back",
          "[store][sentinel][redis]") {
  if (!backend_available("redis"))
    return;
  temp_dir dir;
  // Two replicas: after the failover the new master still has one to acknowledge writes, as
  // the default --store-min-replicas (1 under Sentinel) requires.
  redis_sentinels set{dir.path(), 2};
  auto opened = open_redis(set.url(), 2);
  auto& s = *opened.store;
  REQUIRE_FALSE(s.ping());
  // Each count returns only once a replica acknowledged it, so no waiting for replication
  // before the kill: whichever replica the sentinels promote, it must hold all five.
  for (int i = 0; i < 5; ++i)
    REQUIRE(count_once(s));
  CHECK(redis_role(set.master().port()) == "master");

  set.master().kill();
  INFO("waiting for the sentinels to promote a replica and the store to follow");
  std::optional<std::uint64_t> after;
  REQUIRE(wait_until([&] { return (after = count_once(s)).has_value(); }, 30s));
  auto promoted = set.named_master();
  CHECK((promoted == set.replica(0).port() || promoted == set.replica(1).port()));
  CHECK(redis_role(promoted) == "master");
  // Not one count made before the failover is lost. A count the store refused while the new
  // master had no replica yet may still have been made there, so this is at least six.
  CHECK(*after >= 6);

  // The old master comes back; the sentinels make it a replica of the new one, and the
  // store's writes keep going to the new master.
  set.master().start();
  REQUIRE(wait_until([&] { return redis_role(set.master().port()) == "slave"; }, 20s));
  // Until the sentinels have moved every server over, a write can reach a master that no
  // replica follows any more, or one whose replicas still sync from scratch, and is refused.
  // On a busy machine a new master can look down for the sentinels' second (their
  // down-after-milliseconds) and be failed over again, so each count may be refused a while;
  // each must be made in the end, on the master of the moment.
  std::uint64_t last = *after;
  for (int i = 0; i < 3; ++i) {
    std::optional<std::uint64_t> next;
    REQUIRE(wait_until([&] { return (next = count_once(s)).has_value(); }, 30s));
    CHECK(*next > last);
    last = *next;
  }
  CHECK(last >= *after + 3);
  auto fresh = open_redis(set.url(), 1);
  // A store opened now finds the same master and goes on from its counts.
  std::optional<std::uint64_t> now;
  REQUIRE(wait_until([&] { return (now = count_once(*fresh.store)).has_value(); }, 30s));
  CHECK(*now > last);
}

TEST_CASE("redis store under Sentinel: by default each count waits for a replica, so with the "
          "only replica down counts are refused, and count again once it is back",
          "[store][sentinel][redis]") {
  if (!backend_available("redis"))
    return;
  temp_dir dir;
  redis_sentinels set{dir.path()};
  auto opened = open_redis(set.url(), 1);
  auto& s = *opened.store;
  REQUIRE(count_once(s));
  set.replica().kill();
  REQUIRE(wait_until([&] { return online_replicas(set.master().port()) == 0; }, 10s));
  auto refused = s.apply_counters({sentinel_count()});
  REQUIRE_FALSE(refused);
  CHECK(storage::message_of(refused.error()).find("--store-min-replicas") != std::string::npos);
  // With --store-min-replicas 0 the same deployment counts on.
  auto unguarded = open_redis(set.url(), 1, 0u);
  CHECK(count_once(*unguarded.store));
  set.replica().start();
  REQUIRE(wait_until([&] { return acknowledging_replicas(set.master().port(), 1) == 1; }, 10s));
  CHECK(count_once(s));
}

TEST_CASE("redis store under Sentinel: with a sentinel down the others name the master",
          "[store][sentinel][redis]") {
  if (!backend_available("redis"))
    return;
  temp_dir dir;
  redis_sentinels set{dir.path()};
  set.kill_sentinel(0);
  auto opened = open_redis(set.url(), 1);
  CHECK_FALSE(opened.store->ping());
  auto first = count_once(*opened.store);
  REQUIRE(first);
  CHECK(*first == 1);
}

TEST_CASE("redis store under Sentinel: a failover without a lost connection (SENTINEL "
          "FAILOVER) is followed from the sentinels' +switch-master, before any write fails",
          "[store][sentinel][redis]") {
  if (!backend_available("redis"))
    return;
  temp_dir dir;
  redis_sentinels set{dir.path()};
  auto opened = open_redis(set.url(), 1);
  auto& s = *opened.store;
  auto first = count_once(s);
  REQUIRE(first);
  CHECK(*first == 1);
  auto key = storage::redis_counter_key(sentinel_count());
  REQUIRE(wait_until([&] { return redis_command(set.replica().port(), {"GET", key}) == "1"; },
                     5s));
  // The master stays up and the store's connection to it stays open: only the announcement
  // tells the store to move.
  CHECK(redis_command(set.sentinel_port(1), {"SENTINEL", "FAILOVER", "netherscope"}) == "OK");
  REQUIRE(wait_until([&] { return set.named_master() == set.replica().port(); }, 20s));
  REQUIRE(wait_until([&] { return redis_role(set.master().port()) == "slave"; }, 20s));
  // The old master is the new one's replica: the write below waits for it to acknowledge.
  REQUIRE(wait_until([&] { return acknowledging_replicas(set.replica().port(), 1) == 1; }, 10s));
  // The first write after the failover goes to the new master.
  auto after = count_once(s);
  REQUIRE(after);
  CHECK(*after == 2);
  CHECK(redis_command(set.replica().port(), {"GET", key}) == "2");
}
