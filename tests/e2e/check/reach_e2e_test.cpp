// End to end: reachability (POST /api/offer with probe: true) and the one verdict of
// GET /api/check, against the fake target's STUN modes (tools/fake_target --stun) and against
// libwebrtc (tools/webrtc_target, @roamhq/wrtc), which answers connectivity checks on its host
// candidates when they carry the right credentials.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/json.hpp>

#include "support/http.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace json = boost::json;

namespace {

http_reply probe_offer(const service_process& svc, unsigned port, const std::string& extra = {}) {
  std::string body = R"({"host":"127.0.0.1","port":)" + std::to_string(port)
                     + R"(,"tls":false,"probe":true)" + extra + "}";
  return http_request(svc.port(), "POST", "/api/offer", {{"Content-Type", "application/json"}},
                      body, 30s);
}

http_reply plain_offer(const service_process& svc, unsigned port) {
  std::string body = R"({"host":"127.0.0.1","port":)" + std::to_string(port) + R"(,"tls":false})";
  return http_request(svc.port(), "POST", "/api/offer", {{"Content-Type", "application/json"}},
                      body, 30s);
}

http_reply check(const service_process& svc, unsigned port) {
  return http_request(svc.port(), "GET",
                      "/api/check?host=127.0.0.1&tls=false&port=" + std::to_string(port), {}, {},
                      30s);
}

const json::object& only_candidate(const json::object& body) {
  REQUIRE(body.at("candidates").as_array().size() == 1);
  return body.at("candidates").as_array()[0].as_object();
}

std::vector<std::string> strings(const json::value& v) {
  std::vector<std::string> out;
  for (const auto& s : v.as_array())
    out.emplace_back(s.as_string());
  return out;
}

bool any_contains(const std::vector<std::string>& texts, const std::string& part) {
  return std::any_of(texts.begin(), texts.end(),
                     [&](const std::string& t) { return t.find(part) != std::string::npos; });
}

/// A loopback UDP port held open by the test: nobody answers on it, and the fake cannot take
/// it for its pool.
struct held_udp_port {
  asio::io_context ioc;
  asio::ip::udp::socket socket{ioc, {asio::ip::make_address("127.0.0.1"), 0}};
  unsigned short port() const {
    return socket.local_endpoint().port();
  }
};

/// A loopback TCP port nothing listens on (it was free a moment ago).
unsigned short closed_tcp_port() {
  asio::io_context ioc;
  asio::ip::tcp::acceptor probe{ioc, {asio::ip::make_address("127.0.0.1"), 0}};
  return probe.local_endpoint().port();
}

} // namespace

TEST_CASE("reach e2e: probe:true proves the fake's UDP port open, with an RTT", "[e2e][reach]") {
  fake_target_process fake;
  service_process svc;

  auto reply = probe_offer(svc, fake.port());
  INFO(shown(reply));
  REQUIRE(reply.status == 200);
  auto body = body_of(reply);
  auto& c = only_candidate(body);
  CHECK(c.at("reachable") == true);
  CHECK(c.at("checkResult") == "reachable");
  CHECK(c.at("refused").is_null());
  REQUIRE(c.at("rttMs").is_number());
  // Loopback answers in well under the first retransmission interval.
  CHECK(c.at("rttMs").to_number<double>() >= 0);
  CHECK(c.at("rttMs").to_number<double>() < 100);
  auto& summary = body.at("reachability").as_object();
  CHECK(summary.at("checked") == 1);
  CHECK(summary.at("reachable") == 1);
  // The fake checked our USERNAME and MESSAGE-INTEGRITY before it answered (it drops
  // anything else), and one request was enough.
  CHECK(stat(fake, "stun_requests") == 1);
  CHECK(stat(fake, "stun_answers") == 1);
  // Counted as one offer call.
  CHECK(reply.header("x-ratelimit-limit") == "200");
  CHECK(remaining(reply) == 199);
}

