// End to end: POST /api/join through the service binary, against WebRTC stacks we did not
// write (tools/webrtc_target) that speak the Bedrock prelude. Each join makes its own offer,
// runs in a netherscope-join worker and is answered with the stage and outcome it ended in.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <boost/json.hpp>

#include "support/http.hpp"
#include "support/rooms.hpp"
#include "support/webrtc_answerer.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace json = boost::json;

namespace {

http_reply post_join(const service_process& svc, unsigned target_port,
                     const std::string& extra_fields = {}) {
  auto body = R"({"host":"127.0.0.1","port":)" + std::to_string(target_port) + ",\"tls\":false"
              + extra_fields + "}";
  return http_request(svc.port(), "POST", "/api/join", {{"Content-Type", "application/json"}},
                      body, 60s);
}

std::string text(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string{v->as_string()} : std::string{};
}

} // namespace

TEST_CASE("join api e2e: a player's join through the service reaches the game on each stack",
          "[e2e][join]") {
  auto stack = GENERATE(as<std::string>{}, "libwebrtc", "werift", "aiortc");
  INFO("stack " << stack);
  webrtc_answerer target{stack};
  service_process svc;

  auto before = remaining(post_offer(svc, target.port()));
  auto reply = post_join(svc, target.port());
  INFO(shown(reply));
  REQUIRE(reply.status == 200);
  auto body = body_of(reply);
  CHECK(body.at("ok") == true);
  CHECK(body.at("joined") == true);
  CHECK(text(body, "outcome") == "joined");
  CHECK(text(body, "stage") == "game");
  CHECK(text(body, "reason").find("network settings") != std::string::npos);
  // The protocol sent is the one the server's GET /v1/join names.
  auto& protocol = body.at("protocol").as_object();
  CHECK(protocol.at("sent") == 2193);
  CHECK(protocol.at("server") == 2193);
  CHECK(text(protocol, "version") == "1.26.51");
  auto& dtls = body.at("dtls").as_object();
  CHECK(text(dtls, "role") == "server");
  CHECK(dtls.at("fingerprintVerified") == true);
  auto& settings = body.at("networkSettings").as_object();
  CHECK(settings.at("compressionThreshold") == 1);
  CHECK(text(settings, "compressionAlgorithm") == "zlib");
  auto& pair = body.at("pair").as_object();
  auto remote = text(pair, "remote");
  // Each answerer gathers on loopback only; libwebrtc on ::1 too.
  CHECK((remote.rfind("127.0.0.1:", 0) == 0 || remote.rfind("[::1]:", 0) == 0));
  auto& timings = body.at("timings").as_object();
  CHECK(timings.at("signallingMs").to_number<double>() >= 0);
  CHECK(timings.at("totalMs").to_number<double>() >= timings.at("signallingMs").to_number<double>());
  CHECK(timings.at("gameMs").to_number<double>() >= 0);
  CHECK(text(body.at("offerIdentity").as_object(), "kind") == "self");
  // The join's own offer, in /api/offer's shape.
  REQUIRE(body.at("offer").is_object());
  CHECK_FALSE(body.at("offer").as_object().at("candidates").as_array().empty());
  CHECK(body.at("offerError").is_null());
  // One offer call counted; the target saw the join's request on its reliable channel.
  CHECK(remaining(reply) == before - 1);
  auto stats = target.stats();
  CHECK(stats.at("requests").as_array().size() == 1);
}

TEST_CASE("join api e2e: the protocol the call names, older and newer than the server's",
          "[e2e][join]") {
  webrtc_answerer target{"libwebrtc"};
  service_process svc;
  auto reply = post_join(svc, target.port(), R"(,"protocol":100)");
  INFO(shown(reply));
  REQUIRE(reply.status == 200);
  auto body = body_of(reply);
  CHECK(body.at("joined") == false);
  CHECK(text(body, "outcome") == "outdated_client");
  CHECK(text(body, "stage") == "game");
  CHECK(body.at("playStatus") == 1);
  CHECK(body.at("protocol").as_object().at("sent") == 100);
  CHECK(body.at("protocol").as_object().at("server") == 2193);

  reply = post_join(svc, target.port(), R"(,"protocol":9000)");
  INFO(shown(reply));
  REQUIRE(reply.status == 200);
  body = body_of(reply);
  CHECK(text(body, "outcome") == "outdated_server");
  CHECK(body.at("playStatus") == 2);
}

