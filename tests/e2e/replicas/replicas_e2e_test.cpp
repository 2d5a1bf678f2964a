// End to end: two service replicas on one real redis-server share one quota and one identity,
// and ride out Redis going away and coming back.
#include <catch2/catch.hpp>

#include <signal.h>

#include <regex>
#include <thread>

#include "support/http.hpp"
#include "support/redis_server.hpp"
#include "support/wait.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

// The fingerprint a replica logged at start-up: the DTLS certificate its offers present.
std::string logged_fingerprint(service_process& svc) {
  auto line = svc.process().wait_for_line(
    [](const std::string& l) { return l.find("\"event\":\"identity\"") != std::string::npos; },
    5s);
  REQUIRE(line);
  std::smatch m;
  REQUIRE(std::regex_search(*line, m, std::regex{R"re("fingerprint":"([^"]+)")re"}));
  return m[1];
}

} // namespace

TEST_CASE("replicas e2e: calls split across two replicas on one Redis stop exactly at the "
          "limit, and both present the same identity",
          "[e2e][redis]") {
  redis_server redis;
  fake_target_process fake;
  std::vector<std::string> args{"--store", redis.url(), "--limit-info-ip", "7"};
  service_process a{args};
  service_process b{args};
  CHECK(logged_fingerprint(a) == logged_fingerprint(b));
  auto query = "host=127.0.0.1&port=" + std::to_string(fake.port());
  int ok = 0;
  int exhausted = 0;
  for (int i = 0; i < 12; ++i) {
    auto& svc = i % 2 == 0 ? a : b;
    auto reply = get_info(svc, query);
    INFO("call " << i << ": " << reply.status << " " << reply.body);
    if (reply.status == 200) {
      ++ok;
      // One counter for both: what is left counts every call on either replica.
      CHECK(reply.header("x-ratelimit-remaining") == std::to_string(7 - ok));
    } else {
      CHECK(reply.status == 429);
      CHECK(reply.code() == "quota_exhausted");
      ++exhausted;
    }
  }
  CHECK(ok == 7);
  CHECK(exhausted == 5);
}

TEST_CASE("replicas e2e: with Redis gone the API answers 503 unavailable, never free calls, "
          "and recovers by itself within 5 s of Redis returning",
          "[e2e][redis]") {
  redis_server redis;
  fake_target_process fake;
  service_process svc{{"--store", redis.url(), "--limit-info-ip", "100", "--limit-offer-ip", "7"}};
  auto query = "host=127.0.0.1&port=" + std::to_string(fake.port());
  REQUIRE(get_info(svc, query).status == 200);
  CHECK(http_request(svc.port(), "GET", "/readyz").status == 200);
  CHECK(metric(svc, "netherscope_redis_up") == 1);
  CHECK(metric(svc, "netherscope_store_operations_total{backend=\"redis\"}") >= 1);

  redis.kill();
  auto down = get_info(svc, query);
  INFO(down.body);
  CHECK(down.status == 503);
  CHECK(down.code() == "unavailable");
  // The headers it can still give: the scope, the limit and the reset.
  CHECK(down.header("x-ratelimit-limit") == "100");
  CHECK(down.header("x-ratelimit-scope") == "ip");
  // A check shows the offer quota, the scarcer of its two, and fails the same way.
  auto check_down = http_request(svc.port(), "GET", "/api/check?" + query);
  INFO(check_down.body);
  CHECK(check_down.status == 503);
  CHECK(check_down.code() == "unavailable");
  CHECK(check_down.header("x-ratelimit-limit") == "7");
  CHECK(check_down.header("x-ratelimit-scope") == "ip");
  CHECK(check_down.header("x-ratelimit-remaining").empty());
  auto not_ready = http_request(svc.port(), "GET", "/readyz");
  CHECK(not_ready.status == 503);
  CHECK(not_ready.code() == "unavailable");
  CHECK(metric(svc, "netherscope_redis_up") == 0);
  CHECK(metric(svc, "netherscope_store_errors_total{backend=\"redis\"}") >= 1);

  redis.start();
  auto back = std::chrono::steady_clock::now();
  INFO("/readyz answers 200 again");
  REQUIRE(wait_until([&] { return http_request(svc.port(), "GET", "/readyz").status == 200; },
                     5s, 50ms));
  CHECK(std::chrono::steady_clock::now() - back < 5s);
  auto again = get_info(svc, query);
  CHECK(again.status == 200);
  // The restarted Redis kept nothing (no persistence), so this is its first counted call.
  CHECK(again.header("x-ratelimit-remaining") == "99");
  CHECK(metric(svc, "netherscope_redis_up") == 1);
}

TEST_CASE("replicas e2e: an offer one replica fetched is a cache hit on the other, with the "
          "same retrieval time",
          "[e2e][redis]") {
  redis_server redis;
  fake_target_process fake;
  std::vector<std::string> args{"--store", redis.url()};
  service_process a{args};
  service_process b{args};
  auto first = offer_call(a, fake.port());
  INFO(first.body);
  REQUIRE(first.status == 200);
  CHECK_FALSE(served_from_cache(first));
  auto second = offer_call(b, fake.port());
  INFO(second.body);
  REQUIRE(second.status == 200);
  CHECK(served_from_cache(second));
  CHECK(second.json().at("retrievedAt") == first.json().at("retrievedAt"));
  CHECK(fake.stats().at("offers").as_int64() == 1);
  CHECK(metric(b, "netherscope_offer_flights_from_replicas_total") == 1);
}

TEST_CASE("replicas e2e: concurrent identical offers on two replicas reach the target once",
          "[e2e][redis]") {
  redis_server redis;
  // The answer takes a while, so every call arrives while the first flight is under way.
  fake_target_process fake{{"--answer-delay-ms", "700"}};
  std::vector<std::string> args{"--store", redis.url()};
  service_process a{args};
  service_process b{args};
  constexpr int per_replica = 8;
  std::vector<std::thread> callers;
  std::vector<int> statuses(2 * per_replica, 0);
  for (int i = 0; i < 2 * per_replica; ++i)
    callers.emplace_back([&, i] {
      statuses[i] = offer_call(i % 2 == 0 ? a : b, fake.port()).status;
    });
  for (auto& t : callers)
    t.join();
  for (int i = 0; i < 2 * per_replica; ++i) {
    INFO("call " << i);
    CHECK(statuses[i] == 200);
  }
  CHECK(fake.stats().at("offers").as_int64() == 1);
}

TEST_CASE("replicas e2e: accounts and keys live in Redis: a key made by admin works on both "
          "replicas, shares one key quota, and a new key or a revocation on one holds on the "
          "other",
          "[e2e][redis]") {
  redis_server redis;
  std::vector<std::string> args{"--store", redis.url(), "--limit-info-key", "4"};
  service_process a{args};
  service_process b{args};
  // admin works on the same Redis; its own --data-dir is only where LMDB would be.
  auto made = run_admin(a.data_dir(), {"--store", redis.url(), "create-account", "--login",
                                       "ops-bot"});
  auto key = made.substr(0, made.find('\n'));
  REQUIRE(key.rfind("nsk_", 0) == 0);
  auto account = [&](service_process& svc, const std::string& k) {
    return http_request(svc.port(), "GET", "/api/account", {{"Authorization", "Bearer " + k}});
  };
  for (auto* svc : {&a, &b}) {
    auto seen = account(*svc, key);
    INFO(seen.status << " " << seen.body);
    REQUIRE(seen.status == 200);
    CHECK(seen.json().at("login") == "ops-bot");
  }
  // One key quota across both: calls split over them stop at the limit.
  int ok = 0;
  for (int i = 0; i < 6; ++i) {
    auto& svc = i % 2 == 0 ? a : b;
    auto reply = http_request(svc.port(), "GET", "/api/info?host=", {{"X-API-Key", key}});
    INFO("call " << i << ": " << reply.status << " " << reply.body);
    CHECK(reply.header("x-ratelimit-scope") == "key");
    if (reply.status != 429)
      ++ok;
    else
      CHECK(reply.code() == "quota_exhausted");
  }
  CHECK(ok == 4);
  // A new key from replica b: replica a refuses the old one and takes the new one.
  auto rotated = http_request(b.port(), "POST", "/api/account/key",
                              {{"Authorization", "Bearer " + key}});
  INFO(rotated.body);
  REQUIRE(rotated.status == 200);
  auto fresh = std::string{rotated.json().at("key").as_string()};
  CHECK(account(a, key).status == 401);
  CHECK(account(a, fresh).status == 200);
  // Revoked on replica a: replica b refuses it too.
  auto revoked = http_request(a.port(), "DELETE", "/api/account/key",
                              {{"Authorization", "Bearer " + fresh}});
  CHECK(revoked.status == 200);
  CHECK(account(b, fresh).status == 401);
  // The accounts listing reads the same Redis.
  CHECK(run_admin(a.data_dir(), {"--store", redis.url(), "accounts"}).find("ops-bot")
        != std::string::npos);
}

TEST_CASE("replicas e2e: the per-target offer limit is one for every replica on Redis",
          "[e2e][redis]") {
  // Every offer fails (a truncated answer), so no answer is ever cached and each call past
  // the first would be a fresh offer, were the limit per replica.
  redis_server redis;
  fake_target_process fake{{"--offer-fault", "close-mid-body"}};
  std::vector<std::string> args{"--store", redis.url(), "--offers-per-target-per-minute", "1"};
  service_process a{args};
  service_process b{args};
  auto first = offer_call(a, fake.port());
  INFO("first: " << first.status << " " << first.body);
  CHECK(first.code() == "upstream_failure");
  for (auto* svc : {&b, &a}) {
    auto limited = offer_call(*svc, fake.port());
    INFO(limited.status << " " << limited.body);
    CHECK(limited.status == 429);
    CHECK(limited.code() == "target_rate_limited");
    auto retry = limited.header("retry-after");
    REQUIRE_FALSE(retry.empty());
    CHECK(std::stoi(retry) >= 1);
    CHECK(std::stoi(retry) <= 61);
  }
  CHECK(fake.stats().at("offers").as_int64() == 1);
}

TEST_CASE("replicas e2e: over rediss:// with a password two replicas share one quota, and "
          "the password is never logged",
          "[e2e][redis]") {
  temp_dir dir;
  redis_server redis{make_redis_tls_files(dir.path()), "s3cret-pass"};
  fake_target_process fake;
  std::vector<std::string> args{"--store", redis.url(), "--limit-info-ip", "3"};
  service_process a{args};
  service_process b{args};
  auto ready = http_request(a.port(), "GET", "/readyz");
  CHECK(ready.status == 200);
  auto query = "host=127.0.0.1&port=" + std::to_string(fake.port());
  int ok = 0;
  for (int i = 0; i < 5; ++i) {
    auto reply = get_info(i % 2 == 0 ? a : b, query);
    INFO(reply.status << " " << reply.body);
    ok += reply.status == 200;
  }
  CHECK(ok == 3);
  for (auto* svc : {&a, &b})
    for (auto& line : svc->process().lines())
      CHECK(line.find("s3cret-pass") == std::string::npos);
}

TEST_CASE("replicas e2e: a replica on Redis that sent an offer through the shared gate stops "
          "on SIGTERM and exits 0",
          "[e2e][redis]") {
  // Whatever outlives the actor system (the client to targets keeps the gate's functions)
  // must not keep a detached actor alive, or the exit waits for it forever.
  redis_server redis;
  fake_target_process fake;
  service_process svc{{"--store", redis.url()}};
  REQUIRE(offer_call(svc, fake.port()).status == 200);
  svc.process().signal(SIGTERM);
  CHECK(svc.process().wait(10s) == 0);
}

TEST_CASE("replicas e2e: with --store-min-replicas 1 and the Redis replica gone, calls are 503 "
          "unavailable, never answered uncounted, and are answered again once it is back",
          "[e2e][redis][replicas]") {
  redis_server redis{std::nullopt, {}, {"--repl-diskless-sync-delay", "0"}};
  auto replica = std::make_unique<redis_server>(
    std::nullopt, std::string{},
    std::vector<std::string>{"--replicaof", "127.0.0.1", std::to_string(redis.port())});
  REQUIRE(wait_until([&] { return acknowledging_replicas(redis.port(), 1) == 1; }, 10s));
  fake_target_process fake;
  service_process svc{{"--store", redis.url(), "--store-min-replicas", "1", "--limit-info-ip",
                       "100"}};
  auto query = "host=127.0.0.1&port=" + std::to_string(fake.port());
  auto first = get_info(svc, query);
  REQUIRE(first.status == 200);
  CHECK(first.header("x-ratelimit-remaining") == "99");

  replica->kill();
  REQUIRE(wait_until([&] { return online_replicas(redis.port()) == 0; }, 10s));
  auto down = get_info(svc, query);
  INFO(down.body);
  CHECK(down.status == 503);
  CHECK(down.code() == "unavailable");
  // The log says why, for the operator.
  CHECK(svc.process().wait_for_line(
    [](const std::string& l) { return l.find("--store-min-replicas") != std::string::npos; }, 2s));

  replica->start();
  REQUIRE(wait_until([&] { return acknowledging_replicas(redis.port(), 1) == 1; }, 10s));
  auto back = get_info(svc, query);
  CHECK(back.status == 200);
}