TEST_CASE("reach e2e: a closed firewall and a wrong integrity are not reachable",
          "[e2e][reach]") {
  SECTION("silent port: retransmitted on the schedule, then timeout at 1.5 s") {
    fake_target_process fake{{"--stun", "silent"}};
    service_process svc;
    auto reply = probe_offer(svc, fake.port());
    INFO(shown(reply));
    REQUIRE(reply.status == 200);
    auto body = body_of(reply);
    auto& c = only_candidate(body);
    CHECK(c.at("reachable") == false);
    CHECK(c.at("checkResult") == "timeout");
    CHECK(c.at("rttMs").is_null());
    auto elapsed = body.at("reachability").at("elapsedMs").to_number<double>();
    CHECK(elapsed >= 1450);
    CHECK(elapsed < 3000);
    // Sent at 0, 100, 300 and 700 ms (RFC 8489 §6.2.1 doubling), none after.
    CHECK(stat(fake, "stun_requests") == 4);
    CHECK(stat(fake, "stun_answers") == 0);
  }
  SECTION("wrong integrity: answered, but not by someone holding the answer's ice-pwd") {
    fake_target_process fake{{"--stun", "wrong-integrity"}};
    service_process svc;
    auto reply = probe_offer(svc, fake.port());
    INFO(shown(reply));
    REQUIRE(reply.status == 200);
    auto body = body_of(reply);
    auto& c = only_candidate(body);
    CHECK(c.at("reachable") == false);
    CHECK(c.at("checkResult") == "integrity");
    CHECK(stat(fake, "stun_answers") >= 1);
  }
}

TEST_CASE("reach e2e: policy, transport and the limit of 8 destinations", "[e2e][reach]") {
  // After the fake's own loopback candidate: a private address the policy refuses, a TCP
  // candidate, and eight more loopback UDP ports (nothing answers on them), one past the limit.
  std::vector<std::string> args{"--extra-candidate",
                                "candidate:2 1 udp 2130706431 10.1.2.3 19132 typ host",
                                "--extra-candidate",
                                "candidate:3 1 tcp 1518280447 127.0.0.1 9 typ host tcptype passive"};
  for (int i = 0; i < 8; ++i) {
    args.push_back("--extra-candidate");
    args.push_back("candidate:" + std::to_string(10 + i) + " 1 udp 2130706431 127.0.0.1 "
                   + std::to_string(9 + i) + " typ host");
  }
  fake_target_process fake{args};
  service_process svc;
  auto reply = probe_offer(svc, fake.port());
  INFO(shown(reply));
  REQUIRE(reply.status == 200);
  auto body = body_of(reply);
  auto& items = body.at("candidates").as_array();
  REQUIRE(items.size() == 11);
  CHECK(items[0].at("reachable") == true);
  CHECK(items[1].at("address") == "10.1.2.3");
  CHECK(items[1].at("reachable").is_null());
  CHECK(items[1].at("refused") == "policy");
  CHECK(std::string{items[1].at("refusedReason").as_string()}.find("10.1.2.3") == 0);
  CHECK(items[2].at("refused") == "not_udp");
  CHECK(items[2].at("reachable").is_null());
  // The refused private address does not use up the budget: the real candidate and seven
  // extra ones make eight destinations, and the eighth extra is one too many.
  for (std::size_t i = 3; i < 10; ++i) {
    INFO("candidate " << i);
    CHECK(items[i].at("reachable") == false);
    CHECK(items[i].at("refused").is_null());
  }
  CHECK(items[10].at("refused") == "limit");
  CHECK(items[10].at("reachable").is_null());
  CHECK(body.at("reachability").at("checked") == 8);
}

TEST_CASE("reach e2e: a probed offer is cached with its results", "[e2e][reach]") {
  fake_target_process fake;
  service_process svc;

  auto plain = plain_offer(svc, fake.port());
  REQUIRE(plain.status == 200);
  CHECK_FALSE(only_candidate(body_of(plain)).contains("reachable"));
  CHECK(stat(fake, "offers") == 1);

  // A cached offer without results does not answer a call that asks for them.
  auto probed = probe_offer(svc, fake.port());
  INFO(shown(probed));
  REQUIRE(probed.status == 200);
  CHECK_FALSE(body_of(probed).contains("cached"));
  CHECK(only_candidate(body_of(probed)).at("reachable") == true);
  CHECK(stat(fake, "offers") == 2);

  // The probed entry answers both kinds of call.
  auto again = probe_offer(svc, fake.port());
  CHECK(body_of(again).at("cached") == true);
  CHECK(only_candidate(body_of(again)).at("reachable") == true);
  auto plain_again = plain_offer(svc, fake.port());
  CHECK(body_of(plain_again).at("cached") == true);
  CHECK(only_candidate(body_of(plain_again)).at("reachable") == true);
  CHECK(stat(fake, "offers") == 2);
  CHECK(stat(fake, "stun_requests") == 1);
}

