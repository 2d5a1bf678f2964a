// Offers signed in as the linked Xbox account, end to end: the service with --secrets-key-file
// and --xbox-endpoints pointing at the fake chain (tools/fake_xbox), the account linked with
// `admin xbox-login` on the service's live store, and offers to the fake target
// (tools/fake_target). The reply names the identity the offer carried; an online-mode refusal
// of a signed-in offer is not_allowed; a link the service cannot open leaves offers
// self-signed with a warning.

#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <csignal>

#include <sys/stat.h>

#include <boost/json.hpp>

#include "base/crypto.hpp"
#include "support/fake_xbox.hpp"
#include "support/http.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace json = boost::json;

namespace {

// A service that may sign offers in through the fake chain, and the files the operator gives it.
struct signed_in_rig {
  explicit signed_in_rig(std::vector<std::string> fake_args = {}) : fake(std::move(fake_args)) {
    key = write_key_file(files.path(), "secrets.key");
    endpoints = write_endpoints_file(files.path(), fake);
    start();
  }

  // Starts the service, again on the same data directory after restart().
  void start(std::string data_dir = {}) {
    svc = std::make_unique<service_process>(
      std::vector<std::string>{"--secrets-key-file", key, "--xbox-endpoints", endpoints},
      std::vector<std::string>{}, true, std::move(data_dir));
  }

  // Stops the service and starts it again on its store; the log lines of the first run are kept.
  void restart() {
    auto dir = svc->data_dir();
    svc->process().signal(SIGTERM);
    REQUIRE(svc->process().wait(30s) == 0);
    logged = svc->process().lines();
    start(dir);
  }

  // Every log line of every run so far.
  std::vector<std::string> log() {
    auto all = logged;
    auto now = svc->process().lines();
    all.insert(all.end(), now.begin(), now.end());
    return all;
  }

  // admin xbox-login on the running service's store, approved as soon as the code is out.
  void link(const std::string& with_key) {
    std::thread approver([this] {
      for (int i = 0; i < 400 && fake.stat("device_code") == 0; ++i)
        std::this_thread::sleep_for(25ms);
      fake.control({{"device", "approve"}});
    });
    try {
      run_admin(svc->data_dir(), {"--secrets-key-file", with_key, "--xbox-endpoints", endpoints,
                                  "xbox-login"});
    } catch (...) {
      approver.join();
      throw;
    }
    approver.join();
  }

  http_reply check(unsigned port) {
    return http_request(svc->port(), "GET",
                        "/api/check?host=127.0.0.1&tls=false&port=" + std::to_string(port), {},
                        {}, 60s);
  }

