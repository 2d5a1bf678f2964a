// The front and quota actors on the error paths of the edge: a request refused before it became
// a call only looks up where its caller stands, and a store that fails still tells the caller
// its limit. Real actors over a real LMDB file; the other peers of the front are never asked.
#include <catch2/catch.hpp>

#include <chrono>
#include <future>

#include <caf/all.hpp>

#include "actors/front_actor.hpp"
#include "actors/quota_actor.hpp"
#include "core/api_key.hpp"
#include "storage/records.hpp"
#include "support/process.hpp"
#include "support/store.hpp"
#include "support/rooms.hpp"
#include "support/dates.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

// 2026-11-22T12:00:00Z, and the first second of December.

constexpr const char* client = "198.51.100.7";

/// An actor system, a store in a temp dir, a quota actor and a front that asks only it.
struct front_fixture {
  test::temp_dir dir;
  std::shared_ptr<storage::store> store;
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> system;
  quota_actor quotas;
  front_actor front_;
  quota_limits limits{3, 5, 2, 4};

  front_fixture() {
    store = test::open_lmdb(dir.path()).store;
    cfg.set("scheduler.max-threads", 2);
    system = std::make_unique<caf::actor_system>(cfg);
    quotas = system->spawn<caf::detached>(quota_on, store,
                                          quota_settings{limits, [] { return nov_22; }});
    front_peers peers;
    peers.quotas = quotas;
    front_ = system->spawn(front, peers, front_settings{});
  }

  ~front_fixture() {
    caf::anon_send_exit(front_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(quotas, caf::exit_reason::user_shutdown);
  }

  /// Sends a call to the front and waits for its outcome.
  api_outcome send(api_call call) {
    auto promise = std::make_shared<std::promise<api_outcome>>();
    auto result = promise->get_future();
    call.reply = [promise](api_outcome&& outcome) { promise->set_value(std::move(outcome)); };
    caf::anon_send(front_, std::move(call));
    REQUIRE(result.wait_for(10s) == std::future_status::ready);
    return result.get();
  }

  /// An info call with invalid input: counted, then refused.
  api_outcome invalid_info(const std::string& key_hash = {}) {
    api_call call;
    call.kind = call_kind::info;
    call.client = client;
    call.key_hash = key_hash;
    call.invalid = make_failure(error_code::invalid_input, "host is required");
    return send(std::move(call));
  }

  /// A request the edge refused before routing it, on the route of the given kind.
  api_outcome refused(call_kind kind, failure why, const std::string& key_hash = {}) {
    api_call call;
    call.kind = kind;
    call.client = client;
    call.key_hash = key_hash;
    call.peek = true;
    call.invalid = std::move(why);
    return send(std::move(call));
  }

  /// Leaves an unreadable counter where this month's info calls of the client are counted,
  /// as a store damaged on disk would.
  void corrupt_info_counter() {
    auto key = storage::usage_key("info", "ip", client, storage::window_of(nov_22).label);
    test::in_records(*store, true, [&](storage::record_txn& t) {
      REQUIRE_FALSE(t.put(storage::record_table::usage, key, "not a counter"));
    });
  }
};

} // namespace

TEST_CASE("front: a refused request shows the quota and counts nothing", "[quota][front]") {
  front_fixture f;
  CHECK(f.invalid_info().quota.remaining == 2);
  auto refused = f.refused(call_kind::info,
                           make_failure(error_code::invalid_input, "not a valid path"));
  CHECK(refused.error.code == error_code::invalid_input);
  REQUIRE(refused.has_quota);
  CHECK(refused.quota.scope == quota_scope::ip);
  CHECK(refused.quota.limit == 3);
  CHECK(refused.quota.remaining == 2);
  CHECK(refused.quota.reset == dec_1);
  // Nothing was counted: the next counted call sees the same standing, less itself.
  CHECK(f.invalid_info().quota.remaining == 1);
  // Offers have their own quota.
  auto offer = f.refused(call_kind::offer, make_failure(error_code::unavailable, "draining"));
  CHECK(offer.error.code == error_code::unavailable);
  CHECK(offer.quota.limit == 2);
  CHECK(offer.quota.remaining == 2);
}

TEST_CASE("front: a refused request keeps the edge's error over the key's", "[quota][front]") {
  front_fixture f;
  auto unknown_key = core::hash_api_key("nsk_not_issued");
  // A counted call with this key is a 401 charged to the address...
  CHECK(f.invalid_info(unknown_key).error.code == error_code::unauthorized);
  // ...but a request refused at the edge is answered with the edge's error, and shows the
  // address's quota without counting.
  auto refused = f.refused(call_kind::info, make_failure(error_code::uri_too_long, "long"),
                           unknown_key);
  CHECK(refused.error.code == error_code::uri_too_long);
  REQUIRE(refused.has_quota);
  CHECK(refused.quota.scope == quota_scope::ip);
  CHECK(refused.quota.remaining == 2);
}

TEST_CASE("front: a store failure is 503 with the limit and reset, nothing counted",
          "[quota][front]") {
  front_fixture f;
  f.corrupt_info_counter();
  auto outcome = f.invalid_info();
  CHECK(outcome.error.code == error_code::unavailable);
  REQUIRE(outcome.has_quota);
  CHECK(outcome.quota.error.code == error_code::unavailable);
  CHECK(outcome.quota.scope == quota_scope::ip);
  CHECK(outcome.quota.limit == 3);
  CHECK(outcome.quota.reset == dec_1);
  // With a key the call asked for the key's quota, and that limit is what is shown: whether
  // the key is good can be what the store failed to read.
  auto keyed = f.invalid_info(core::hash_api_key("nsk_any"));
  CHECK(keyed.error.code == error_code::unavailable);
  CHECK(keyed.quota.scope == quota_scope::key);
  CHECK(keyed.quota.limit == 5);
  // A refused request on a broken store still names the edge's error and the limit.
  auto refused = f.refused(call_kind::info, make_failure(error_code::invalid_input, "bad"));
  CHECK(refused.error.code == error_code::invalid_input);
  CHECK(refused.quota.limit == 3);
  // Other quotas are untouched by the broken counter.
  CHECK(f.refused(call_kind::offer, make_failure(error_code::invalid_input, "bad"))
          .quota.error.ok());
}
