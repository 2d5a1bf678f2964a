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

#include <sys/stat.h>

#include <boost/json.hpp>

#include "net/base/crypto.hpp"
#include "support/fake_xbox.hpp"
#include "support/http.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace json = boost::json;

namespace {

std::string key_file_in(const std::string& dir, const std::string& name) {
  auto path = dir + "/" + name;
  std::ofstream{path} << net::base::base64_encode(*net::base::random_bytes(32)) << "\n";
  ::chmod(path.c_str(), 0600);
  return path;
}

// A service that may sign offers in through the fake chain, and the files the operator gives it.
struct signed_in_rig {
  signed_in_rig() {
    key = key_file_in(files.path(), "secrets.key");
    json::object map;
    for (const auto& [host, base] : fake.endpoints().bases)
      map[host] = base;
    endpoints = files.path() + "/xbox-endpoints.json";
    std::ofstream{endpoints} << json::serialize(map);
    svc = std::make_unique<service_process>(
      std::vector<std::string>{"--secrets-key-file", key, "--xbox-endpoints", endpoints});
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
};

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
  // The next offer after the link carries it: without a link, every offer looks again.
  rig.link(rig.key);
  fake_target_process target;
  auto reply = post_offer(*rig.svc, target.port(), R"(,"tls":false,"fresh":true)");
  INFO(shown(reply));
  REQUIRE(reply.status == 200);
  auto body = body_of(reply);
  CHECK(kind_of(body) == "xbox");
  CHECK(body.at("offerIdentity").as_object().at("gamertag") == "Fake Steve");
  // The services minted one GameServerToken, for the service's own identity key.
  CHECK(rig.fake.stat("multiplayer_start") >= 1);
  // Nothing of a token reaches the reply.
  CHECK(reply.body.find("eyJ", reply.body.find("offerIdentity")) == std::string::npos);
}

TEST_CASE("xbox offer e2e: an online-mode refusal of a signed-in offer is not_allowed",
          "[xbox][e2e]") {
  signed_in_rig rig;
  fake_target_process target{{"--auth", "online"}};
  rig.link(rig.key);
  auto reply = rig.check(target.port());
  INFO(shown(reply));
  REQUIRE(reply.status == 200);
  auto body = body_of(reply);
  CHECK(body.at("verdict") == "not_allowed");
  CHECK(json::serialize(body.at("nextSteps")).find("Fake Steve") != std::string::npos);
}

TEST_CASE("xbox offer e2e: a link the service cannot open leaves offers self-signed, with a "
          "warning",
          "[xbox][e2e]") {
  signed_in_rig rig;
  fake_target_process target;
  rig.link(key_file_in(rig.files.path(), "another.key"));
  auto reply = post_offer(*rig.svc, target.port(), R"(,"tls":false,"fresh":true)");
  INFO(shown(reply));
  REQUIRE(reply.status == 200);
  auto body = body_of(reply);
  CHECK(kind_of(body) == "self");
  CHECK(warns(body, "xbox_link_failing"));
  // The operator's details stay out of the public reply.
  CHECK(reply.body.find("secrets key") == std::string::npos);
}