TEST_CASE("join api e2e: two players at once, with ports enough and with a one-port pool",
          "[e2e][join]") {
  SECTION("ports enough: both get in") {
    webrtc_answerer target{"libwebrtc"};
    service_process svc;
    auto before = remaining(post_offer(svc, target.port()));
    auto reply = post_join(svc, target.port(), R"(,"players":2,"networkId":"4242")");
    INFO(shown(reply));
    REQUIRE(reply.status == 200);
    auto body = body_of(reply);
    CHECK(body.at("joined") == true);
    REQUIRE(body.at("second").is_object());
    auto& second = body.at("second").as_object();
    CHECK(second.at("joined") == true);
    CHECK(text(body, "portPool") == "enough");
    CHECK(text(body, "networkId") == "4242");
    CHECK(text(second, "networkId") != "4242");
    // One offer call per player.
    CHECK(remaining(reply) == before - 2);
  }
  SECTION("one port: the second player meets the port the first holds") {
    webrtc_answerer target{"libwebrtc", {"--port-pool", "1"}};
    service_process svc;
    auto reply = post_join(svc, target.port(), R"(,"players":2)");
    INFO(shown(reply));
    REQUIRE(reply.status == 200);
    auto body = body_of(reply);
    auto& second = body.at("second").as_object();
    CHECK(text(body, "portPool") == "one_port");
    CHECK(body.at("joined").as_bool() != second.at("joined").as_bool());
    const auto& refused = body.at("joined").as_bool() ? second : body;
    CHECK(text(refused, "outcome") == "ice_failed");
    CHECK(text(refused, "stage") == "ice");
    CHECK_FALSE(refused.at("tried").as_array().empty());
    CHECK(target.stats().at("pool_refusals") == 1);
  }
}

TEST_CASE("join api e2e: joins that end before ICE, and calls that are refused",
          "[e2e][join]") {
  SECTION("nothing listens on the signalling port: an outcome at stage signalling") {
    service_process svc;
    auto reply = post_join(svc, unused_port());
    INFO(shown(reply));
    REQUIRE(reply.status == 200);
    auto body = body_of(reply);
    CHECK(body.at("joined") == false);
    CHECK(text(body, "stage") == "signalling");
    CHECK(text(body, "outcome") == "offer_unreachable");
    REQUIRE(body.at("offerError").is_object());
    CHECK(body.at("offer").is_null());
  }
  SECTION("every candidate is an address the policy refuses") {
    // werift gathers on 127.0.0.5 only, and the service may send only to 127.0.0.1.
    webrtc_answerer target{"werift", {"--gather-address", "127.0.0.5"}};
    service_process svc{{"--allow-cidr", "127.0.0.1/32"}, {}, false};
    auto reply = post_join(svc, target.port());
    INFO(shown(reply));
    REQUIRE(reply.status == 200);
    auto body = body_of(reply);
    CHECK(text(body, "outcome") == "candidates_refused");
    CHECK(body.at("joined") == false);
  }
  SECTION("a target the policy refuses is the call's error") {
    webrtc_answerer target{"libwebrtc"};
    service_process svc{{}, {}, false};
    auto reply = post_join(svc, target.port());
    INFO(shown(reply));
    CHECK(reply.status == 403);
    CHECK(reply.code() == "forbidden_target");
    CHECK(target.stats().at("offers") == 0);
  }
  SECTION("bad input is a clear 400 or 415, counted as one call") {
    service_process svc;
    auto reply = post_join(svc, 19132, R"(,"players":3)");
    CHECK(reply.status == 400);
    CHECK(reply.code() == "invalid_input");
    CHECK(error_text(reply).find("players") != std::string::npos);
    reply = post_join(svc, 19132, R"(,"protocol":"2193")");
    CHECK(reply.status == 400);
    CHECK(error_text(reply).find("protocol") != std::string::npos);
    reply = http_request(svc.port(), "POST", "/api/join", {{"Content-Type", "text/plain"}},
                         "{}", 10s);
    CHECK(reply.status == 415);
  }
  SECTION("each outcome is explained") {
    service_process svc;
    for (const char* code : {"joined", "ice_failed", "dtls_failed", "outdated_server",
                             "candidates_refused", "offer_unreachable"}) {
      auto reply = http_request(svc.port(), "GET", std::string{"/api/explain/"} + code, {}, {}, 10s);
      INFO(code << ": " << shown(reply));
      CHECK(reply.status == 200);
      CHECK(text(body_of(reply), "kind") == "join_outcome");
    }
  }
}

