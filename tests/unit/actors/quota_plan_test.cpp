// The quota actor's batch plan as pure functions: no actor, no store. The store's part is
// played by the results the test writes, as a store would answer the planned operations.
#include <catch2/catch.hpp>

#include <optional>
#include <vector>

#include "actors/quota_plan.hpp"
#include "support/rooms.hpp"
#include "support/dates.hpp"

using namespace netherscope::test;

namespace {

// 2026-11-22T12:00:00Z, the first second of December 2026, and of 13:00 that day.
constexpr std::int64_t nov_22_13h = nov_22 + 3600;

const quota_limits limits{2000, 20000, 200, 6400, 20};

std::optional<storage::key_record> key_of(std::uint64_t user, bool revoked = false) {
  storage::key_record record;
  record.user_id = user;
  record.revoked = revoked;
  return record;
}

/// What a store answers for an operation that found the counter at before.
storage::counter_result counted(const storage::counter_op& op, std::uint64_t before) {
  storage::counter_result result;
  if (op.mode == charge_mode::peek) {
    result.used = before;
  } else if (op.mode == charge_mode::refund) {
    result.granted = std::min(before, op.amount);
    result.used = before - result.granted;
  } else if (before >= op.limit) {
    result.used = before;
    result.refused = true;
  } else {
    result.granted = std::min(op.amount, op.limit - before);
    result.used = before + result.granted;
  }
  return result;
}

} // namespace

TEST_CASE("quota plan: only counted and looked-up calls with a key look it up", "[quota][plan]") {
  std::vector<quota_charge> charges{
    quota_charge::count_call(endpoint::info, "198.51.100.7", "hash-a"),
    quota_charge::count_call(endpoint::offer, "198.51.100.7", {}),
    quota_charge::count_call(endpoint::signin, "198.51.100.7", "hash-b"),
    quota_charge::refund_call(endpoint::offer, "198.51.100.7", "hash-c", {}),
    quota_charge::look_up(endpoint::offer, "198.51.100.8", "hash-d"),
  };
  auto lookups = keys_to_find(charges);
  CHECK(lookups.hashes == std::vector<std::string>{"hash-a", "hash-d"});
  REQUIRE(lookups.index.size() == charges.size());
  CHECK(lookups.index[0] == std::optional<std::size_t>{0});
  CHECK_FALSE(lookups.index[1]);
  CHECK_FALSE(lookups.index[2]);
  CHECK_FALSE(lookups.index[3]);
  CHECK(lookups.index[4] == std::optional<std::size_t>{1});
}

TEST_CASE("quota plan: a good key counts against its account, a bad one against the address "
          "and is refused",
          "[quota][plan]") {
  std::vector<quota_charge> charges{
    quota_charge::count_call(endpoint::offer, "198.51.100.7", "good"),
    quota_charge::count_call(endpoint::offer, "198.51.100.7", "revoked"),
    quota_charge::count_call(endpoint::offer, "198.51.100.7", "unknown"),
  };
  auto lookups = keys_to_find(charges);
  std::vector<std::optional<storage::key_record>> keys{key_of(42), key_of(43, true),
                                                       std::nullopt};
  auto plan = plan_batch(limits, charges, {}, {true, true, true}, {}, lookups, keys, nov_22);
  REQUIRE(plan.ops.size() == 3);
  CHECK(plan.ops[0].scope == "key");
  CHECK(plan.ops[0].subject == "42");
  CHECK(plan.ops[0].limit == 6400);
  CHECK(plan.ops[0].window == "2026-11");
  CHECK(plan.ops[0].expires_unix == dec_1);
  for (std::size_t i : {1, 2}) {
    CHECK(plan.ops[i].scope == "ip");
    CHECK(plan.ops[i].subject == "198.51.100.7");
    CHECK(plan.ops[i].limit == 200);
  }

  std::vector<storage::counter_result> results{counted(plan.ops[0], 10),
                                               counted(plan.ops[1], 0),
                                               counted(plan.ops[2], 1)};
  auto batch = read_batch(std::move(plan), charges, {true, true, true}, results, nov_22);
  REQUIRE(batch.verdicts.size() == 3);
  CHECK(batch.verdicts[0].error.ok());
  CHECK(batch.verdicts[0].scope == quota_scope::key);
  CHECK(batch.verdicts[0].user_id == 42);
  CHECK(batch.verdicts[0].remaining == 6400 - 11);
  CHECK(batch.verdicts[1].error.code == error_code::unauthorized);
  CHECK(batch.verdicts[1].error.message == "this API key was revoked");
  CHECK(batch.verdicts[1].scope == quota_scope::ip);
  CHECK(batch.verdicts[2].error.message == "unknown API key");
  CHECK(batch.verdicts[2].remaining == 200 - 2);
}

