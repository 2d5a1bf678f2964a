// The offer cache: its bookkeeping with plain values, the fields it adds to a body, and the
// cache actor with injected clocks in front of a registry that answers from a script.
#include <catch2/catch.hpp>

#include <atomic>
#include <memory>

#include <boost/json.hpp>
#include <caf/all.hpp>

#include "actors/cache_actor.hpp"
#include "actors/offer_cache.hpp"
#include "core/api_json.hpp"
#include "base/text.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

target cache_key(std::string host, std::uint16_t port = 19132, tls_mode tls = tls_mode::auto_detect) {
  return target{std::move(host), port, tls};
}

// 2026-11-22T12:00:00Z.
constexpr std::int64_t nov_22_noon = 1795348800;
const auto wall_noon = offer_cache::wall_clock::time_point{std::chrono::seconds{nov_22_noon}};
const auto t0 = offer_cache::clock_type::time_point{} + 1000s;

boost::json::object parsed(const std::string& body) {
  boost::system::error_code ec;
  auto value = boost::json::parse(body, ec);
  REQUIRE_FALSE(ec);
  REQUIRE(value.is_object());
  return value.as_object();
}

// A body in render_offer's shape (two candidates, one warning), for splicing into.
const std::string offer_body
  = R"({"ok":true,"answer":"v=0","candidates":[{"transport":"UDP","port":40000},)"
    R"({"transport":"tcp","port":19132}],"exhausted":false,"warnings":["w"]})";

} // namespace

// -- the fields the cache adds ------------------------------------------------

TEST_CASE("cache fields: RFC 3339 UTC timestamps with second precision", "[offer_cache]") {
  CHECK(base::rfc3339_utc(0) == "1970-01-01T00:00:00Z");
  CHECK(base::rfc3339_utc(nov_22_noon) == "2026-11-22T12:00:00Z");
  CHECK(base::rfc3339_utc(nov_22_noon + 3600 * 26 + 65) == "2026-11-23T14:01:05Z");
  // The last second of a leap-year February, and of a year.
  CHECK(base::rfc3339_utc(1835481599) == "2028-02-29T23:59:59Z");
  CHECK(base::rfc3339_utc(1798761599) == "2026-12-31T23:59:59Z");
}

TEST_CASE("cache fields: fresh replies get retrievedAt only, cached ones expiresAt too",
          "[offer_cache]") {
  auto fresh = parsed(core::with_cache_fields(offer_body, {false, false, nov_22_noon, 0}));
  CHECK(fresh.at("retrievedAt") == "2026-11-22T12:00:00Z");
  CHECK_FALSE(fresh.contains("expiresAt"));
  CHECK_FALSE(fresh.contains("cached"));
  CHECK_FALSE(fresh.contains("stale"));
  // The rest of the body is untouched.
  fresh.erase("retrievedAt");
  CHECK(fresh == parsed(offer_body));

  auto expires = nov_22_noon + 120;
  auto hit = parsed(core::with_cache_fields(offer_body, {true, false, nov_22_noon, expires}));
  CHECK(hit.at("cached") == true);
  CHECK_FALSE(hit.contains("stale"));
  CHECK(hit.at("retrievedAt") == "2026-11-22T12:00:00Z");
  CHECK(hit.at("expiresAt") == "2026-11-22T12:02:00Z");

  auto stale = parsed(core::with_cache_fields(offer_body, {true, true, nov_22_noon, expires}));
  CHECK(stale.at("cached") == true);
  CHECK(stale.at("stale") == true);
  CHECK(stale.at("expiresAt") == "2026-11-22T12:02:00Z");

  // Not an object body: nothing to splice into, so nothing is added.
  CHECK(core::with_cache_fields("not json", {true, true, 0, 0}) == "not json");
  CHECK(core::with_cache_fields("", {true, true, 0, 0}).empty());
}

// -- bookkeeping ----------------------------------------------------------------