TEST_CASE("join api e2e: the fake target's game layer, and each fault it has", "[e2e][join]") {
  struct fault {
    std::vector<std::string> args;
    const char* stage;
    const char* outcome;
  };
  auto f = GENERATE(values<fault>({
    {{}, "game", "joined"},
    {{"--game-protocol", "3000"}, "game", "outdated_client"},
    {{"--game-protocol", "100"}, "game", "outdated_server"},
    {{"--game", "silent"}, "game", "game_silent"},
    {{"--game", "garbage"}, "game", "game_unreadable"},
    {{"--game", "off"}, "dtls", "dtls_failed"},
    {{"--game", "no-sctp"}, "sctp", "sctp_failed"},
    {{"--game", "refuse-channels"}, "channels", "channels_refused"},
    {{"--game", "alert"}, "dtls", "dtls_failed"},
    {{"--stun", "silent"}, "ice", "ice_failed"},
  }));
  auto args = f.args;
  // The status names 2193, which the join then sends.
  args.insert(args.end(), {"--info", R"({"name":"fake","protocol":2193,"version":"1.26.51"})",
                           "--port-hold-ms", "20000"});
  fake_target_process target{args};
  service_process svc{{"--join-timeout-ms", "1500"}};
  auto reply = post_join(svc, target.port());
  INFO(shown(reply));
  REQUIRE(reply.status == 200);
  auto body = body_of(reply);
  CHECK(text(body, "stage") == f.stage);
  CHECK(text(body, "outcome") == f.outcome);
  CHECK(body.at("joined").as_bool() == (std::string{f.outcome} == "joined"));
  auto stats = target.stats();
  if (std::string{f.stage} == "game") {
    // The fake saw what a server sees: a DTLS handshake with the offer's certificate, both
    // channels, one RequestNetworkSettings.
    CHECK(stats.at("dtls_established") == 1);
    CHECK(stats.at("channels_opened") == 2);
    CHECK(stats.at("game_requests") == 1);
    CHECK(body.at("dtls").as_object().at("fingerprintVerified") == true);
    // use_srtp agreed, as pion-based servers require.
    CHECK(stats.at("dtls_srtp") == 1);
    CHECK(body.at("dtls").as_object().at("srtp") == true);
  }
  if (f.args.size() == 2 && f.args[1] == "alert") {
    // The server refused our certificate in the handshake: its alert, named, from it.
    auto& dtls = body.at("dtls").as_object();
    INFO(boost::json::serialize(dtls));
    // OpenSSL answers a certificate its verify callback refuses with unknown_ca.
    CHECK(text(dtls, "alert") == "unknown CA");
    CHECK(dtls.at("alertFrom") == "server");
    CHECK(text(body, "reason").find("unknown CA") != std::string::npos);
  }
  if (std::string{f.outcome} == "ice_failed")
    CHECK(body.at("tried").as_array().at(0).as_object().at("answered") == false);
  // /metrics counts the join once, under its outcome, and times it.
  CHECK(metric(svc, "netherscope_joins_total{outcome=\"" + std::string{f.outcome} + "\"}") == 1);
  CHECK(metric(svc, "netherscope_join_duration_seconds_count") == 1);
  if (std::string{f.outcome} != "joined")
    CHECK(metric(svc, "netherscope_joins_total{outcome=\"joined\"}") == 0);
}
