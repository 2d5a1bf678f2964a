// The fake target (tools/fake_target) verifying real GameServerTokens: the fake Xbox chain
// (tools/fake_xbox) mints a token for a P-384 key the test holds, through the project's own
// chain runner, and offers built by the project's own offer code carry it to a fake target
// started with --auth online --xbox-issuer <the chain's base URL>. Refusals are read in
// Pumpkin's words, which say which check failed.
#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>

#include "base/cidr.hpp"
#include "base/crypto.hpp"
#include "net/nethernet/identity.hpp"
#include "net/nethernet/sdp_offer.hpp"
#include "net/upstream/xbox_chain.hpp"
#include "support/fake_xbox.hpp"
#include "support/http.hpp"
#include "support/process.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace json = boost::json;
namespace nn = net::nethernet;

namespace {

// The fake chain with an io thread and the chain runner, and the identity (DTLS fingerprint
// and P-384 key) whose offers carry the GameServerToken the chain mints for that key.
class gst_rig {
public:
  explicit gst_rig(std::vector<std::string> fake_args = {})
    : fake(std::move(fake_args)), work(asio::make_work_guard(ioc)) {
    io = std::thread([this] { ioc.run(); });
    client = make_chain_client(ioc);
    net::upstream::xbox_chain_settings chain_settings;
    chain_settings.endpoints = fake.endpoints();
    chain_settings.timeout = 10s;
    chain = std::make_unique<net::upstream::xbox_chain>(ioc, client, chain_settings);
    auto made = nn::make_local_identity();
    REQUIRE(made);
    id = std::move(*made);
  }

  ~gst_rig() {
    work.reset();
    ioc.stop();
    io.join();
    client->stop();
  }

  // Links by device code (approved at once) and renews to a GameServerToken for id's key.
  nn::signed_in_identity sign_in() {
    auto result = std::make_shared<std::promise<net::upstream::xbox_linking>>();
    auto linked = result->get_future();
    chain->link([this](const net::xbox::device_code&) { fake.control({{"device", "approve"}}); },
                [result](net::upstream::xbox_linking&& r) { result->set_value(std::move(r)); });
    REQUIRE(linked.wait_for(30s) == std::future_status::ready);
    auto linking = linked.get();
    REQUIRE_FALSE(linking.error);
    std::promise<net::upstream::xbox_renewal> done;
    auto renewed = done.get_future();
    chain->renew(std::move(linking.state), *base::public_key_der(*id.identity_key),
                 [&done](net::upstream::xbox_renewal&& r) { done.set_value(std::move(r)); });
    REQUIRE(renewed.wait_for(30s) == std::future_status::ready);
    auto renewal = renewed.get();
    INFO((renewal.error ? renewal.error->message : std::string{}));
    REQUIRE_FALSE(renewal.error);
    REQUIRE(renewal.state.game_server);
    return {renewal.state.game_server->token, fake.base_url() + "/"};
  }

  // An offer of id's whose identity is the signed-in one, passed through edit first.
  std::string offer(const nn::signed_in_identity& who,
                    const std::function<void(std::string&)>& edit = {}) const {
    auto params = nn::make_offer_parameters(id, std::time(nullptr), &who);
    REQUIRE(params);
    if (edit)
      edit(params->identity);
    return nn::build_offer(*params);
  }

