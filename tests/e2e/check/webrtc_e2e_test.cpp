// End to end: our offer, sent through the service, answered by WebRTC stacks we did not write
// (tools/webrtc_target: werift and libwebrtc through Node, aiortc through Debian's Python).
// Each stack runs behind a small NetherNet signalling server on loopback. The service must
// get an answer from every one of them, and every candidate the stack wrote must reach our
// result: an offer a stack refuses or misreads would make the service blame the server.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "support/http.hpp"
#include "support/webrtc_answerer.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace json = boost::json;

namespace {

/// The a=candidate values of an SDP, without the "a=" prefix, in order.
std::vector<std::string> candidate_lines(const std::string& sdp) {
  std::vector<std::string> result;
  std::istringstream in{sdp};
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.rfind("a=candidate:", 0) == 0)
      result.push_back(line.substr(2));
  }
  return result;
}

} // namespace

TEST_CASE("webrtc e2e: third-party stacks answer our offer with their candidates", "[e2e]") {
  auto stack = GENERATE(as<std::string>{}, "werift", "libwebrtc", "aiortc");
  INFO("stack " << stack);
  webrtc_answerer target{stack};
  service_process svc;

  auto reply = post_offer(svc, target.port());
  INFO("status " << reply.status << ", body " << reply.body.substr(0, 1500));
  REQUIRE(reply.status == 200);
  auto body = reply.json().as_object();
  REQUIRE(body.at("ok").as_bool());

  // What the stack really sent, recorded on its side of the wire.
  auto stats = target.stats();
  CHECK(stats.at("answers").to_number<int>() == 1);
  CHECK(stats.at("timeouts").to_number<int>() == 0);
  CHECK(stats.at("failures").to_number<int>() == 0);
  auto sent = candidate_lines(std::string{stats.at("last_answer").as_string()});
  // Each target gathers on 127.0.0.1 at least, so an answer without candidates means the
  // stack read our offer as one it cannot connect to.
  REQUIRE_FALSE(sent.empty());

  std::set<std::string> reported;
  bool saw_loopback = false;
  for (auto& value : body.at("candidates").as_array()) {
    auto& c = value.as_object();
    reported.insert(std::string{c.at("raw").as_string()});
    // Every candidate says where it lies and whether a player can use it, consistently.
    std::string scope{c.at("scope").as_string()};
    bool usable = c.at("transport") == "udp" && c.at("component") == 1 && scope == "public";
    CHECK(c.at("usableByPlayers").as_bool() == usable);
    CHECK(c.at("publicAddress").as_bool() == (scope == "public"));
    if (c.at("address") == "127.0.0.1") {
      CHECK(scope == "loopback");
      saw_loopback = true;
    }
  }
  // Each target gathers on 127.0.0.1.
  CHECK(saw_loopback);
  for (auto& line : sent)
    CHECK(reported.count(line) == 1);
  CHECK(reported.size() == sent.size());
  CHECK_FALSE(body.at("exhausted").as_bool());
  CHECK(body.at("warnings").as_array().size() == body.at("warningCodes").as_array().size());

  // target.js signs its answers (cpk as a base64 DER string by default); aiortc_target.py
  // adds no identity, which the reply must say.
  auto& identity = body.at("identity").as_object();
  auto& codes = body.at("warningCodes").as_array();
  auto has_code = [&](const char* code) {
    return std::find(codes.begin(), codes.end(), json::value(code)) != codes.end();
  };
  if (stack == "aiortc") {
    CHECK(identity.at("present") == false);
    CHECK(identity.at("errorCode") == "absent");
    CHECK(has_code("identity_missing"));
  } else {
    CHECK(identity.at("present") == true);
    CHECK(identity.at("verified") == true);
    CHECK(identity.at("keySha256").as_string().size() == 64);
    CHECK_FALSE(has_code("identity_unverified"));
  }
}
