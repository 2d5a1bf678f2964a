#include <catch2/catch.hpp>

#include "actors/offer_cache.hpp"

using namespace netherscope;
using namespace std::chrono_literals;

namespace {

target key(std::string host, std::uint16_t port = 19132, tls_mode tls = tls_mode::auto_detect) {
  return target{std::move(host), port, tls};
}

} // namespace

TEST_CASE("offer cache: entries are fresh for 120 s", "[offer_cache]") {
  offer_cache cache{offer_cache::limits{}};
  auto t0 = offer_cache::clock_type::time_point{} + 1000s;
  cache.put(key("a.com"), "body", t0);
  REQUIRE(cache.fresh(key("a.com"), t0 + 119s));
  CHECK(*cache.fresh(key("a.com"), t0 + 119s) == "body");
  CHECK_FALSE(cache.fresh(key("a.com"), t0 + 120s));
  CHECK_FALSE(cache.fresh(key("b.com"), t0));
}

TEST_CASE("offer cache: the key is host, port and tls mode", "[offer_cache]") {
  offer_cache cache{offer_cache::limits{}};
  auto t0 = offer_cache::clock_type::time_point{} + 1000s;
  cache.put(key("a.com"), "auto", t0);
  CHECK_FALSE(cache.fresh(key("a.com", 19133), t0));
  CHECK_FALSE(cache.fresh(key("a.com", 19132, tls_mode::on), t0));
  cache.put(key("a.com", 19132, tls_mode::on), "on", t0);
  CHECK(*cache.fresh(key("a.com", 19132, tls_mode::on), t0) == "on");
  CHECK(*cache.fresh(key("a.com"), t0) == "auto");
}

TEST_CASE("offer cache: stale window of 10 minutes", "[offer_cache]") {
  offer_cache cache{offer_cache::limits{}};
  auto t0 = offer_cache::clock_type::time_point{} + 1000s;
  cache.put(key("a.com"), "body", t0);
  auto hit = cache.usable(key("a.com"), t0 + 60s);
  REQUIRE(hit);
  CHECK_FALSE(hit->stale);
  hit = cache.usable(key("a.com"), t0 + 599s);
  REQUIRE(hit);
  CHECK(hit->stale);
  CHECK_FALSE(cache.usable(key("a.com"), t0 + 600s));
  cache.expire(t0 + 600s);
  CHECK(cache.size() == 0);
  CHECK(cache.bytes() == 0);
}

TEST_CASE("offer cache: a refresh replaces the entry and its age", "[offer_cache]") {
  offer_cache cache{offer_cache::limits{}};
  auto t0 = offer_cache::clock_type::time_point{} + 1000s;
  cache.put(key("a.com"), "old", t0);
  cache.put(key("a.com"), "new!", t0 + 100s);
  CHECK(cache.size() == 1);
  CHECK(cache.bytes() == 8); // the body and its hit form (the same text here: not JSON)
  CHECK(*cache.fresh(key("a.com"), t0 + 150s) == "new!");
}

TEST_CASE("offer cache: bounded by entries and bytes, oldest first", "[offer_cache]") {
  offer_cache::limits lim;
  lim.max_entries = 2;
  lim.max_bytes = 20;
  offer_cache cache{lim};
  auto t0 = offer_cache::clock_type::time_point{} + 1000s;
  cache.put(key("a.com"), "1", t0);
  cache.put(key("b.com"), "2", t0 + 1s);
  cache.put(key("c.com"), "3", t0 + 2s);
  CHECK(cache.size() == 2);
  CHECK_FALSE(cache.fresh(key("a.com"), t0 + 3s));
  CHECK(cache.fresh(key("c.com"), t0 + 3s));
  cache.put(key("d.com"), "0123456789", t0 + 3s);
  CHECK(cache.size() == 1);
  CHECK(cache.bytes() == 20);
  // An entry larger than the whole budget is not kept.
  cache.put(key("e.com"), std::string(11, 'x'), t0 + 4s);
  CHECK(cache.size() == 0);
  CHECK(cache.bytes() == 0);
}

TEST_CASE("offer cache: hits are served with the cached flag already in", "[offer_cache]") {
  offer_cache cache{offer_cache::limits{}};
  auto t0 = offer_cache::clock_type::time_point{} + 1000s;
  cache.put(key("a.com"), R"({"ok":true})", t0);
  CHECK(*cache.fresh(key("a.com"), t0) == R"({"ok":true,"cached":true})");
  // The stale path gets the body as first rendered, to add its own flags.
  CHECK(*cache.usable(key("a.com"), t0 + 200s)->body == R"({"ok":true})");
}