  fake_xbox_process fake;
  asio::io_context ioc;
  asio::executor_work_guard<asio::io_context::executor_type> work;
  std::thread io;
  std::shared_ptr<net::upstream::http_client> client;
  std::unique_ptr<net::upstream::xbox_chain> chain;
  nn::local_identity id;
};

// Rewrites an a=identity value: edit gets the outer object and the decoded assertion.
void edit_envelope(std::string& identity,
                   const std::function<void(json::object& outer, json::object& assertion)>& edit) {
  auto outer = json::parse(*base::base64_decode(identity)).as_object();
  auto assertion = json::parse(outer.at("assertion").as_string()).as_object();
  edit(outer, assertion);
  outer["assertion"] = json::serialize(assertion);
  identity = base::base64_encode(json::serialize(outer));
}

// Replaces one part (0 header, 1 payload) of the assertion's token with edit's result,
// keeping the token's signature.
void edit_token_part(std::string& identity, int part, const std::function<void(json::object&)>& edit) {
  edit_envelope(identity, [&](json::object&, json::object& assertion) {
    std::string token{assertion.at("token").as_string()};
    const auto dot1 = token.find('.');
    const auto dot2 = token.rfind('.');
    const auto begin = part == 0 ? 0 : dot1 + 1;
    const auto end = part == 0 ? dot1 : dot2;
    auto claims = json::parse(*base::base64url_decode(token.substr(begin, end - begin))).as_object();
    edit(claims);
    token.replace(begin, end - begin, base::base64url_encode(json::serialize(claims)));
    assertion["token"] = token;
  });
}

http_reply post_signed_offer(const fake_target_process& target, const std::string& sdp) {
  return http_request(target.port(), "POST", "/v1/join/12345", {{"Content-Type", "application/sdp"}}, sdp,
                      10s);
}

fake_target_process online_target(const gst_rig& rig, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"--auth", "online", "--xbox-issuer", rig.fake.base_url()};
  args.insert(args.end(), extra.begin(), extra.end());
  return fake_target_process{args};
}

} // namespace

TEST_CASE("fake target online e2e: a GameServerToken the issuer signed is admitted, a forged one is not",
          "[e2e][fake_target][xbox]") {
  gst_rig rig;
  const auto who = rig.sign_in();
  auto target = online_target(rig, {"--style", "pumpkin"});

  SECTION("a verified offer is answered as an offline one is, with a candidate") {
    auto reply = post_signed_offer(target, rig.offer(who));
    INFO(reply.body);
    CHECK(reply.status == 200);
    CHECK(reply.body.rfind("v=0", 0) == 0);
    CHECK(reply.body.find("a=candidate:") != std::string::npos);
    CHECK(stat(target, "offers_signed_in") == 1);
    CHECK(stat(target, "offers_rejected") == 0);
  }
  SECTION("an empty idp.domain is not a provider Pumpkin takes") {
    auto reply = post_signed_offer(target, rig.offer(who, [](std::string& identity) {
      edit_envelope(identity, [](json::object& outer, json::object&) { outer["idp"].as_object()["domain"] = ""; });
    }));
    CHECK(reply.status == 400);
    CHECK(reply.body == "invalid identity provider");
    CHECK(stat(target, "offers_unauthenticated") == 1);
  }
  SECTION("a self-signed token has no kid") {
    auto params = nn::make_offer_parameters(rig.id, std::time(nullptr));
    REQUIRE(params);
    auto reply = post_signed_offer(target, nn::build_offer(*params));
    CHECK(reply.status == 400);
    CHECK(reply.body == "invalid GameServerToken: Public key build failed: OIDC header missing kid");
  }
  SECTION("a kid the JWKS lacks makes the fake fetch it once more, and not again at once") {
    const auto fetched = rig.fake.stat("jwks");
    auto unknown = [&](const std::string& kid) {
      return rig.offer(who, [&kid](std::string& identity) {
        edit_token_part(identity, 0, [&kid](json::object& header) { header["kid"] = kid; });
      });
    };
    auto reply = post_signed_offer(target, unknown("ROTATED"));
    CHECK(reply.status == 400);
    CHECK(reply.body == "invalid GameServerToken: Public key build failed: Key not found in JWKS: ROTATED");
    CHECK(rig.fake.stat("jwks") == fetched + 1);
    auto again = post_signed_offer(target, unknown("ROTATED-AGAIN"));
    CHECK(again.body == "invalid GameServerToken: Public key build failed: Key not found in JWKS: ROTATED-AGAIN");
    CHECK(rig.fake.stat("jwks") == fetched + 1);
    // The real token still passes after the refetch.
    CHECK(post_signed_offer(target, rig.offer(who)).status == 200);
  }
  SECTION("claims changed after signing break the RS256 signature") {
    auto reply = post_signed_offer(target, rig.offer(who, [](std::string& identity) {
      edit_token_part(identity, 1, [](json::object& claims) { claims["xname"] = "Someone Else"; });
    }));
    CHECK(reply.status == 400);
    CHECK(reply.body == "invalid GameServerToken: token signature does not verify with the issuer's key");
  }
  SECTION("a fingerprints JWS signed by another key than the token's cpk") {
    auto other = nn::make_local_identity();
    REQUIRE(other);
    auto params = nn::make_offer_parameters(rig.id, std::time(nullptr), &who);
    REQUIRE(params);
    auto forged = nn::make_signed_in_identity_attribute(*other->identity_key, {rig.id.fingerprint}, who);
    REQUIRE(forged);
    params->identity = *forged;
    auto reply = post_signed_offer(target, nn::build_offer(*params));
    CHECK(reply.status == 400);
    CHECK(reply.body == "fingerprint signature verification failed");
    // go-nethernet's shape for the same refusal.
    auto go_target = online_target(rig, {"--style", "go"});
    auto go_reply = post_signed_offer(go_target, nn::build_offer(*params));
    CHECK(go_reply.status == 400);
    CHECK(go_reply.body == "Negotiation failed with error code: 37");
  }
  SECTION("offline servers take the GameServerToken by its cpk and exp") {
    for (auto identity : {"required", "strict"}) {
      fake_target_process offline{{"--identity", identity, "--style", "pumpkin"}};
      auto reply = post_signed_offer(offline, rig.offer(who));
      INFO(identity << ": " << reply.body);
      CHECK(reply.status == 200);
      CHECK(stat(offline, "offers_signed_in") == 0);
    }
  }
  SECTION("online mode without --xbox-issuer still refuses the real token") {
    fake_target_process blind{{"--auth", "online"}};
    auto reply = post_signed_offer(blind, rig.offer(who));
    CHECK(reply.body == "37");
    CHECK(stat(blind, "offers_unauthenticated") == 1);
  }
}