TEST_CASE("quota plan: calls counted ahead are capped at the limit's share and never shown "
          "as made",
          "[quota][plan]") {
  std::vector<quota_charge> charges{
    // A busy caller asking for more than its share: 6400 / 64 = 100 ahead at most.
    quota_charge::count_call(endpoint::offer, "198.51.100.7", "good"),
    // A refill without a caller counts only what it reserves.
    quota_charge::count_call(endpoint::offer, "198.51.100.8", {}),
    // A refill that may reserve nothing only looks.
    quota_charge::count_call(endpoint::offer, "198.51.100.9", {}),
    // A key that does not work reserves nothing on the address it falls back to.
    quota_charge::count_call(endpoint::offer, "198.51.100.10", "unknown"),
  };
  auto lookups = keys_to_find(charges);
  std::vector<std::optional<storage::key_record>> keys{key_of(42), std::nullopt};
  std::vector<bool> with_caller{true, false, false, true};
  auto plan = plan_batch(limits, charges, {500, 3, 0, 50}, with_caller, {}, lookups, keys,
                         nov_22);
  REQUIRE(plan.ops.size() == 4);
  CHECK(plan.ops[0].amount == 1 + 100);
  CHECK(plan.ops[1].amount == 3);
  CHECK(plan.ops[1].mode == charge_mode::count);
  CHECK(plan.ops[2].mode == charge_mode::peek);
  CHECK(plan.ops[3].amount == 1);

  std::vector<storage::counter_result> results;
  for (auto& op : plan.ops)
    results.push_back(counted(op, 5));
  auto batch = read_batch(std::move(plan), charges, with_caller, results, nov_22);
  CHECK(batch.reserved == std::vector<std::uint64_t>{100, 3, 0, 0});
  // The store's counter holds 5 + 101; the caller has made 6 calls.
  CHECK(batch.results[0].used == 106);
  CHECK(batch.verdicts[0].remaining == 6400 - 6);
  CHECK(batch.verdicts[1].remaining == 200 - 5);
  CHECK(batch.verdicts[2].remaining == 200 - 5);
}

TEST_CASE("quota plan: give-backs go ahead of the charges, and a full counter refuses until "
          "the month ends",
          "[quota][plan]") {
  storage::counter_op give_back;
  give_back.endpoint = "offer";
  give_back.scope = "ip";
  give_back.subject = "198.51.100.7";
  give_back.window = "2026-11";
  give_back.limit = 200;
  give_back.mode = charge_mode::refund;
  give_back.amount = 3;
  std::vector<quota_charge> charges{quota_charge::count_call(endpoint::offer, "198.51.100.7", {})};
  auto plan = plan_batch(limits, charges, {}, {true}, {give_back}, keys_to_find(charges), {},
                         nov_22);
  REQUIRE(plan.ops.size() == 2);
  CHECK(plan.give_backs == 1);
  CHECK(plan.ops[0].mode == charge_mode::refund);
  CHECK(plan.ops[1].mode == charge_mode::count);

  std::vector<storage::counter_result> results{counted(plan.ops[0], 200), {200, true, 0}};
  auto batch = read_batch(std::move(plan), charges, {true}, results, nov_22);
  REQUIRE(batch.verdicts.size() == 1);
  REQUIRE(batch.counters.size() == 1);
  CHECK(batch.counters[0].mode == charge_mode::count);
  auto& refused = batch.verdicts[0];
  CHECK(refused.error.code == error_code::quota_exhausted);
  CHECK(refused.remaining == 0);
  CHECK(refused.error.retry_after == dec_1 - nov_22);
}

TEST_CASE("quota plan: a refund goes to the counter and month its charge named", "[quota][plan]") {
  quota_verdict charged;
  charged.scope = quota_scope::key;
  charged.user_id = 42;
  charged.reset = dec_1;
  auto refund = quota_charge::refund_call(endpoint::offer, "198.51.100.7", "hash", charged);
  auto month = storage::window_of(dec_1 + 5);
  auto planned = plan_charge(limits, refund, nullptr, dec_1 + 5, month);
  CHECK(planned.op.mode == charge_mode::refund);
  CHECK(planned.op.scope == "key");
  CHECK(planned.op.subject == "42");
  CHECK(planned.op.window == "2026-11");
  CHECK(planned.op.expires_unix == dec_1);
  CHECK(planned.user_id == 42);
}

TEST_CASE("quota plan: sign-ins count per address and hour against their own limit",
          "[quota][plan]") {
  auto signin = quota_charge::count_call(endpoint::signin, "198.51.100.7", {});
  auto planned = plan_charge(limits, signin, nullptr, nov_22, storage::window_of(nov_22));
  CHECK(planned.op.endpoint == "signin");
  CHECK(planned.op.scope == "ip");
  CHECK(planned.op.limit == 20);
  CHECK(planned.op.window == "2026-11-22T12");
  CHECK(planned.op.expires_unix == nov_22_13h);
  auto verdict = verdict_of(signin, planned, {20, true, 0}, nov_22 + 600);
  CHECK(verdict.error.code == error_code::signin_rate_limited);
  CHECK(verdict.error.retry_after == 3000);
}

TEST_CASE("quota plan: a failed store answers every charge unavailable with what is known",
          "[quota][plan]") {
  std::vector<quota_charge> charges{
    quota_charge::count_call(endpoint::info, "198.51.100.7", {}),
    quota_charge::count_call(endpoint::offer, "198.51.100.7", "hash"),
  };
  auto batch = failed_batch(charges, limits, nov_22);
  CHECK(batch.failed);
  CHECK(batch.results.empty());
  REQUIRE(batch.verdicts.size() == 2);
  for (auto& verdict : batch.verdicts) {
    CHECK(verdict.error.code == error_code::unavailable);
    CHECK(verdict.reset == dec_1);
  }
  CHECK(batch.verdicts[0].scope == quota_scope::ip);
  CHECK(batch.verdicts[0].limit == 2000);
  CHECK(batch.verdicts[1].scope == quota_scope::key);
  CHECK(batch.verdicts[1].limit == 6400);
}
