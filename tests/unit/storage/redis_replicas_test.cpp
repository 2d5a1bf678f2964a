// The Redis store with replicas (--store-min-replicas, storage/redis_pool's durable writes):
// against a real master and a real replica on loopback, each count and each record written
// waits for the replica to acknowledge it; with the replica gone such writes are refused
// while reads go on, and with it back they succeed again. A single Redis waits for nobody.
#include <catch2/catch.hpp>

#include <chrono>

#include "storage/open.hpp"
#include "storage/redis_keys.hpp"
#include "support/process.hpp"
#include "support/redis_server.hpp"
#include "support/store.hpp"
#include "support/wait.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

/// A counter that lives for an hour from now, counted (or only read) once.
storage::counter_op replica_count(storage::counter_mode mode = storage::counter_mode::count) {
  return hour_counter("replica-test", "198.51.100.4", mode);
}

/// The WAIT commands the Redis at port has run so far.
std::uint64_t waits_run(unsigned port) {
  auto stats = redis_command(port, {"INFO", "commandstats"});
  auto at = stats.find("cmdstat_wait:calls=");
  if (at == std::string::npos)
    return 0;
  return std::stoull(stats.substr(at + std::string{"cmdstat_wait:calls="}.size()));
}

/// Writes one small record under name; the store's error, if it refused.
caf::error write_record(storage::store& s, const std::string& name) {
  return s.with_records(true, [&](storage::record_txn& t) -> caf::expected<bool> {
    if (auto err = t.put(storage::record_table::accounts, "a|" + name, "{}"))
      return err;
    return true;
  });
}

/// Starts a replica of master that syncs at once.
std::unique_ptr<redis_server> replica_of(redis_server& master) {
  return std::make_unique<redis_server>(
    std::nullopt, std::string{},
    std::vector<std::string>{"--replicaof", "127.0.0.1", std::to_string(master.port())});
}

} // namespace

TEST_CASE("redis store with a replica: by default a single Redis waits for no replica, and "
          "--store-min-replicas 1 makes each count wait for one",
          "[store][redis][replicas]") {
  if (!backend_available("redis"))
    return;
  CHECK(storage::default_min_replicas("redis://127.0.0.1:6379") == 0);
  CHECK(storage::default_min_replicas("rediss://127.0.0.1:6380/2") == 0);
  CHECK(storage::default_min_replicas("redis+sentinel://127.0.0.1:26379/main") == 1);
  CHECK(storage::default_min_replicas("") == 0);

  redis_server master{std::nullopt, {}, {"--repl-diskless-sync-delay", "0"}};
  auto replica = replica_of(master);
  REQUIRE(wait_until([&] { return acknowledging_replicas(master.port(), 1) == 1; }, 10s));
  // Waits made so far were the test's own, to see the replica acknowledge.
  auto before = waits_run(master.port());
  auto plain = open_redis(master.url(), 1);
  REQUIRE(plain.store->apply_counters({replica_count()}));
  CHECK(waits_run(master.port()) == before);

  auto durable = open_redis(master.url(), 1, 1u);
  auto counted = durable.store->apply_counters({replica_count()});
  REQUIRE(counted);
  CHECK(counted->front().used == 2);
  CHECK(waits_run(master.port()) == before + 1);
  // Acknowledged means the replica has it: read there at once, with no waiting.
  auto key = storage::redis_counter_key(replica_count());
  CHECK(redis_command(replica->port(), {"GET", key}) == "2");
  // A peek writes nothing, so it waits for nothing.
  REQUIRE(durable.store->read_counters({replica_count(storage::counter_mode::peek)}));
  CHECK(waits_run(master.port()) == before + 1);
  // A record written waits too, in the transaction's own round trip.
  REQUIRE_FALSE(write_record(*durable.store, "alice"));
  CHECK(waits_run(master.port()) == before + 2);
}

TEST_CASE("redis store with a replica: with the replica gone, counts and record writes are "
          "refused naming --store-min-replicas while reads go on, and succeed once it is back",
          "[store][redis][replicas]") {
  if (!backend_available("redis"))
    return;
  redis_server master{std::nullopt, {}, {"--repl-diskless-sync-delay", "0"}};
  auto replica = replica_of(master);
  REQUIRE(wait_until([&] { return acknowledging_replicas(master.port(), 1) == 1; }, 10s));
  auto durable = open_redis(master.url(), 1, 1u);
  auto& s = *durable.store;
  REQUIRE(s.apply_counters({replica_count()}));
  REQUIRE_FALSE(write_record(s, "alice"));

  replica->kill();
  REQUIRE(wait_until([&] { return online_replicas(master.port()) == 0; }, 10s));
  auto started = std::chrono::steady_clock::now();
  auto refused = s.apply_counters({replica_count()});
  REQUIRE_FALSE(refused);
  auto why = storage::message_of(refused.error());
  INFO(why);
  CHECK(why.find("0 of the 1 replicas") != std::string::npos);
  CHECK(why.find("--store-min-replicas") != std::string::npos);
  // Refused at the wait's deadline, not the command's.
  CHECK(std::chrono::steady_clock::now() - started < patient_replica_wait + 3s);
  auto record_refused = write_record(s, "bob");
  REQUIRE(record_refused);
  CHECK(storage::message_of(record_refused).find("--store-min-replicas") != std::string::npos);
  // Reads need no replica.
  auto peeked = s.read_counters({replica_count(storage::counter_mode::peek)});
  REQUIRE(peeked);
  CHECK(peeked->front() >= 1);
  bool found = false;
  REQUIRE_FALSE(s.with_records(false, [&](storage::record_txn& t) -> caf::expected<bool> {
    auto got = t.get(storage::record_table::accounts, "a|alice");
    if (!got)
      return got.error();
    found = got->has_value();
    return true;
  }));
  CHECK(found);
  // A store that asks for no replica is not held up.
  auto plain = open_redis(master.url(), 1, 0u);
  CHECK(plain.store->apply_counters({replica_count()}));
  CHECK_FALSE(write_record(*plain.store, "carol"));

  replica->start();
  REQUIRE(wait_until([&] { return acknowledging_replicas(master.port(), 1) == 1; }, 10s));
  auto again = s.apply_counters({replica_count()});
  REQUIRE(again);
  // A refused count may have been made on the master before the wait failed: the refusal
  // can count a call twice, never a call answered as none.
  CHECK(again->front().used >= 3);
  CHECK_FALSE(write_record(s, "bob"));
}

TEST_CASE("redis store with a replica: asking for more replicas than there are refuses every "
          "write",
          "[store][redis][replicas]") {
  if (!backend_available("redis"))
    return;
  redis_server master{std::nullopt, {}, {"--repl-diskless-sync-delay", "0"}};
  auto replica = replica_of(master);
  REQUIRE(wait_until([&] { return acknowledging_replicas(master.port(), 1) == 1; }, 10s));
  auto greedy = open_redis(master.url(), 1, 2u);
  auto refused = greedy.store->apply_counters({replica_count()});
  REQUIRE_FALSE(refused);
  // One replica is there; how many acknowledged within the wait depends on how busy the
  // machine is, so the check is on what was required.
  CHECK(storage::message_of(refused.error()).find(" of the 2 replicas required") != std::string::npos);
}