TEST_CASE("offer cache: entries are fresh for 120 s", "[offer_cache]") {
  offer_cache cache{offer_cache::limits{}};
  cache.put(cache_key("a.com"), "body", t0, wall_noon);
  auto hit = cache.fresh(cache_key("a.com"), t0 + 119s);
  REQUIRE(hit);
  CHECK(*hit->body == "body");
  CHECK_FALSE(cache.fresh(cache_key("a.com"), t0 + 120s));
  CHECK_FALSE(cache.fresh(cache_key("b.com"), t0));
}

TEST_CASE("offer cache: an oversized answer is not kept", "[offer_cache]") {
  offer_cache cache{offer_cache::limits{}};
  cache.put(cache_key("small.com"), "small", t0, wall_noon);
  cache.put(cache_key("huge.com"), std::string(300 * 1024, 'x'), t0, wall_noon);
  CHECK_FALSE(cache.fresh(cache_key("huge.com"), t0));
  // And it pushed nothing else out.
  CHECK(cache.fresh(cache_key("small.com"), t0));
}

TEST_CASE("offer cache: the key is host, port and tls mode", "[offer_cache]") {
  offer_cache cache{offer_cache::limits{}};
  cache.put(cache_key("a.com"), "auto", t0, wall_noon);
  CHECK_FALSE(cache.fresh(cache_key("a.com", 19133), t0));
  CHECK_FALSE(cache.fresh(cache_key("a.com", 19132, tls_mode::on), t0));
  cache.put(cache_key("a.com", 19132, tls_mode::on), "on", t0, wall_noon);
  CHECK(*cache.fresh(cache_key("a.com", 19132, tls_mode::on), t0)->body == "on");
  CHECK(*cache.fresh(cache_key("a.com"), t0)->body == "auto");
}

TEST_CASE("offer cache: the age of a hit is whole seconds since it was stored",
          "[offer_cache]") {
  offer_cache cache{offer_cache::limits{}};
  cache.put(cache_key("a.com"), offer_body, t0, wall_noon);
  CHECK(cache.fresh(cache_key("a.com"), t0)->age == 0);
  CHECK(cache.fresh(cache_key("a.com"), t0 + 999ms)->age == 0);
  CHECK(cache.fresh(cache_key("a.com"), t0 + 1s)->age == 1);
  CHECK(cache.fresh(cache_key("a.com"), t0 + 119999ms)->age == 119);
  // The hit body carries the times, the same on every hit.
  auto body = parsed(*cache.fresh(cache_key("a.com"), t0 + 60s)->body);
  CHECK(body.at("cached") == true);
  CHECK(body.at("retrievedAt") == "2026-11-22T12:00:00Z");
  CHECK(body.at("expiresAt") == "2026-11-22T12:02:00Z");
  CHECK_FALSE(body.contains("stale"));
}

TEST_CASE("offer cache: stale window of 10 minutes", "[offer_cache]") {
  offer_cache cache{offer_cache::limits{}};
  cache.put(cache_key("a.com"), offer_body, t0, wall_noon);
  // Within its lifetime: stale only because the refresh failed.
  auto entry = cache.usable(cache_key("a.com"), t0 + 60s, false);
  REQUIRE(entry);
  CHECK_FALSE(entry->stale);
  CHECK(entry->age == 60);
  CHECK_FALSE(parsed(entry->body).contains("stale"));
  entry = cache.usable(cache_key("a.com"), t0 + 60s, true);
  REQUIRE(entry);
  CHECK(entry->stale);
  CHECK(parsed(entry->body).at("stale") == true);
  // Past its lifetime it is stale either way, and its expiresAt lies in the past.
  entry = cache.usable(cache_key("a.com"), t0 + 599s, false);
  REQUIRE(entry);
  CHECK(entry->stale);
  CHECK(entry->age == 599);
  auto body = parsed(entry->body);
  CHECK(body.at("cached") == true);
  CHECK(body.at("stale") == true);
  CHECK(body.at("retrievedAt") == "2026-11-22T12:00:00Z");
  CHECK(body.at("expiresAt") == "2026-11-22T12:02:00Z");
  CHECK_FALSE(cache.usable(cache_key("a.com"), t0 + 600s, true));
  cache.expire(t0 + 600s);
  CHECK(cache.size() == 0);
  CHECK(cache.bytes() == 0);
}

