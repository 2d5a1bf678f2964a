// The outcome of an offer call, as both of its paths build it and the edge finishes it.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include <boost/json/parse.hpp>

#include "core/offer_outcome.hpp"
#include "core/telemetry.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

const std::string answer
  = R"({"ok":true,"candidates":[{"transport":"udp","port":19132,"address":"192.0.2.1"}]})";

quota_verdict allowed() {
  quota_verdict verdict;
  verdict.limit = 10;
  verdict.remaining = 9;
  return verdict;
}

} // namespace

TEST_CASE("offer outcome: a served body is shared untouched, with its age and the quota",
          "[offer]") {
  auto body = std::make_shared<const std::string>(answer);
  auto outcome = offer_outcome(allowed(), {}, std::shared_ptr<const std::string>{body}, 42, {});
  CHECK(outcome.error.ok());
  CHECK(outcome.shared_body == body);
  CHECK(outcome.body.empty());
  CHECK(outcome.age == 42);
  CHECK(outcome.has_quota);
  CHECK(outcome.quota.remaining == 9);
  finish_offer(outcome);
  CHECK(outcome.shared_body == body);
}

TEST_CASE("offer outcome: a refused charge serves nothing and shows its refusal", "[offer]") {
  auto verdict = allowed();
  verdict.remaining = 0;
  verdict.error = make_failure(error_code::quota_exhausted, "monthly quota exhausted");
  auto outcome = offer_outcome(std::move(verdict), {},
                               std::make_shared<const std::string>(answer), 3, {19133});
  CHECK(outcome.error.code == error_code::quota_exhausted);
  CHECK_FALSE(outcome.shared_body);
  CHECK(outcome.age == -1);
  CHECK(outcome.expect_ports.empty());
  CHECK(outcome.quota.remaining == 0);
}

TEST_CASE("offer outcome: the target's failure is the answer when the charge went through",
          "[offer]") {
  auto outcome = offer_outcome(allowed(), make_failure(error_code::upstream_timeout, "slow"),
                               nullptr, -1, {19132});
  CHECK(outcome.error.code == error_code::upstream_timeout);
  CHECK(outcome.has_quota);
  finish_offer(outcome);
  CHECK(outcome.body.empty());
}

TEST_CASE("offer outcome: the edge adds the warning for unused expected ports when it "
          "finishes the outcome",
          "[offer]") {
  auto body = std::make_shared<const std::string>(answer);
  auto used = offer_outcome(allowed(), {}, std::shared_ptr<const std::string>{body}, 0, {19132});
  finish_offer(used);
  CHECK(used.body == answer);
  CHECK_FALSE(used.shared_body);

  auto unused = offer_outcome(allowed(), {}, std::shared_ptr<const std::string>{body}, 0, {19133});
  CHECK(unused.shared_body == body);
  finish_offer(unused);
  auto parsed = boost::json::parse(unused.body).as_object();
  CHECK(parsed.at("warningCodes").as_array().at(0).as_string() == "expected_ports_unused");
  // The shared body, which the hit boards hold, is not touched.
  CHECK(*body == answer);
}

TEST_CASE("offer outcome: a board hit is counted by the edge, once, and only when served",
          "[offer]") {
  auto before = process_telemetry().cache_hits();
  auto hit = offer_outcome(allowed(), {}, std::make_shared<const std::string>(answer), 0, {});
  hit.board_hit = true;
  finish_offer(hit);
  CHECK(process_telemetry().cache_hits() == before + 1);

  auto verdict = allowed();
  verdict.error = make_failure(error_code::unauthorized, "unknown API key");
  auto refused = offer_outcome(std::move(verdict), {}, std::make_shared<const std::string>(answer),
                               0, {});
  refused.board_hit = true;
  finish_offer(refused);
  CHECK(process_telemetry().cache_hits() == before + 1);
}
