// What the store remembers about targets: records, decisions, a real LMDB file, and the
// memory actor over it.
#include <catch2/catch.hpp>

#include <atomic>

#include <caf/all.hpp>

#include "actors/target_memory_actor.hpp"
#include "storage/target_records.hpp"
#include "support/process.hpp"
#include "support/store.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using storage::fetch_outcome;
using change = target_memory_update::scheme_change;

namespace {

constexpr std::int64_t now = 1795348800; // 2026-11-22T12:00:00Z
constexpr std::int64_t hour = 3600;
const std::string key_a(64, 'a');
const std::string key_b(64, 'b');

target_memory remembered(remembered_scheme scheme, std::int64_t expires) {
  target_memory m;
  m.scheme = scheme;
  m.scheme_expires = expires;
  return m;
}

/// The LMDB store in a temp dir, as the service opens it.
struct store_fixture {
  test::temp_dir dir;
  std::shared_ptr<storage::store> store = test::open_lmdb(dir.path()).store;

  target_memory recall(const std::string& host, std::uint16_t port, std::int64_t at) {
    auto m = store->recall_target(host, port, at);
    REQUIRE(m);
    return *m;
  }

  void apply(const std::string& host, std::uint16_t port, const target_memory_update& u,
             std::int64_t at) {
    REQUIRE_FALSE(store->remember_target(host, port, u, at));
  }

  std::size_t sweep(std::int64_t at, std::size_t limit) {
    auto swept = store->sweep_targets(at, limit);
    REQUIRE(swept);
    return *swept;
  }
};

target_memory_update store_scheme(remembered_scheme scheme, std::int64_t expires) {
  target_memory_update u;
  u.change = change::store;
  u.scheme = scheme;
  u.scheme_expires = expires;
  return u;
}

} // namespace

TEST_CASE("target records: encoded with a version byte and fixed-width integers",
          "[target_records]") {
  auto scheme = storage::encode(storage::scheme_record{remembered_scheme::plain, now + hour});
  // version, scheme, u64 expiry: the layout is the contract with older and newer builds.
  REQUIRE(scheme.size() == 1 + 1 + 8);
  CHECK(scheme[0] == 1);
  auto decoded = storage::decode_scheme(scheme);
  REQUIRE(decoded);
  CHECK(decoded->scheme == remembered_scheme::plain);
  CHECK(decoded->expires_unix == now + hour);

  auto key = storage::encode(storage::identity_key_record{key_a, now});
  REQUIRE(key.size() == 1 + 8 + 64);
  auto key_decoded = storage::decode_identity_key(key);
  REQUIRE(key_decoded);
  CHECK(key_decoded->key_sha256 == key_a);
  CHECK(key_decoded->since_unix == now);

  CHECK(storage::scheme_record_key("example.com", 19132) == "s|example.com|19132");
  CHECK(storage::identity_record_key("::1", 443) == "i|::1|443");
}

TEST_CASE("target records: other versions and damaged values are refused", "[target_records]") {
  auto scheme = storage::encode(storage::scheme_record{remembered_scheme::tls, now});
  auto other_version = scheme;
  other_version[0] = 2;
  CHECK_FALSE(storage::decode_scheme(other_version));
  CHECK_FALSE(storage::decode_scheme(scheme.substr(0, scheme.size() - 1)));
  CHECK_FALSE(storage::decode_scheme(scheme + "x"));
  CHECK_FALSE(storage::decode_scheme(""));
  auto unknown_scheme = scheme;
  unknown_scheme[1] = 0; // remembered_scheme::unknown is never stored
  CHECK_FALSE(storage::decode_scheme(unknown_scheme));
  unknown_scheme[1] = 9;
  CHECK_FALSE(storage::decode_scheme(unknown_scheme));

  auto key = storage::encode(storage::identity_key_record{key_a, now});
  CHECK_FALSE(storage::decode_identity_key(key.substr(0, key.size() - 1)));
  CHECK_FALSE(storage::decode_identity_key(key + "a"));
  auto key_other_version = key;
  key_other_version[0] = 7;
  CHECK_FALSE(storage::decode_identity_key(key_other_version));
}