TEST_CASE("reach e2e: the per-target offer limit applies to probes", "[e2e][reach]") {
  fake_target_process fake;
  service_process svc{{"--offers-per-target-per-minute", "1"}};
  auto first = probe_offer(svc, fake.port(), R"(,"fresh":true)");
  REQUIRE(first.status == 200);
  auto second = probe_offer(svc, fake.port(), R"(,"fresh":true)");
  INFO(shown(second));
  // Past the limit, the probed entry stands in, as the per-target limit lets any entry do.
  REQUIRE(second.status == 200);
  CHECK(body_of(second).at("cached") == true);
  CHECK(only_candidate(body_of(second)).at("reachable") == true);
  CHECK(stat(fake, "offers") == 1);
}

TEST_CASE("reach e2e: /api/check gives one verdict per fake target mode", "[e2e][reach][check]") {
  struct mode {
    std::string name;
    std::vector<std::string> args;
    std::string verdict;
    std::string reason;
    std::string step;
  };
  held_udp_port taken;
  std::vector<mode> modes{
    // The check joins: the fake's game layer decides these.
    {"answering", {}, "joinable", "reached the game", ""},
    {"closed firewall", {"--stun", "silent"}, "join_failed", "did not answer our checks",
     "Open UDP"},
    {"wrong integrity", {"--stun", "wrong-integrity"}, "join_failed",
     "not with the credentials", "no other program"},
    {"another version", {"--game-protocol", "3000"}, "version_mismatch", "PlayStatus 1",
     "update the game"},
    {"no DTLS", {"--game", "off"}, "join_failed", "failed at dtls", "/api/explain/dtls_failed"},
    {"drained pool", {"--udp-ports", std::to_string(taken.port())}, "no_candidates",
     "without any candidate", "server-udp-ports"},
    {"rejecting offers", {"--reject-offers", "13"}, "refused", "NetherNet error 13", "log"},
    {"online mode, error 37", {"--reject-offers", "37"}, "auth_required", "NetherNet error 37",
     "online-mode=true"},
    {"online mode, BDS", {"--auth", "online"}, "auth_required", "NetherNet error 37",
     "online-mode=true"},
    {"online mode, go-nethernet", {"--auth", "online", "--style", "go"}, "auth_required",
     "NetherNet error 37", "online-mode=true"},
    {"online mode, Pumpkin", {"--auth", "online", "--style", "pumpkin"}, "auth_required",
     "HTTP 400 \"invalid GameServerToken: Public key build failed: OIDC header missing kid\"",
     "online-mode=true"},
    {"online mode, 401", {"--auth", "online", "--auth-style", "401"}, "auth_required",
     "HTTP 401 and an empty body", "online-mode=true"},
    {"container address", {"--candidate-address", "172.17.0.2"}, "private_candidates",
     "172.17.0.2 (private)", "map the container's UDP ports"},
    {"both transports", {"--raknet", "on"}, "joinable", "RakNet status answered on UDP", ""},
    {"online mode with RakNet", {"--auth", "online", "--raknet", "on"}, "auth_required",
     "RakNet status answered on UDP", "online-mode=true"},
    {"RakNet only", {"--raknet", "only"}, "raknet_only", "RakNet status answered on UDP",
     "transport=nethernet"},
  };
  service_process svc;
  for (const auto& m : modes) {
    INFO("mode " << m.name);
    fake_target_process fake{m.args};
    auto reply = check(svc, fake.port());
    INFO(shown(reply));
    REQUIRE(reply.status == 200);
    auto body = body_of(reply);
    CHECK(body.at("ok") == true);
    CHECK(body.at("verdict") == m.verdict.c_str());
    auto reasons = strings(body.at("reasons"));
    auto steps = strings(body.at("nextSteps"));
    CHECK(any_contains(reasons, m.reason));
    if (!m.step.empty())
      CHECK(any_contains(steps, m.step));
    // Every call's reply comes along: the RakNet status is asked of every target.
    auto raknet_on = std::find(m.args.begin(), m.args.end(), "--raknet") != m.args.end();
    CHECK(body.at("raknet").at("ok") == raknet_on);
    CHECK(body.at("clients").at("raknet") == raknet_on);
    if (m.verdict == "raknet_only") {
      CHECK(body.at("info").is_null());
      CHECK(body.at("offer").is_null());
      CHECK(body.at("clients").at("nethernet") == false);
      continue;
    }
    CHECK(body.at("info").is_object());
    if (m.verdict == "refused" || m.verdict == "auth_required") {
      CHECK(body.at("offer").is_null());
      CHECK(body.at("offerError").is_object());
      CHECK(body.at("join").is_null());
    } else {
      // The join's own offer is the check's offer, and the join comes along.
      CHECK(body.at("offer").at("ok") == true);
      CHECK(body.at("join").is_object());
      CHECK((body.at("join").at("joined") == true) == (m.verdict == "joinable"));
    }
  }

  SECTION("offline: nothing listens on the port") {
    auto reply = check(svc, closed_tcp_port());
    INFO(shown(reply));
    REQUIRE(reply.status == 200);
    auto body = body_of(reply);
    CHECK(body.at("verdict") == "offline");
    CHECK(body.at("info").is_null());
    CHECK(body.at("infoError").is_object());
    CHECK(body.at("offer").is_null());
    CHECK(any_contains(strings(body.at("nextSteps")), "Open TCP"));
    // Nothing answered the RakNet ping either, and the reply says how that ended.
    CHECK(body.at("raknet").at("ok") == false);
    CHECK(body.at("raknet").at("code").is_string());
  }
}

