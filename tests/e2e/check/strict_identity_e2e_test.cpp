// End to end: a strict, Pumpkin-style identity check (the token's cpk must be a base64 DER
// string) accepts the service's offer, and really refuses a JWK cpk. The fake target runs
// with --identity strict; the service and the fake are real processes on loopback.
#include <catch2/catch.hpp>

#include <string>

#include <boost/json.hpp>

#include "support/http.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace json = boost::json;

namespace {

// Posts an SDP straight to a fake target's signalling route, as a client would.
http_reply post_sdp(const fake_target_process& fake, const std::string& sdp) {
  return http_request(fake.port(), "POST", "/v1/join/12345",
                      {{"Content-Type", "application/sdp"}}, sdp, 10s);
}

// The SDP answer a fake target gives the service, for use as an offer elsewhere. The fake's
// answers are complete data-channel SDPs with a self-signed a=identity over their own
// fingerprint, in the cpk form --cpk names: a real, signed JWK-cpk identity without
// hand-rolled crypto in the test.
std::string answer_from(fake_target_process& fake, const service_process& svc) {
  auto reply = post_offer(svc, fake.port());
  INFO("status " << reply.status << ": " << reply.body);
  REQUIRE(reply.status == 200);
  auto body = body_of(reply);
  REQUIRE(body.contains("answer"));
  return std::string{body.at("answer").as_string()};
}

} // namespace

TEST_CASE("strict identity e2e: a Pumpkin-style strict server answers our offer",
          "[e2e][strict_identity]") {
  service_process svc;
  for (auto style : {"pumpkin", "bds", "go"}) {
    fake_target_process strict{{"--identity", "strict", "--style", style}};
    auto reply = post_offer(svc, strict.port());
    INFO(style << ": status " << reply.status << ", " << reply.body.substr(0, 400));
    CHECK(reply.status == 200);
    auto body = body_of(reply);
    CHECK(body["ok"] == true);
    REQUIRE(body["candidates"].is_array());
    CHECK(body["candidates"].as_array().size() == 1);
    CHECK(stat(strict, "offers") == 1);
    CHECK(stat(strict, "offers_rejected") == 0);
  }
}

TEST_CASE("strict identity e2e: the strict mode refuses a JWK cpk as Pumpkin does",
          "[e2e][strict_identity]") {
  service_process svc;
  fake_target_process jwk_source{{"--cpk", "jwk"}};
  fake_target_process der_source{{"--cpk", "der"}};
  auto jwk_offer = answer_from(jwk_source, svc);
  auto der_offer = answer_from(der_source, svc);

  fake_target_process strict{{"--identity", "strict", "--style", "pumpkin"}};
  auto refused = post_sdp(strict, jwk_offer);
  CHECK(refused.status == 400);
  // Pumpkin's own words for a cpk it cannot read as a string (PROTOCOL.md, "Refusals of an
  // anonymous offer"): the text is the behaviour under test, as a client sees it.
  CHECK(refused.body
        == "invalid identity public key: Public key build failed: OIDC payload missing cpk");
  CHECK(stat(strict, "offers_rejected") == 1);
  // The same identity with cpk as a string passes the same check.
  auto accepted = post_sdp(strict, der_offer);
  CHECK(accepted.status == 200);
  CHECK(accepted.body.rfind("v=0", 0) == 0);
  CHECK(stat(strict, "offers_rejected") == 1);

  // Only the cpk form was wrong: the lenient check takes the JWK identity.
  fake_target_process lenient{{"--identity", "required", "--style", "pumpkin"}};
  auto lenient_reply = post_sdp(lenient, jwk_offer);
  CHECK(lenient_reply.status == 200);
  CHECK(stat(lenient, "offers_rejected") == 0);

  // In the other styles the strict refusal is NetherNet error 37.
  fake_target_process strict_go{{"--identity", "strict", "--style", "go"}};
  auto go_reply = post_sdp(strict_go, jwk_offer);
  CHECK(go_reply.status == 400);
  CHECK(go_reply.body == "Negotiation failed with error code: 37");
}