TEST_CASE("target records: both stores read damaged and expired records as nothing, and sweep "
          "them",
          "[target_records]") {
  auto scheme = storage::encode(storage::scheme_record{remembered_scheme::tls, now + hour});
  auto key = storage::encode(storage::identity_key_record{key_a, now});
  auto m = storage::read_target_memory(scheme, key, now);
  CHECK(m.scheme == remembered_scheme::tls);
  CHECK(m.scheme_expires == now + hour);
  CHECK(m.key_sha256 == key_a);
  CHECK_FALSE(storage::scheme_record_stale(scheme, now));
  // Expired: the scheme reads unknown and is swept; the key stays.
  auto expired = storage::read_target_memory(scheme, key, now + hour);
  CHECK(expired.scheme == remembered_scheme::unknown);
  CHECK(expired.key_sha256 == key_a);
  CHECK(storage::scheme_record_stale(scheme, now + hour));
  // Damaged: read as nothing rather than failing the call, and swept.
  auto damaged = storage::read_target_memory(std::string_view{"\x01\x07garbage"},
                                             std::string_view{"\x01short"}, now);
  CHECK(damaged.scheme == remembered_scheme::unknown);
  CHECK(damaged.key_sha256.empty());
  CHECK(storage::scheme_record_stale("\x01\x07garbage", now));
  auto none = storage::read_target_memory(std::nullopt, std::nullopt, now);
  CHECK(none.scheme == remembered_scheme::unknown);
  CHECK(none.key_sha256.empty());
}

TEST_CASE("target records: what a call teaches about the scheme", "[target_records]") {
  auto plan = [](tls_mode mode, const target_memory& recalled, fetch_outcome outcome,
                 bool used_tls) {
    return storage::plan_scheme_update(mode, recalled, outcome, used_tls, now, hour);
  };
  target_memory nothing;

  SECTION("a first answer is stored for the memory's lifetime") {
    auto u = plan(tls_mode::auto_detect, nothing, fetch_outcome::answered, false);
    CHECK(u.change == change::store);
    CHECK(u.scheme == remembered_scheme::plain);
    CHECK(u.scheme_expires == now + hour);
    CHECK(plan(tls_mode::auto_detect, nothing, fetch_outcome::answered, true).scheme
          == remembered_scheme::tls);
  }
  SECTION("the same scheme with most of its lifetime left costs no write") {
    auto fresh = remembered(remembered_scheme::plain, now + hour - 60);
    CHECK(plan(tls_mode::auto_detect, fresh, fetch_outcome::answered, false).empty());
  }
  SECTION("the same scheme past half its lifetime is refreshed") {
    auto aging = remembered(remembered_scheme::tls, now + hour / 2 - 1);
    auto u = plan(tls_mode::auto_detect, aging, fetch_outcome::answered, true);
    CHECK(u.change == change::store);
    CHECK(u.scheme_expires == now + hour);
  }
  SECTION("a changed scheme replaces the remembered one") {
    auto was_tls = remembered(remembered_scheme::tls, now + hour);
    auto u = plan(tls_mode::auto_detect, was_tls, fetch_outcome::answered, false);
    CHECK(u.change == change::store);
    CHECK(u.scheme == remembered_scheme::plain);
  }
  SECTION("an unanswered call forgets a remembered scheme, and has nothing to forget else") {
    auto was_plain = remembered(remembered_scheme::plain, now + hour);
    CHECK(plan(tls_mode::auto_detect, was_plain, fetch_outcome::unanswered, false).change
          == change::forget);
    CHECK(plan(tls_mode::auto_detect, nothing, fetch_outcome::unanswered, false).empty());
  }
  SECTION("a call refused before sending teaches nothing") {
    auto was_plain = remembered(remembered_scheme::plain, now + hour);
    CHECK(plan(tls_mode::auto_detect, was_plain, fetch_outcome::not_tried, false).empty());
  }
  SECTION("forced schemes teach nothing, and neither does a memory turned off") {
    CHECK(plan(tls_mode::on, nothing, fetch_outcome::answered, true).empty());
    CHECK(plan(tls_mode::off, nothing, fetch_outcome::answered, false).empty());
    CHECK(storage::plan_scheme_update(tls_mode::auto_detect, nothing, fetch_outcome::answered,
                                      false, now, 0)
            .empty());
  }
}

