// End to end: GET /api/explain on the real binary, and the link to it in a refused offer
// from the fake NetherNet target.
#include <catch2/catch.hpp>

#include <boost/json.hpp>

#include "support/http.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

} // namespace

TEST_CASE("explain e2e: a refused offer links to an explanation that answers", "[e2e][explain]") {
  service_process svc;
  for (auto style : {"bds", "go"}) {
    INFO(style);
    fake_target_process fake{{"--style", style, "--reject-offers", "37"}};
    auto refused = post_offer(svc, fake.port());
    CHECK(refused.status == 502);
    auto error = refused.json().at("error");
    CHECK(error.at("nethernetError") == 37);
    REQUIRE(error.as_object().contains("explain"));
    auto link = std::string{error.at("explain").as_string()};
    CHECK(link == "/api/explain/37");

    auto explained = http_request(svc.port(), "GET", link);
    CHECK(explained.status == 200);
    CHECK(explained.header("content-type") == "application/json");
    CHECK(explained.header("access-control-allow-origin") == "*");
    CHECK(explained.header("x-ratelimit-limit").empty());
    auto body = explained.json();
    CHECK(body.at("code") == "37");
    CHECK(body.at("name") == "IdentityVerificationFailed");
  }
  auto codeword = http_request(svc.port(), "GET", "/api/explain/DOOR-83");
  CHECK(codeword.status == 200);
  CHECK(codeword.json().at("variant") == "83");
  auto unknown = http_request(svc.port(), "GET", "/api/explain/NoSuchCodeword");
  CHECK(unknown.status == 404);
  CHECK(unknown.code() == "unknown_code");
}
