// End-to-end tests of the RakNet status: the service's UDP exchange and pong reader
// (net/upstream/udp_exchange, net/report/raknet_status) against the fake target's RakNet
// responder, a process that speaks RakNet with code of its own, in each server's style and
// with each hostile pong; and the fake's --raknet modes and counters.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>

#include "base/cidr.hpp"
#include "net/report/raknet_status.hpp"
#include "support/http.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
namespace json = boost::json;

namespace {

/// Pings 127.0.0.1:port once, as the service does, and reads the reply.
raknet_reply ping(unsigned port) {
  boost::asio::io_context ioc;
  std::string error;
  auto resolver = dns_resolver::make(ioc, dns_settings{}, error);
  REQUIRE(resolver);
  udp_exchanger exchanger{ioc, resolver, address_policy{{*parse_cidr("127.0.0.0/8")}, {}}};
  auto pings = next_raknet_pings();
  raknet_reply reply;
  exchanger.run(raknet_exchange("127.0.0.1", static_cast<std::uint16_t>(port), pings),
                [&](udp_exchange_result&& r) {
                  reply = make_raknet_reply(r, static_cast<std::uint16_t>(port), pings);
                });
  ioc.run();
  resolver->stop();
  return reply;
}

json::object body_of(const raknet_reply& reply) {
  return json::parse(reply.body).as_object();
}

} // namespace

TEST_CASE("raknet e2e: each server style's pong reads", "[e2e][raknet]") {
  struct style {
    std::string name;
    std::size_t fields;
    bool ports;
    bool negative_id;
  };
  for (const auto& s : std::vector<style>{{"bds", 12, true, false},
                                          {"bds-trailer", 15, true, false},
                                          {"geyser", 12, true, false},
                                          {"pocketmine", 9, false, false},
                                          {"nukkit", 10, false, true},
                                          {"pumpkin", 13, true, false}}) {
    INFO("style " << s.name);
    fake_target_process fake{{"--raknet", "on", "--raknet-style", s.name}};
    auto reply = ping(fake.port());
    INFO(reply.body);
    REQUIRE(reply.ok);
    CHECK(reply.protocol == 2193);
    CHECK(reply.version == "1.26.51");
    CHECK(reply.motd == "Fake BDS");
    auto b = body_of(reply);
    CHECK(b.at("fieldCount") == s.fields);
    CHECK(b.at("edition") == "MCPE");
    CHECK(b.at("maxPlayers") == 10);
    CHECK(b.at("serverGuid").is_string());
    CHECK(b.at("portV4").is_null() != s.ports);
    if (s.ports)
      CHECK(b.at("portV4") == fake.port());
    CHECK(b.at("warnings").as_array().empty());
    CHECK(stat(fake, "raknet_pings") == 1);
    CHECK(stat(fake, "raknet_pongs") == 1);
  }
}

TEST_CASE("raknet e2e: each hostile pong gets its code", "[e2e][raknet]") {
  struct hostile {
    std::string fault;
    std::string code;
    std::string words;
  };
  for (const auto& h : std::vector<hostile>{
         {"silent", "timeout", "no answer on UDP"},
         {"wrong-magic", "malformed_pong", "offline magic"},
         {"no-echo", "malformed_pong", "does not echo the time"},
         {"other-port", "timeout", "no answer on UDP"},
         {"oversize", "malformed_pong", "larger than the 1500 bytes"},
         {"incompatible", "malformed_pong", "incompatible-protocol message (0x19)"},
         {"length-past-end", "malformed_pong", "runs past the end"},
         {"no-length", "malformed_pong", "runs past the end"},
       }) {
    INFO("fault " << h.fault);
    fake_target_process fake{{"--raknet", "on", "--raknet-fault", h.fault}};
    auto reply = ping(fake.port());
    INFO(reply.body);
    CHECK_FALSE(reply.ok);
    CHECK(reply.code == h.code);
    CHECK(reply.message.find(h.words) != std::string::npos);
    // Every try was heard; silence and another port's answers leave all three unanswered.
    CHECK(stat(fake, "raknet_pings") >= 1);
  }
}

TEST_CASE("raknet e2e: odd but readable pongs read, with their warnings", "[e2e][raknet]") {
  fake_target_process long_string{{"--raknet", "on", "--raknet-fault", "long-string"}};
  auto l = body_of(ping(long_string.port()));
  CHECK(l.at("ok") == true);
  CHECK(l.at("warningCodes") == json::array{"long_pong"});

  fake_target_process bad_utf8{{"--raknet", "on", "--raknet-fault", "bad-utf8"}};
  auto u = body_of(ping(bad_utf8.port()));
  CHECK(u.at("ok") == true);
  CHECK(u.at("motd") == "Fake BDS \xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(u.at("warningCodes") == json::array{"status_not_utf8"});

  fake_target_process truncated{{"--raknet", "on", "--raknet-fault", "truncated"}};
  auto t = body_of(ping(truncated.port()));
  CHECK(t.at("ok") == true);
  CHECK(t.at("fieldCount") == 3);
  CHECK(t.at("protocol") == 2193);
  CHECK(t.at("version").is_null());
}

TEST_CASE("raknet e2e: --raknet off has no UDP listener, only has no TCP one", "[e2e][raknet]") {
  fake_target_process off;
  auto r = ping(off.port());
  CHECK(r.code == "no_listener");
  CHECK(stat(off, "raknet_pings") == 0);

  fake_target_process only{{"--raknet", "only", "--info",
                            R"({"name":"Old Server","protocol":527,"version":"1.19.1"})"}};
  CHECK(only.stats_port() != only.port());
  auto reply = ping(only.port());
  REQUIRE(reply.ok);
  CHECK(reply.protocol == 527);
  CHECK(reply.motd == "Old Server");
  // Nothing listens on the game port's TCP side.
  auto status = http_request(only.port(), "GET", "/v1/join", {}, {}, std::chrono::seconds(5));
  CHECK(status.status == 0);
  // The stats' own port answers nothing else.
  auto elsewhere = http_request(only.stats_port(), "GET", "/v1/join", {}, {},
                                std::chrono::seconds(5));
  CHECK(elsewhere.status == 404);
  CHECK(stat(only, "raknet_pings") == 1);
}

TEST_CASE("raknet e2e: --port-count answers pings on each port of the run as that port",
          "[e2e][raknet]") {
  fake_target_process fake{{"--raknet", "on", "--port-count", "3"}};
  for (unsigned port = fake.port(); port < fake.port() + 3; ++port) {
    INFO("port " << port);
    auto reply = ping(port);
    INFO(reply.body);
    REQUIRE(reply.ok);
    CHECK(body_of(reply).at("portV4") == port);
    // The TCP side of each port serves NetherNet beside it.
    CHECK(http_request(port, "GET", "/v1/join", {}, {}, std::chrono::seconds(10)).status == 200);
  }
  CHECK(stat(fake, "raknet_pings") == 3);
  CHECK(stat(fake, "status_requests") == 3);
}