TEST_CASE("offer cache: a refresh replaces the entry and its age", "[offer_cache]") {
  offer_cache cache{offer_cache::limits{}};
  cache.put(cache_key("a.com"), "old", t0, wall_noon);
  cache.put(cache_key("a.com"), "new!", t0 + 100s, wall_noon + 100s);
  CHECK(cache.size() == 1);
  CHECK(cache.bytes() == 8); // the body and its hit form (the same text here: not JSON)
  auto hit = cache.fresh(cache_key("a.com"), t0 + 150s);
  REQUIRE(hit);
  CHECK(*hit->body == "new!");
  CHECK(hit->age == 50);
}

TEST_CASE("offer cache: bounded by entries and bytes, oldest first", "[offer_cache]") {
  offer_cache::limits lim;
  lim.max_entries = 2;
  lim.max_bytes = 20;
  offer_cache cache{lim};
  cache.put(cache_key("a.com"), "1", t0, wall_noon);
  cache.put(cache_key("b.com"), "2", t0 + 1s, wall_noon);
  cache.put(cache_key("c.com"), "3", t0 + 2s, wall_noon);
  CHECK(cache.size() == 2);
  CHECK_FALSE(cache.fresh(cache_key("a.com"), t0 + 3s));
  CHECK(cache.fresh(cache_key("c.com"), t0 + 3s));
  cache.put(cache_key("d.com"), "0123456789", t0 + 3s, wall_noon);
  CHECK(cache.size() == 1);
  CHECK(cache.bytes() == 20);
  // An entry larger than the whole budget is not kept.
  cache.put(cache_key("e.com"), std::string(11, 'x'), t0 + 4s, wall_noon);
  CHECK(cache.size() == 0);
  CHECK(cache.bytes() == 0);
}

// -- the actor --------------------------------------------------------------------

namespace {

/// What the scripted registry answers with next, and how often it was asked.
struct script {
  std::atomic<int> offers{0};
  /// error_code::none for an answer, else the failure to answer with.
  std::atomic<error_code> fail{error_code::none};
};

// Stands in for the probes: the cache actor is the unit under test here, and its times can
// only be checked with clocks the test moves (the end-to-end tests cover the real probes).
probe_registry_actor::behavior_type scripted_registry(probe_registry_actor::pointer,
                                                      std::shared_ptr<script> s) {
  return {
    [](info_atom, const target&) { return info_reply{}; },
    [](raknet_atom, const target&, std::uint16_t) { return raknet_reply{}; },
    [s](offer_atom, const target&, const std::string&, bool) {
      offer_reply reply;
      auto n = ++s->offers;
      if (s->fail != error_code::none)
        reply.error = make_failure(s->fail.load(), "scripted failure");
      else
        reply.body = R"({"ok":true,"answer":"v=0 )" + std::to_string(n) + R"(","warnings":[]})";
      return reply;
    },
    // The cache never asks for joins.
    [](join_atom, const target&, const netherscope::core::join_order&) {
      return netherscope::core::join_result{};
    },
    [](idle_atom, const probe_actor&, std::uint64_t) {
      // nop
    },
    [](count_atom) { return std::uint64_t{0}; },
  };
}

struct cache_fixture {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> system;
  std::shared_ptr<script> registry_script = std::make_shared<script>();
  /// Seconds since the test began, on both clocks.
  std::shared_ptr<std::atomic<std::int64_t>> elapsed
    = std::make_shared<std::atomic<std::int64_t>>(0);
  probe_registry_actor registry;
  cache_actor actor;

  cache_fixture() {
    cfg.set("scheduler.max-threads", 2);
    system = std::make_unique<caf::actor_system>(cfg);
    registry = system->spawn(scripted_registry, registry_script);
    cache_settings settings;
    auto e = elapsed;
    settings.now = [e] { return t0 + std::chrono::seconds{e->load()}; };
    settings.wall_now = [e] { return wall_noon + std::chrono::seconds{e->load()}; };
    actor = system->spawn(cache, registry, std::move(settings));
  }