TEST_CASE("target records: a real store remembers, expires and sweeps", "[target_records]") {
  store_fixture store;
  CHECK(store.recall("a.example", 1, now).scheme == remembered_scheme::unknown);

  store.apply("a.example", 1, store_scheme(remembered_scheme::plain, now + hour), now);
  auto key_update = target_memory_update{};
  key_update.key_sha256 = key_a;
  store.apply("a.example", 1, key_update, now);
  auto m = store.recall("a.example", 1, now + 10);
  CHECK(m.scheme == remembered_scheme::plain);
  CHECK(m.scheme_expires == now + hour);
  CHECK(m.key_sha256 == key_a);
  // The records are per (host, port).
  CHECK(store.recall("a.example", 2, now).scheme == remembered_scheme::unknown);
  CHECK(store.recall("a.example", 2, now).key_sha256.empty());

  // Past its expiry the scheme reads as unknown; the key stays.
  auto later = store.recall("a.example", 1, now + hour);
  CHECK(later.scheme == remembered_scheme::unknown);
  CHECK(later.key_sha256 == key_a);

  // Forgetting deletes the scheme only.
  store.apply("c.example", 1, store_scheme(remembered_scheme::tls, now + 2 * hour), now);
  target_memory_update forget;
  forget.change = change::forget;
  store.apply("a.example", 1, forget, now);
  CHECK(store.recall("a.example", 1, now).scheme == remembered_scheme::unknown);
  CHECK(store.recall("a.example", 1, now).key_sha256 == key_a);

  // The sweep deletes what expired, keeps the rest and every key. (What it does with damaged
  // records is scheme_record_stale's, above.)
  store.apply("a.example", 1, store_scheme(remembered_scheme::plain, now + 10), now);
  store.apply("b.example", 1, store_scheme(remembered_scheme::plain, now + 20), now);
  CHECK(store.sweep(now + hour, 100) == 2);
  CHECK(store.recall("c.example", 1, now + hour).scheme == remembered_scheme::tls);
  CHECK(store.recall("a.example", 1, now).scheme == remembered_scheme::unknown);
  CHECK(store.recall("a.example", 1, now).key_sha256 == key_a);

  // A sweep stops at its limit.
  for (std::uint16_t port = 10; port < 15; ++port)
    store.apply("d.example", port, store_scheme(remembered_scheme::plain, now), now);
  CHECK(store.sweep(now + 1, 3) == 3);
  CHECK(store.sweep(now + 1, 3) == 2);
  CHECK(store.sweep(now + 1, 3) == 0);
}

TEST_CASE("target memory actor: a recall sees what was remembered before it",
          "[target_records][actors]") {
  store_fixture store;
  auto clock = std::make_shared<std::atomic<std::int64_t>>(now);
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", 2);
  caf::actor_system system{cfg};
  memory_settings settings;
  settings.now = [clock] { return clock->load(); };
  settings.store = store.store;
  auto actor = system.spawn<caf::detached>(memory, settings);
  caf::scoped_actor self{system};

  auto recall = [&](const std::string& host) {
    target_memory out;
    self->request(actor, std::chrono::seconds(5), recall_atom::value, host, std::uint16_t{19132})
      .receive([&](target_memory& m) { out = std::move(m); },
               [&](caf::error& err) { FAIL(caf::to_string(err)); });
    return out;
  };

  CHECK(recall("a.example").scheme == remembered_scheme::unknown);
  // remember is one-way; the recall sent after it is handled after it, so it sees the write.
  auto update = store_scheme(remembered_scheme::tls, now + hour);
  update.key_sha256 = key_b;
  self->send(actor, remember_atom::value, std::string{"a.example"}, std::uint16_t{19132}, update);
  auto m = recall("a.example");
  CHECK(m.scheme == remembered_scheme::tls);
  CHECK(m.key_sha256 == key_b);
  // The clock decides expiry.
  clock->store(now + hour + 1);
  CHECK(recall("a.example").scheme == remembered_scheme::unknown);
  CHECK(recall("a.example").key_sha256 == key_b);
  caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
}
