// Tests for net/report/raknet_status: the pings an exchange sends, the judge of what comes
// back, and the "raknet" reply (fields, nulls, warnings, error codes) from an exchange's end,
// without sockets; and one exchange over loopback against a RakNet responder in the test.
#include <catch2/catch.hpp>

#include <array>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/json.hpp>

#include "base/cidr.hpp"
#include "net/raknet/unconnected.hpp"
#include "net/report/raknet_status.hpp"
#include "support/udp_peer.hpp"
#include "support/rooms.hpp"
#include "support/wire_bytes.hpp"

using namespace netherscope::test;
namespace json = boost::json;
namespace asio = boost::asio;

namespace {

std::string pong_bytes(std::int64_t time, const std::string& text) {
  std::string out(1, '\x1c');
  out += be64(static_cast<std::uint64_t>(time)) + be64(99);
  out.append(reinterpret_cast<const char*>(raknet::offline_magic.data()), 16);
  out.push_back(static_cast<char>(text.size() >> 8));
  out.push_back(static_cast<char>(text.size() & 0xff));
  return out + text;
}

const raknet_pings pings{0x1122334455667788ULL, 5000, 3};

udp_exchange_result answered(const std::string& datagram, std::size_t try_index = 0,
                             const std::string& address = "203.0.113.7") {
  udp_exchange_result r;
  r.outcome = udp_outcome::answered;
  r.reply = datagram;
  r.latency_ms = 12.345;
  r.try_index = try_index;
  r.address = address;
  r.tries_sent = 1;
  return r;
}

json::object body_of(const raknet_reply& reply) {
  return json::parse(reply.body).as_object();
}

} // namespace

TEST_CASE("raknet status: each try carries its own time, and the judge names the try",
          "[raknet_status]") {
  auto request = raknet_exchange("play.example.com", 19132, pings);
  CHECK(request.host == "play.example.com");
  CHECK(request.port == 19132);
  auto second = request.datagram(1);
  REQUIRE(second.size() == raknet::ping_size);
  CHECK(second.substr(1, 8) == be64(5001));
  CHECK(second.substr(25, 8) == be64(0x1122334455667788ULL));

  auto j = request.judge(pong_bytes(5002, "MCPE;x;"));
  CHECK(j.verdict == reply_verdict::accepted);
  CHECK(j.try_index == 2);
  // Anything else from the target is a broken answer, said in a clause.
  auto bad = judge_pong(pong_bytes(4999, "MCPE;x;"), pings);
  CHECK(bad.verdict == reply_verdict::malformed);
  CHECK(bad.reason == "it does not echo the time of our ping");
  CHECK(judge_pong("hello", pings).verdict == reply_verdict::malformed);

  // The process's pings: one GUID, times that do not run backwards.
  auto a = next_raknet_pings();
  auto b = next_raknet_pings(2);
  CHECK(a.client_guid == b.client_guid);
  CHECK(b.first_time >= a.first_time);
  CHECK(b.count == 2);
}

TEST_CASE("raknet status: a BDS pong becomes the raknet object", "[raknet_status]") {
  auto text = std::string{"MCPE;\xC2\xA7" "aDedicated Server;527;1.19.1;0;10;13253860892328930865;"
                          "Bedrock level;Survival;1;19132;19133;0;1;0;"};
  auto reply = make_raknet_reply(answered(pong_bytes(5000, text)), 19132, pings);
  REQUIRE(reply.ok);
  CHECK(reply.tried);
  CHECK(reply.protocol == 527);
  CHECK(reply.version == "1.19.1");
  CHECK(reply.motd == "Dedicated Server");
  CHECK(reply.latency_ms == Approx(12.35));
  auto b = body_of(reply);
  CHECK(b["ok"] == true);
  CHECK(b["latencyMs"].as_double() == Approx(12.35));
  CHECK(b["address"] == "203.0.113.7");
  CHECK(b["port"] == 19132);
  CHECK(b["edition"] == "MCPE");
  CHECK(b["motd"] == "\xC2\xA7" "aDedicated Server");
  CHECK(b["motdPlain"] == "Dedicated Server");
  // Both lines of the server list, formatted: the MOTD, then the level's name.
  CHECK(b["motdFormatted"].at("raw") == "\xC2\xA7" "aDedicated Server\nBedrock level");
  CHECK(b["motdFormatted"].at("clean") == "Dedicated Server\nBedrock level");
  CHECK(b["motdFormatted"].at("html") == "<span class=\"mc-a\">Dedicated Server</span><br>Bedrock level");
  CHECK(b["level"] == "Bedrock level");
  CHECK(b["protocol"] == 527);
  CHECK(b["version"] == "1.19.1");
  CHECK(b["players"] == 0);
  CHECK(b["maxPlayers"] == 10);
  CHECK(b["gameMode"] == "Survival");
  CHECK(b["gameModeId"] == 1);
  CHECK(b["serverGuid"] == "13253860892328930865");
  CHECK(b["portV4"] == 19132);
  CHECK(b["portV6"] == 19133);
  CHECK(b["extra"] == json::array{"0", "1", "0"});
  CHECK(b["fieldCount"] == 15);
  CHECK(b["warnings"].as_array().empty());
  CHECK(b["warningCodes"].as_array().empty());
}

