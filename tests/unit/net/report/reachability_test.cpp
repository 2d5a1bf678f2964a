// Tests for net/report/reachability (which candidates are checked, the requests, the reply's
// fields) on a recorded libwebrtc answer, and for net/upstream/ice_check over loopback UDP
// against a small responder in the test that speaks through net/nethernet/stun.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <future>
#include <sstream>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/json.hpp>

#include "base/cidr.hpp"
#include "net/nethernet/identity_check.hpp"
#include "net/nethernet/sdp_answer.hpp"
#include "net/nethernet/stun.hpp"
#include "net/report/bodies.hpp"
#include "net/report/reachability.hpp"
#include "net/upstream/ice_check.hpp"
#include "support/fixtures.hpp"
#include "support/udp_peer.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace json = boost::json;

namespace {

// libwebrtc's answer through @roamhq/wrtc 0.10.0: four UDP and four TCP host candidates.
const std::string libwebrtc_answer = read_fixture("libwebrtc-wrtc-0.10.0-answer-identity-jwk.sdp");

/// The answer's rendered body, as the probe renders it before the checks.
std::string rendered(const std::string& answer) {
  auto parsed = parse_answer(answer);
  identity_check identity;
  return render_offer(answer, parsed, identity, false, offer_context{});
}

/// A policy that allows loopback, as --allow-loopback makes it.
address_policy loopback_allowed() {
  return address_policy{{*parse_cidr("127.0.0.0/8"), *parse_cidr("::1/128")}, {}};
}

/// Answers Binding requests on a loopback port the way a peer holding `pwd` would, or with
/// another key; runs on its own thread until stopped.
class responder : public test::udp_peer {
public:
  explicit responder(std::string key)
    : udp_peer([key = std::move(key)](std::string_view datagram, const asio::ip::udp::endpoint& from) {
        answer out;
        if (auto m = stun::read(datagram)) {
          stun::message_writer w{stun::message_type::binding_success, m->id};
          w.add_xor_mapped_address({from.address(), from.port()});
          w.add_integrity(key);
          w.add_fingerprint();
          out.replies.push_back(w.bytes());
        }
        return out;
      }) {
    // nop
  }
  int requests() const {
    return datagrams();
  }
};

/// Runs checks on a fresh io_context and waits for their results.
std::vector<udp_check_result> run_checks(const address_policy& policy,
                                         std::vector<udp_check> checks,
                                         ice_check_settings settings = {}) {
  asio::io_context ioc;
  ice_checker checker{ioc, policy, settings};
  std::vector<udp_check_result> out;
  bool done = false;
  checker.run(std::move(checks), [&](std::vector<udp_check_result>&& r) {
    out = std::move(r);
    done = true;
  });
  ioc.run();
  REQUIRE(done);
  return out;
}

udp_check check_to(unsigned short port, const std::string& key) {
  stun::transaction_id id{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  udp_check c;
  c.address = "127.0.0.1";
  c.port = port;
  c.request = stun::binding_request({"peer:us", stun::peer_reflexive_priority, 7, key}, id);
  c.judge = [id, key](std::string_view d) {
    switch (stun::judge_response(d, id, key)) {
      case stun::check_answer::success:
        return check_reply::success;
      case stun::check_answer::bad_integrity:
        return check_reply::bad_integrity;
      case stun::check_answer::error:
        return check_reply::error;
      default:
        return check_reply::unrelated;
    }
  };
  return c;
}

} // namespace

TEST_CASE("reachability: what is checked in libwebrtc's answer", "[reachability]") {
  REQUIRE_FALSE(libwebrtc_answer.empty());
  auto plan = plan_reach(libwebrtc_answer, "offU");
  REQUIRE(plan.valid);
  CHECK(plan.offer_ufrag == "offU");
  CHECK(plan.answer_ufrag == "Mz26");
  CHECK(plan.answer_pwd == "003cZY/485UxGkXAP8jwb5zo");
  REQUIRE(plan.candidates.size() == 8);
  for (std::size_t i = 0; i < 4; ++i)
    CHECK(plan.candidates[i].skip == reach_skip::none);
  for (std::size_t i = 4; i < 8; ++i)
    CHECK(plan.candidates[i].skip == reach_skip::not_udp);

  auto run = make_checks(plan, 0x1122334455667788);
  REQUIRE(run.checks.size() == 4);
  CHECK(run.check_of == std::vector<std::size_t>{0, 1, 2, 3, std::string::npos, std::string::npos,
                                                 std::string::npos, std::string::npos});
  // Each request names the answer's ufrag first and is keyed with its password.
  auto m = stun::read(run.checks[3].request);
  REQUIRE(m);
  CHECK(m->find(stun::attribute_type::username)->value == "Mz26:offU");
  CHECK(stun::integrity_ok(*m, "003cZY/485UxGkXAP8jwb5zo"));
  CHECK(run.checks[3].address == "127.0.0.1");
  CHECK(run.checks[3].port == 46394);
  // Transactions differ between checks.
  CHECK(stun::read(run.checks[0].request)->id != m->id);
}

TEST_CASE("reachability: an invalid answer plans nothing", "[reachability]") {
  auto plan = plan_reach("not sdp", "offU");
  CHECK_FALSE(plan.valid);
  CHECK(make_checks(plan, 1).checks.empty());
}

TEST_CASE("reachability: duplicates share a check, TCP and component 2 are not checked",
          "[reachability]") {
  std::string answer = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
                       "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"
                       "a=ice-ufrag:abcd\r\na=ice-pwd:0123456789abcdefghijklmn\r\n"
                       "a=fingerprint:sha-256 AA:BB\r\n";
  for (int i = 0; i < 10; ++i)
    answer += "a=candidate:" + std::to_string(i) + " 1 udp 1 203.0.113." + std::to_string(i)
              + " 19132 typ host\r\n";
  // The first destination again, and a component-2 candidate.
  answer += "a=candidate:20 1 udp 1 203.0.113.0 19132 typ host\r\n";
  answer += "a=candidate:21 2 udp 1 203.0.113.1 19133 typ host\r\n";
  auto plan = plan_reach(answer, "us");
  REQUIRE(plan.candidates.size() == 12);
  for (std::size_t i = 0; i < 11; ++i)
    CHECK(plan.candidates[i].skip == reach_skip::none);
  CHECK(plan.candidates[11].skip == reach_skip::not_udp);
  auto run = make_checks(plan, 1);
  CHECK(run.checks.size() == 10);
  CHECK(run.check_of[10] == run.check_of[0]);
  CHECK(run.check_of[11] == std::string::npos);
}

TEST_CASE("reachability: results land on their candidates in the body", "[reachability]") {
  auto plan = plan_reach(libwebrtc_answer, "offU");
  auto run = make_checks(plan, 1);
  std::vector<udp_check_result> results(4);
  results[0] = {check_outcome::refused, -1, "fd00::2 is private unique-local (fc00::/7)"};
  results[1] = {check_outcome::timeout, -1, {}};
  results[2] = {check_outcome::bad_integrity, -1, {}};
  results[3] = {check_outcome::reachable, 0.4567, {}};
  auto body = json::parse(with_reachability(rendered(libwebrtc_answer), plan, run, results, 1500.2))
                .as_object();
  auto& c = body.at("candidates").as_array();
  REQUIRE(c.size() == 8);
  CHECK(c[0].at("reachable").is_null());
  CHECK(c[0].at("refused") == "policy");
  CHECK(c[0].at("refusedReason") == "fd00::2 is private unique-local (fc00::/7)");
  CHECK(c[1].at("reachable") == false);
  CHECK(c[1].at("checkResult") == "timeout");
  CHECK(c[2].at("reachable") == false);
  CHECK(c[2].at("checkResult") == "integrity");
  CHECK(c[3].at("reachable") == true);
  CHECK(c[3].at("rttMs") == 0.46);
  CHECK(c[3].at("refused").is_null());
  CHECK(c[4].at("refused") == "not_udp");
  CHECK(c[4].at("checkResult").is_null());
  auto& summary = body.at("reachability").as_object();
  CHECK(summary.at("checked") == 3);
  CHECK(summary.at("reachable") == 1);
  CHECK(summary.at("elapsedMs") == 1500.2);
  // What was there stays.
  CHECK(body.at("iceUfrag") == "Mz26");
  // A body that is not JSON is left as it is.
  CHECK(with_reachability("oops", plan, run, results, 1) == "oops");
}

TEST_CASE("ice_check: a peer with the key is reachable, loopback only when allowed",
          "[reachability][ice_check]") {
  responder peer{"the-key"};
  SECTION("allowed and answered") {
    auto r = run_checks(loopback_allowed(), {check_to(peer.port(), "the-key")});
    REQUIRE(r.size() == 1);
    CHECK(r[0].outcome == check_outcome::reachable);
    CHECK(r[0].rtt_ms >= 0);
    CHECK(r[0].rtt_ms < 100);
    CHECK(peer.requests() == 1);
  }
  SECTION("the default policy refuses loopback, and nothing is sent") {
    auto r = run_checks(address_policy{}, {check_to(peer.port(), "the-key")});
    REQUIRE(r.size() == 1);
    CHECK(r[0].outcome == check_outcome::refused);
    CHECK(r[0].reason.find("127.0.0.1 is loopback") == 0);
    CHECK(peer.requests() == 0);
  }
}

TEST_CASE("ice_check: a wrong key is not reachable, silence times out on schedule",
          "[reachability][ice_check]") {
  ice_check_settings quick;
  quick.schedule = {0ms, 20ms, 60ms};
  quick.deadline = 200ms;
  SECTION("wrong integrity") {
    responder impostor{"another-key"};
    auto r = run_checks(loopback_allowed(), {check_to(impostor.port(), "the-key")}, quick);
    CHECK(r[0].outcome == check_outcome::bad_integrity);
    // Each retransmission was answered, wrongly each time.
    CHECK(impostor.requests() == 3);
  }
  SECTION("nobody answers") {
    asio::io_context ioc;
    asio::ip::udp::socket silent{ioc, {asio::ip::make_address("127.0.0.1"), 0}};
    auto started = std::chrono::steady_clock::now();
    auto r = run_checks(loopback_allowed(), {check_to(silent.local_endpoint().port(), "k")},
                        quick);
    auto took = std::chrono::steady_clock::now() - started;
    CHECK(r[0].outcome == check_outcome::timeout);
    CHECK(took >= 200ms);
    CHECK(took < 2s);
    // Three transmissions are waiting in the silent socket.
    CHECK(silent.available() > 0);
  }
  SECTION("at most 8 destinations among those the policy allows") {
    std::vector<udp_check> checks;
    checks.push_back(check_to(1, "k"));
    checks.back().address = "10.0.0.1";
    for (unsigned short p = 1; p <= 9; ++p)
      checks.push_back(check_to(p, "k"));
    auto r = run_checks(loopback_allowed(), std::move(checks), quick);
    REQUIRE(r.size() == 10);
    CHECK(r[0].outcome == check_outcome::refused);
    for (std::size_t i = 1; i <= 8; ++i)
      CHECK(r[i].outcome == check_outcome::timeout);
    CHECK(r[9].outcome == check_outcome::over_limit);
    CHECK(to_string(r[9].outcome) == "limit");
  }
  SECTION("not an address, and no checks at all") {
    auto r = run_checks(loopback_allowed(), {[] {
                          udp_check c;
                          c.address = "host.local";
                          c.port = 1;
                          return c;
                        }()});
    CHECK(r[0].outcome == check_outcome::not_an_address);
    CHECK(run_checks(loopback_allowed(), {}).empty());
  }
}
