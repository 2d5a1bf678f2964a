// End to end: a cached offer answered from the hit board (actors/hit_board.hpp) is charged
// and answered exactly as the actors' path answers it: quota headers, 429 past the limit,
// 401 for an unknown key, scope key for a good one, and one upstream offer in all.
#include <catch2/catch.hpp>

#include <regex>
#include <string>

#include "support/http.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

TEST_CASE("hit path e2e: cached offers are charged like any call and the target is asked "
          "once",
          "[e2e][offer]") {
  fake_target_process fake;
  service_process svc{{"--limit-offer-ip", "3"}};
  auto hits_before = metric(svc, R"(netherscope_offer_cache_requests_total{result="hit"})");
  REQUIRE(hits_before);

  auto first = offer_call(svc, fake.port());
  INFO(first.body);
  REQUIRE(first.status == 200);
  CHECK_FALSE(served_from_cache(first));
  CHECK(first.header("x-ratelimit-remaining") == "2");

  for (std::string left : {"1", "0"}) {
    auto hit = offer_call(svc, fake.port());
    INFO(hit.body);
    CHECK(hit.status == 200);
    CHECK(served_from_cache(hit));
    CHECK_FALSE(hit.header("age").empty());
    CHECK(hit.header("access-control-allow-origin") == "*");
    CHECK(hit.header("x-ratelimit-scope") == "ip");
    CHECK(hit.header("x-ratelimit-limit") == "3");
    CHECK(hit.header("x-ratelimit-remaining") == left);
  }

  auto refused = offer_call(svc, fake.port());
  CHECK(refused.status == 429);
  CHECK(refused.code() == "quota_exhausted");
  CHECK_FALSE(refused.header("retry-after").empty());
  CHECK(refused.header("x-ratelimit-remaining") == "0");

  auto unknown = offer_call(svc, fake.port(), {{"X-API-Key", "nsk_nope"}});
  CHECK(unknown.status == 401);
  CHECK(unknown.code() == "unauthorized");
  CHECK(unknown.header("x-ratelimit-scope") == "ip");

  auto created = run_admin(svc.data_dir(), {"create-account", "--login", "dave"});
  std::smatch m;
  REQUIRE(std::regex_search(created, m, std::regex{"nsk_[A-Za-z0-9_-]+"}));
  auto with_key = offer_call(svc, fake.port(), {{"X-API-Key", m[0]}});
  INFO(with_key.body);
  CHECK(with_key.status == 200);
  CHECK(served_from_cache(with_key));
  CHECK(with_key.header("x-ratelimit-scope") == "key");

  // Three hits answered (the refused and unauthorized calls are not hits), one offer upstream.
  CHECK(metric(svc, R"(netherscope_offer_cache_requests_total{result="hit"})")
        == *hits_before + 3);
  CHECK(fake.stats().at("offers").as_int64() == 1);
}
