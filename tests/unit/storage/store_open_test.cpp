// storage::open, the one way in to storage: what each backend offers beside the store, and
// errors in plain words when a store cannot be opened. Real LMDB files in a temp dir and a
// real redis-server (tests/support/redis_server.hpp).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <caf/sec.hpp>

#include "storage/open.hpp"
#include "storage/records.hpp"
#include "support/process.hpp"
#include "support/redis_server.hpp"
#include "support/store.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

/// One counter of a month, counted amount times (the quota actor's kind of operation).
storage::counter_op counted(const std::string& subject, const std::string& month,
                            std::uint64_t amount) {
  storage::counter_op op;
  op.endpoint = "info";
  op.scope = "ip";
  op.subject = subject;
  op.window = month;
  op.limit = 1000;
  op.amount = amount;
  return op;
}

} // namespace

TEST_CASE("storage::open: LMDB in a data directory it creates, with a counter archive and no "
          "shared part",
          "[store][open]") {
  test::temp_dir dir;
  auto data = dir.path() + "/a/b";
  auto opened = test::open_lmdb(data);
  REQUIRE(opened.store);
  CHECK(to_string(opened.store->backend()) == "lmdb");
  CHECK_FALSE(opened.shared);
  REQUIRE(opened.archive);
  REQUIRE_FALSE(opened.store->ping());
  // The main environment in the directory, the target memory in one of its own.
  CHECK(std::filesystem::exists(data + "/data.mdb"));
  CHECK(std::filesystem::exists(data + "/targets/data.mdb"));
  // The archive keeps each month's counters until they are pruned.
  auto month = storage::window_of(std::time(nullptr)).label;
  REQUIRE(opened.store->apply_counters({counted("198.51.100.7", "2026-01", 5),
                                        counted("198.51.100.8", "2026-01", 2),
                                        counted("198.51.100.7", month, 1)}));
  auto january = opened.archive->counters_of("2026-01");
  REQUIRE(january);
  REQUIRE(january->size() == 2);
  CHECK((*january)[0].endpoint == "info");
  CHECK((*january)[0].scope == "ip");
  CHECK((*january)[0].subject == "198.51.100.7");
  CHECK((*january)[0].window == "2026-01");
  CHECK((*january)[0].count == 5);
  CHECK((*january)[1].count == 2);
  auto pruned = opened.archive->prune_counters_before("2026-06");
  REQUIRE(pruned);
  CHECK(*pruned == 2);
  auto after = opened.archive->counters_of("2026-01");
  REQUIRE(after);
  CHECK(after->empty());
  CHECK(test::counter_value(*opened.store, "info", "ip", "198.51.100.7", month) == 1);
}

TEST_CASE("storage::open: a data directory that cannot be made or opened is an error that says "
          "which and why",
          "[store][open]") {
  test::temp_dir dir;
  // A file where a directory would go.
  std::ofstream{dir.path() + "/file"} << "not a directory";
  storage::open_options options;
  options.data_dir = dir.path() + "/file/data";
  auto refused = storage::open(options);
  REQUIRE_FALSE(refused);
  auto words = storage::message_of(refused.error());
  CHECK(words.find("cannot create the data directory '" + options.data_dir + "'")
        != std::string::npos);
  CHECK(words.find("Not a directory") != std::string::npos);
  // Told not to create it (the admin CLI), a missing directory is an error and stays missing.
  options.data_dir = dir.path() + "/missing";
  options.create_data_dir = false;
  auto missing = storage::open(options);
  REQUIRE_FALSE(missing);
  CHECK(storage::message_of(missing.error()).find("cannot open the store in '" + options.data_dir
                                                  + "'")
        != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(options.data_dir));
  // No directory at all.
  auto nowhere = storage::open(storage::open_options{});
  REQUIRE_FALSE(nowhere);
  CHECK(storage::message_of(nowhere.error()).find("no data directory") != std::string::npos);
}

TEST_CASE("storage::open: a Redis URL that does not parse is an error that says why, without "
          "the password",
          "[store][open]") {
  for (auto [url, why] :
       {std::pair{"http://127.0.0.1:6379", "rediss+sentinel://"},
        std::pair{"redis+sentinel://app:s3cret-pass@127.0.0.1:26379", "names the master"},
        std::pair{"redis+sentinel://app:s3cret-pass@127.0.0.1:26379/m/x", "database number"},
        std::pair{"redis://127.0.0.1/x", "database number"},
        std::pair{"redis://s3cret-pass@127.0.0.1:6379", "user but no password"},
        std::pair{"rediss://:s3cret-pass@127.0.0.1?x=1", "ssl_ca_certs"}}) {
    INFO(url);
    storage::open_options options;
    options.url = url;
    auto refused = storage::open(options);
    REQUIRE_FALSE(refused);
    CHECK(refused.error() == caf::sec::invalid_argument);
    auto words = storage::message_of(refused.error());
    CHECK(words.find(why) != std::string::npos);
    CHECK(words.find("s3cret-pass") == std::string::npos);
  }
}

TEST_CASE("storage::open: Redis offers the shared part and no counter archive", "[store][open]") {
  test::redis_server redis;
  auto opened = test::open_redis(redis.url());
  REQUIRE(opened.store);
  CHECK(to_string(opened.store->backend()) == "redis");
  REQUIRE(opened.shared);
  CHECK_FALSE(opened.archive);
  REQUIRE_FALSE(opened.store->ping());
  // What one handle shares, another handle on the same Redis reads.
  target where{"203.0.113.9", 19132, tls_mode::auto_detect};
  REQUIRE_FALSE(opened.shared->put_offer(where, {"{}", 1795348800, false},
                                         std::chrono::seconds(60)));
  auto other = test::open_redis(redis.url());
  auto read = other.shared->get_offer(where, false);
  REQUIRE(read);
  REQUIRE(*read);
  CHECK((*read)->retrieved_unix == 1795348800);
  // Nothing connects before the first call: a Redis that is not there fails calls, not open.
  storage::open_options options;
  options.url = "redis://127.0.0.1:1";
  auto unreachable = storage::open(options);
  REQUIRE(unreachable);
  auto down = unreachable->store->ping();
  REQUIRE(down);
  CHECK(storage::message_of(down).find("cannot connect") != std::string::npos);
}

TEST_CASE("usage keys: what usage_key writes, parse_usage_key reads back", "[store]") {
  auto key = storage::usage_key("offer", "ip", "2001:db8::7", "2026-11-22T12");
  CHECK(key == "u|offer|ip|2001:db8::7|2026-11-22T12");
  auto parsed = storage::parse_usage_key(key);
  REQUIRE(parsed);
  CHECK(parsed->endpoint == "offer");
  CHECK(parsed->scope == "ip");
  CHECK(parsed->subject == "2001:db8::7");
  CHECK(parsed->window == "2026-11-22T12");
  for (auto bad : {"", "u|", "u|offer|ip|x", "x|offer|ip|x|2026-11", "u|offer|ip|x|2026|11"}) {
    INFO(bad);
    CHECK_FALSE(storage::parse_usage_key(bad));
  }
}