TEST_CASE("raknet status: absent fields are null, odd ones warned about", "[raknet_status]") {
  SECTION("PocketMine: no mode number, no ports") {
    auto reply = make_raknet_reply(
      answered(pong_bytes(5000, "MCPE;PM;2193;1.26.51;0;20;1;PocketMine-MP;Survival;")), 19132,
      pings);
    auto b = body_of(reply);
    CHECK(b["gameModeId"].is_null());
    CHECK(b["portV4"].is_null());
    CHECK(b["portV6"].is_null());
    CHECK(b["warnings"].as_array().empty());
  }
  SECTION("fewer than 6 fields") {
    auto b = body_of(make_raknet_reply(answered(pong_bytes(5000, "MCPE;Tiny")), 19132, pings));
    CHECK(b["motd"] == "Tiny");
    CHECK(b["protocol"].is_null());
    CHECK(b["version"].is_null());
    CHECK(b["serverGuid"].is_null());
    CHECK(b["fieldCount"] == 2);
  }
  SECTION("invalid UTF-8 is replaced, and said") {
    auto reply = make_raknet_reply(answered(pong_bytes(5000, "MCPE;bad \xff name;1;v\xfe;")),
                                   19132, pings);
    REQUIRE(reply.ok);
    auto b = body_of(reply);
    CHECK(b["motd"] == "bad \xEF\xBF\xBD name");
    CHECK(b["version"] == "v\xEF\xBF\xBD");
    CHECK(reply.version == "v\xEF\xBF\xBD");
    CHECK(b["warningCodes"] == json::array{"status_not_utf8"});
  }
  SECTION("the pong names another port than the one pinged") {
    auto text = std::string{"MCPE;N;2193;1.26.51;0;10;1;L;Survival;1;19140;19141;"};
    auto v4 = body_of(make_raknet_reply(answered(pong_bytes(5000, text)), 19132, pings));
    CHECK(v4["warningCodes"] == json::array{"pong_port_differs"});
    CHECK(v4["warnings"].as_array()[0].as_string().find("IPv4 port 19140") != json::string::npos);
    auto v6 = body_of(
      make_raknet_reply(answered(pong_bytes(5000, text), 0, "2001:db8::7"), 19141, pings));
    CHECK(v6["warnings"].as_array().empty());
  }
  SECTION("a long pong") {
    auto b = body_of(make_raknet_reply(
      answered(pong_bytes(5000, "MCPE;" + std::string(1395, 'x') + ";")), 19132, pings));
    CHECK(b["warningCodes"] == json::array{"long_pong"});
    CHECK(b["warnings"].as_array()[0].as_string().find("1436 bytes") != json::string::npos);
  }
}

TEST_CASE("raknet status: each way an exchange fails has its code", "[raknet_status]") {
  auto failed = [](udp_outcome outcome) {
    udp_exchange_result r;
    r.outcome = outcome;
    r.message = "what happened";
    return make_raknet_reply(r, 19132, pings);
  };
  for (auto [outcome, code] : std::array<std::pair<udp_outcome, const char*>, 7>{{
         {udp_outcome::no_listener, "no_listener"},
         {udp_outcome::timeout, "timeout"},
         {udp_outcome::malformed, "malformed_pong"},
         {udp_outcome::forbidden, "forbidden_target"},
         {udp_outcome::lookup_failed, "lookup_failed"},
         {udp_outcome::lookup_timeout, "lookup_timeout"},
         {udp_outcome::unreachable, "unreachable"},
       }}) {
    auto reply = failed(outcome);
    CHECK(reply.tried);
    CHECK_FALSE(reply.ok);
    CHECK(reply.code == code);
    CHECK(reply.port == 19132);
    auto b = body_of(reply);
    CHECK(b == json::object{{"ok", false}, {"code", code}, {"error", "what happened"}});
  }
  // A reply that is not a pong to these pings is never read as one.
  auto wrong = make_raknet_reply(answered(pong_bytes(1, "MCPE;x;")), 19132, pings);
  CHECK_FALSE(wrong.ok);
  CHECK(wrong.code == "malformed_pong");
}

TEST_CASE("raknet status: one exchange over loopback, end to end", "[raknet_status]") {
  // A RakNet server in miniature: it answers each ping with a pong that echoes its time.
  test::udp_peer server{[](std::string_view ping, const asio::ip::udp::endpoint&) {
    test::udp_peer::answer out;
    if (ping.size() != raknet::ping_size)
      return out;
    std::string pong = pong_bytes(0, "MCPE;Loopback;2193;1.26.51;1;10;5;L;Survival;1;;;");
    pong.replace(1, 8, std::string{ping.substr(1, 8)});
    out.replies.push_back(pong);
    return out;
  }};
  asio::io_context ioc;
  udp_exchanger exchanger{ioc, nullptr, address_policy{{*parse_cidr("127.0.0.0/8")}, {}}};
  auto port = server.port();
  auto these = next_raknet_pings();
  auto request = raknet_exchange("127.0.0.1", port, these);
  request.addresses = {asio::ip::make_address("127.0.0.1")};
  raknet_reply reply;
  exchanger.run(std::move(request),
                [&](udp_exchange_result&& r) { reply = make_raknet_reply(r, port, these); });
  ioc.run();
  REQUIRE(reply.ok);
  CHECK(reply.motd == "Loopback");
  CHECK(reply.protocol == 2193);
  auto b = body_of(reply);
  CHECK(b["address"] == "127.0.0.1");
  CHECK(b["portV4"].is_null());
  CHECK(b["latencyMs"].as_double() >= 0);
}