TEST_CASE("reach e2e: /api/check is charged as one info and one offer call",
          "[e2e][reach][check]") {
  fake_target_process fake;
  service_process svc{{"--limit-info-ip", "10", "--limit-offer-ip", "5"}};
  auto reply = check(svc, fake.port());
  INFO(shown(reply));
  REQUIRE(reply.status == 200);
  // The headers show the offer quota, the scarcer one.
  CHECK(reply.header("x-ratelimit-limit") == "5");
  CHECK(remaining(reply) == 4);
  CHECK(metric(svc, R"(netherscope_requests_total{route="/api/check",status="2xx"})") == 1);
  auto info = get_info(svc, "host=127.0.0.1&tls=false&port=" + std::to_string(fake.port()));
  CHECK(info.header("x-ratelimit-limit") == "10");
  CHECK(remaining(info) == 8);

  // An invalid check is counted too, and answered 400.
  auto invalid = http_request(svc.port(), "GET", "/api/check?port=1", {}, {}, 10s);
  CHECK(invalid.status == 400);
  CHECK(invalid.code() == "invalid_input");
  CHECK(remaining(invalid) == 3);

  // A target the address policy refuses is an error, not a verdict.
  service_process strict{{}, {}, false};
  auto refused = check(strict, fake.port());
  CHECK(refused.status == 403);
  CHECK(refused.code() == "forbidden_target");
}

TEST_CASE("reach e2e: /api/check refused by the offer quota gives the info call back",
          "[e2e][reach][check]") {
  fake_target_process fake;
  service_process svc{{"--limit-info-ip", "10", "--limit-offer-ip", "1"}};
  REQUIRE(check(svc, fake.port()).status == 200);
  auto over = check(svc, fake.port());
  CHECK(over.status == 429);
  CHECK(over.code() == "quota_exhausted");
  auto info = get_info(svc, "host=127.0.0.1&tls=false&port=" + std::to_string(fake.port()));
  // One info call for the first check and this one: the refused check's was given back.
  CHECK(remaining(info) == 8);
  CHECK(stat(fake, "offers") == 1);
}