TEST_CASE("fake target online e2e: the allowlist names gamertags without regard to case",
          "[e2e][fake_target][xbox]") {
  gst_rig rig{{"--gamertag", "Fake Steve"}};
  const auto who = rig.sign_in();

  auto listed = online_target(rig, {"--allowlist", "Alex,fAKE sTEVE"});
  CHECK(post_signed_offer(listed, rig.offer(who)).status == 200);
  CHECK(stat(listed, "offers_signed_in") == 1);

  auto pumpkin = online_target(rig, {"--allowlist", "Alex", "--style", "pumpkin"});
  auto refused = post_signed_offer(pumpkin, rig.offer(who));
  CHECK(refused.status == 400);
  CHECK(refused.body == "You are not white-listed on this server");
  CHECK(stat(pumpkin, "offers_not_allowlisted") == 1);
  CHECK(stat(pumpkin, "offers_signed_in") == 0);

  auto bds = online_target(rig, {"--allowlist", "Alex"});
  auto bare = post_signed_offer(bds, rig.offer(who));
  CHECK(bare.status == 200);
  CHECK(bare.body == "37");
}

TEST_CASE("fake target online e2e: an expired GameServerToken is refused online and offline",
          "[e2e][fake_target][xbox]") {
  gst_rig rig{{"--gst-lifetime-s", "1"}};
  const auto who = rig.sign_in();
  auto online = online_target(rig, {"--style", "pumpkin"});
  fake_target_process offline{{"--style", "pumpkin"}};
  // exp is in whole seconds: two seconds on, it lies in the past.
  std::this_thread::sleep_for(2500ms);
  auto reply = post_signed_offer(online, rig.offer(who));
  CHECK(reply.status == 400);
  CHECK(reply.body == "invalid GameServerToken: token has expired");
  auto offline_reply = post_signed_offer(offline, rig.offer(who));
  CHECK(offline_reply.status == 400);
  CHECK(offline_reply.body == "identity token has expired");
}

TEST_CASE("fake target online e2e: an issuer that does not answer stops the fake at startup",
          "[e2e][fake_target][xbox]") {
  child_process target{{FAKE_TARGET_BIN, "--auth", "online", "--xbox-issuer",
                        "http://127.0.0.1:" + std::to_string(unused_port())}};
  CHECK(target.wait(20s) == 1);
  child_process bad_url{{FAKE_TARGET_BIN, "--auth", "online", "--xbox-issuer", "http://example.com"}};
  CHECK(bad_url.wait(20s) == 2);
}