  fake_xbox_process fake;
  temp_dir files;
  std::string key;
  std::string endpoints;
  std::unique_ptr<service_process> svc;
  std::vector<std::string> logged;
};

// An online-mode target that verifies GameServerTokens with the fake chain's issuer.
std::vector<std::string> online_target(const fake_xbox_process& fake,
                                       std::vector<std::string> more = {}) {
  std::vector<std::string> args{"--auth", "online", "--xbox-issuer", fake.base_url()};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// No log line carries a token of the chain: JWTs ("eyJ") and Microsoft's refresh and access
// tokens ("M.R3_", "EwA").
void check_no_token_in(const std::vector<std::string>& lines) {
  for (const auto& line : lines) {
    INFO(line);
    CHECK(line.find("eyJ") == std::string::npos);
    CHECK(line.find("M.R3_") == std::string::npos);
    CHECK(line.find("EwA") == std::string::npos);
  }
}

std::string kind_of(const json::object& body) {
  const auto* id = body.if_contains("offerIdentity");
  if (!id || !id->is_object() || !id->as_object().contains("kind"))
    return {};
  return std::string{id->as_object().at("kind").as_string()};
}

bool warns(const json::object& body, const std::string& code) {
  const auto* codes = body.if_contains("warningCodes");
  if (!codes || !codes->is_array())
    return false;
  for (const auto& c : codes->as_array())
    if (c == code.c_str())
      return true;
  return false;
}

// A check of an online-mode target while the service's own sign-in fails: the offer went
// self-signed and was refused as one, so the verdict is the server's own (it needs a signed-in
// player), and the reasons say that the failure is the service's.
http_reply check_while_link_fails(signed_in_rig& rig, unsigned port) {
  auto reply = rig.check(port);
  INFO(shown(reply));
  REQUIRE(reply.status == 200);
  auto body = body_of(reply);
  CHECK(body.at("verdict") == "auth_required");
  CHECK(json::serialize(body.at("reasons")).find("sign-in is failing") != std::string::npos);
  return reply;
}

} // namespace

TEST_CASE("xbox offer e2e: offers go signed in once an account is linked", "[xbox][e2e]") {
  signed_in_rig rig;
  {
    fake_target_process earlier;
    auto before = body_of(post_offer(*rig.svc, earlier.port(), R"(,"tls":false)"));
    INFO(json::serialize(before));
    CHECK(kind_of(before) == "self");
    CHECK_FALSE(warns(before, "xbox_link_failing"));
  }
  CHECK(metric(*rig.svc, R"(netherscope_xbox_link{state="unlinked"})") == 1);
  // The next offer after the link carries it: without a link, every offer looks again.
  rig.link(rig.key);
  auto minted = rig.fake.stat("multiplayer_start");
  // An offline server takes the GameServerToken as it takes a self-signed one.
  fake_target_process target;
  auto reply = post_offer(*rig.svc, target.port(), R"(,"tls":false,"fresh":true)");
  INFO(shown(reply));
  REQUIRE(reply.status == 200);
  auto body = body_of(reply);
  CHECK(kind_of(body) == "xbox");
  CHECK(body.at("offerIdentity").as_object().at("gamertag") == "Fake Steve");
  // The services minted one GameServerToken, for the service's own identity key.
  CHECK(rig.fake.stat("multiplayer_start") == minted + 1);
  // Nothing of a token reaches the reply.
  CHECK(reply.body.find("eyJ", reply.body.find("offerIdentity")) == std::string::npos);
  CHECK(metric(*rig.svc, R"(netherscope_xbox_link{state="signed_in"})") == 1);
  CHECK(metric(*rig.svc, R"(netherscope_xbox_renewals_total{result="ok"})") == 1);
}

TEST_CASE("xbox offer e2e: an online-mode server answers a signed-in offer with its candidates",
          "[xbox][e2e]") {
  signed_in_rig rig;
  fake_target_process target{online_target(rig.fake)};
  // Before the link: the self-signed identity is refused, as a player who is not signed in.
  auto before = rig.check(target.port());
  INFO(shown(before));
  CHECK(body_of(before).at("verdict") == "auth_required");
  rig.link(rig.key);
  auto reply = post_offer(*rig.svc, target.port(), R"(,"tls":false,"fresh":true)");
  INFO(shown(reply));
  REQUIRE(reply.status == 200);
  auto body = body_of(reply);
  CHECK(kind_of(body) == "xbox");
  REQUIRE(body.at("candidates").is_array());
  CHECK_FALSE(body.at("candidates").as_array().empty());
  CHECK(target.stats().at("offers_signed_in") == 1);
  check_no_token_in(rig.log());
}

TEST_CASE("xbox offer e2e: an allowlist refusal of a signed-in offer is not_allowed",
          "[xbox][e2e]") {
  signed_in_rig rig;
  fake_target_process target{online_target(rig.fake, {"--allowlist", "Someone Else"})};
  rig.link(rig.key);
  auto reply = rig.check(target.port());
  INFO(shown(reply));
  REQUIRE(reply.status == 200);
  auto body = body_of(reply);
  CHECK(body.at("verdict") == "not_allowed");
  CHECK(json::serialize(body.at("nextSteps")).find("Fake Steve") != std::string::npos);
  CHECK(target.stats().at("offers_not_allowlisted") == 1);
  // On the allowlist, the same player gets in.
  fake_target_process listed{online_target(rig.fake, {"--allowlist", "someone else,fake steve"})};
  auto admitted = post_offer(*rig.svc, listed.port(), R"(,"tls":false,"fresh":true)");
  INFO(shown(admitted));
  CHECK(admitted.status == 200);
}

TEST_CASE("xbox offer e2e: tokens renew across a restart with the rotated refresh token",
          "[xbox][e2e]") {
  // Strict rotation: a refresh token works once, so a service that did not store the rotated
  // one could not sign in after the restart.
  signed_in_rig rig{{"--rotation", "strict"}};
  fake_target_process target{online_target(rig.fake)};
  rig.link(rig.key);
  auto minted = rig.fake.stat("multiplayer_start");
  auto first = body_of(post_offer(*rig.svc, target.port(), R"(,"tls":false,"fresh":true)"));
  REQUIRE(kind_of(first) == "xbox");
  rig.restart();
  auto again = post_offer(*rig.svc, target.port(), R"(,"tls":false,"fresh":true)");
  INFO(shown(again));
  REQUIRE(again.status == 200);
  CHECK(kind_of(body_of(again)) == "xbox");
  CHECK(rig.fake.stat("refresh_refused") == 0);
  CHECK(rig.fake.stat("multiplayer_start") == minted + 2);
  check_no_token_in(rig.log());
}

TEST_CASE("xbox offer e2e: a revoked link is never the target's verdict", "[xbox][e2e]") {
  signed_in_rig rig;
  fake_target_process target{online_target(rig.fake)};
  rig.link(rig.key);
  rig.fake.control({{"revoke", true}});
  check_while_link_fails(rig, target.port());
  CHECK(metric(*rig.svc, R"(netherscope_xbox_link{state="failing"})") == 1);
  CHECK(metric(*rig.svc, R"(netherscope_xbox_renewals_total{result="failed"})") == 1);
  // The service stays ready.
  CHECK(http_request(rig.svc->port(), "GET", "/readyz").status == 200);
  check_no_token_in(rig.log());
}

TEST_CASE("xbox offer e2e: a link the service cannot open leaves offers self-signed, with a "
          "warning",
          "[xbox][e2e]") {
  signed_in_rig rig;
  fake_target_process target;
  rig.link(write_key_file(rig.files.path(), "another.key"));
  auto reply = post_offer(*rig.svc, target.port(), R"(,"tls":false,"fresh":true)");
  INFO(shown(reply));
  REQUIRE(reply.status == 200);
  auto body = body_of(reply);
  CHECK(kind_of(body) == "self");
  CHECK(warns(body, "xbox_link_failing"));
  // The operator's details stay out of the public reply.
  CHECK(reply.body.find("secrets key") == std::string::npos);
}

TEST_CASE("xbox offer e2e: an Xbox refusal of the account is never the target's verdict",
          "[xbox][e2e]") {
  signed_in_rig rig;
  fake_target_process target{online_target(rig.fake)};
  rig.link(rig.key);
  // The account has no Xbox profile (XErr 2148916233) by the time the service renews.
  rig.fake.control({{"xsts_xerr", 2148916233}});
  auto reply = check_while_link_fails(rig, target.port());
  // The operator's details (the XErr and its fix) are in the log, not in the public reply.
  CHECK(reply.body.find("2148916233") == std::string::npos);
  bool logged = false;
  for (const auto& line : rig.log())
    logged = logged || (line.find("xbox_link_problem") != std::string::npos
                        && line.find("2148916233") != std::string::npos);
  CHECK(logged);
  check_no_token_in(rig.log());
}
