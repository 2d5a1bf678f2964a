// End to end: probe: true against libwebrtc (tools/webrtc_target with @roamhq/wrtc), a stack we
// did not write. Given our offer's credentials it answers our STUN Binding requests on its UDP
// host candidates, so those must come back reachable with an RTT; a candidate the target adds
// for a loopback port nobody answers on must come back unreachable.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/json.hpp>

#include "support/http.hpp"
#include "support/process.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace json = boost::json;

TEST_CASE("reach e2e: libwebrtc's UDP host candidates answer our checks", "[e2e][reach][webrtc]") {
  // A loopback UDP port held by the test and never read: nothing answers there.
  asio::io_context ioc;
  asio::ip::udp::socket closed{ioc, {asio::ip::make_address("127.0.0.1"), 0}};
  auto closed_port = std::to_string(closed.local_endpoint().port());

  child_process target{{NODE_BIN, WEBRTC_TARGET_DIR "/target.js", "--stack", "libwebrtc",
                        "--port", "0", "--extra-candidate",
                        "candidate:9 1 udp 1 127.0.0.1 " + closed_port + " typ host"}};
  auto line = target.wait_for_line(
    [](const std::string& l) { return l.find("\"event\":\"listening\"") != std::string::npos; },
    20s);
  REQUIRE(line);
  service_process svc;

  std::string body = R"({"host":"127.0.0.1","port":)" + std::to_string(port_from_line(*line))
                     + R"(,"tls":false,"probe":true})";
  auto reply = http_request(svc.port(), "POST", "/api/offer",
                            {{"Content-Type", "application/json"}}, body, 30s);
  INFO("status " << reply.status << ", body " << reply.body.substr(0, 4000));
  REQUIRE(reply.status == 200);
  auto parsed = reply.json().as_object();

  int stack_udp_loopback = 0;
  bool saw_closed = false;
  for (const auto& value : parsed.at("candidates").as_array()) {
    const auto& c = value.as_object();
    std::string address{c.at("address").as_string()};
    INFO("candidate " << c.at("raw"));
    if (c.at("transport") != "udp") {
      CHECK(c.at("refused") == "not_udp");
      CHECK(c.at("reachable").is_null());
      continue;
    }
    if (std::to_string(c.at("port").as_int64()) == closed_port) {
      saw_closed = true;
      CHECK(c.at("reachable") == false);
      CHECK(c.at("checkResult") == "timeout");
      continue;
    }
    if (address == "127.0.0.1" || address == "::1") {
      // libwebrtc's own host candidates on loopback, which --allow-loopback lets us check.
      ++stack_udp_loopback;
      CHECK(c.at("reachable") == true);
      CHECK(c.at("checkResult") == "reachable");
      REQUIRE(c.at("rttMs").is_number());
      CHECK(c.at("rttMs").to_number<double>() >= 0);
      CHECK(c.at("rttMs").to_number<double>() < 1500);
    } else {
      // The machine's other interfaces are not loopback: the address policy keeps our UDP
      // away from them.
      CHECK(c.at("refused") == "policy");
      CHECK(c.at("reachable").is_null());
    }
  }
  CHECK(stack_udp_loopback >= 1);
  CHECK(saw_closed);
  CHECK(parsed.at("reachability").at("reachable").as_int64() == stack_udp_loopback);
}