  ~cache_fixture() {
    caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(registry, caf::exit_reason::user_shutdown);
  }

  offer_reply offer(bool fresh = false) {
    caf::scoped_actor self{*system};
    offer_reply result;
    offer_request req{cache_key("a.com"), "1", fresh, {}};
    self->request(actor, caf::infinite, offer_atom::value, std::move(req))
      .receive([&](offer_reply& r) { result = std::move(r); },
               [&](caf::error& err) { FAIL("error reply: " << caf::to_string(err)); });
    return result;
  }
};

} // namespace

TEST_CASE("cache actor: fresh, hit and stale replies say when they were retrieved",
          "[offer_cache]") {
  cache_fixture f;
  auto first = f.offer();
  REQUIRE(first.error.ok());
  CHECK_FALSE(first.cached);
  CHECK(first.age == -1);
  auto body = parsed(first.body);
  CHECK(body.at("retrievedAt") == "2026-11-22T12:00:00Z");
  CHECK_FALSE(body.contains("expiresAt"));
  CHECK_FALSE(body.contains("cached"));

  *f.elapsed = 30;
  auto hit = f.offer();
  REQUIRE(hit.error.ok());
  CHECK(hit.cached);
  CHECK_FALSE(hit.stale);
  CHECK(hit.age == 30);
  body = parsed(hit.body);
  CHECK(body.at("answer") == "v=0 1");
  CHECK(body.at("cached") == true);
  CHECK(body.at("retrievedAt") == "2026-11-22T12:00:00Z");
  CHECK(body.at("expiresAt") == "2026-11-22T12:02:00Z");
  CHECK(f.registry_script->offers == 1);

  // Past the lifetime the cache asks again; the target fails, so the old answer stands in,
  // stale, with an expiresAt in the past.
  *f.elapsed = 200;
  f.registry_script->fail = error_code::upstream_failure;
  auto stale = f.offer();
  REQUIRE(stale.error.ok());
  CHECK(f.registry_script->offers == 2);
  CHECK(stale.cached);
  CHECK(stale.stale);
  CHECK(stale.age == 200);
  body = parsed(stale.body);
  CHECK(body.at("answer") == "v=0 1");
  CHECK(body.at("stale") == true);
  CHECK(body.at("retrievedAt") == "2026-11-22T12:00:00Z");
  CHECK(body.at("expiresAt") == "2026-11-22T12:02:00Z");

  // A refresh that succeeds starts a new entry with the time it was fetched.
  f.registry_script->fail = error_code::none;
  *f.elapsed = 250;
  auto renewed = f.offer(true);
  REQUIRE(renewed.error.ok());
  CHECK_FALSE(renewed.cached);
  CHECK(renewed.age == -1);
  CHECK(parsed(renewed.body).at("retrievedAt") == "2026-11-22T12:04:10Z");
  *f.elapsed = 251;
  auto after = f.offer();
  CHECK(after.age == 1);
  CHECK(parsed(after.body).at("expiresAt") == "2026-11-22T12:06:10Z");
}

TEST_CASE("cache actor: at the per-target limit a young entry is a plain hit",
          "[offer_cache]") {
  cache_fixture f;
  REQUIRE(f.offer().error.ok());
  *f.elapsed = 40;
  f.registry_script->fail = error_code::target_rate_limited;
  auto limited = f.offer(true);
  REQUIRE(limited.error.ok());
  CHECK(f.registry_script->offers == 2);
  CHECK(limited.cached);
  CHECK_FALSE(limited.stale);
  CHECK(limited.age == 40);
  auto body = parsed(limited.body);
  CHECK_FALSE(body.contains("stale"));
  CHECK(body.at("expiresAt") == "2026-11-22T12:02:00Z");

  // Without an entry the failure itself comes back.
  cache_fixture empty;
  empty.registry_script->fail = error_code::target_rate_limited;
  CHECK(empty.offer().error.code == error_code::target_rate_limited);
}
