// Tests for net/upstream/udp_exchange over loopback UDP, against a small udp_responder in the test:
// an accepted answer and its latency, ICMP port unreachable told apart from silence, replies
// from another port dropped, broken and oversized replies, the address policy, the lookup and
// the tries within the deadline.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>

#include "base/cidr.hpp"
#include "net/upstream/udp_exchange.hpp"
#include "support/udp_peer.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using udp = asio::ip::udp;

namespace {

address_policy udp_loopback_policy() {
  return address_policy{{*parse_cidr("127.0.0.0/8"), *parse_cidr("::1/128")}, {}};
}

/// How the udp_responder meets a request.
enum class behaviour {
  answer,        ///< "re:" + the request, from its own port
  silent,        ///< nothing
  other_port,    ///< "re:" + the request, from another socket's port
  broken,        ///< "bad"
  oversized,     ///< 1,600 bytes
  second_only,   ///< answers only the request "try:1"
  broken_first,  ///< "bad", then "re:" + the request
};

/// A UDP peer on a loopback port that meets each request as `how` says.
class udp_responder : public netherscope::test::udp_peer {
public:
  explicit udp_responder(behaviour how) : udp_peer([how](std::string_view datagram, const udp::endpoint&) {
      return answer_for(how, std::string{datagram});
    }) {
    // nop
  }
  int requests() const {
    return datagrams();
  }

private:
  static answer answer_for(behaviour how, const std::string& request) {
    answer out;
    switch (how) {
      case behaviour::answer:
        out.replies = {"re:" + request};
        break;
      case behaviour::silent:
        break;
      case behaviour::other_port:
        out.from_other_port = {"re:" + request};
        break;
      case behaviour::broken:
        out.replies = {"bad"};
        break;
      case behaviour::oversized:
        out.replies = {"re:" + request + std::string(1600, 'x')};
        break;
      case behaviour::second_only:
        if (request == "try:1")
          out.replies = {"re:" + request};
        break;
      case behaviour::broken_first:
        out.replies = {"bad", "re:" + request};
        break;
    }
    return out;
  }
};

/// A port nothing listens on: bound, then closed (the kernel does not hand it out again at once).
std::uint16_t closed_port() {
  asio::io_context ioc;
  udp::socket s{ioc, {asio::ip::make_address("127.0.0.1"), 0}};
  return s.local_endpoint().port();
}

udp_exchange_request request_to(const std::string& host, std::uint16_t port) {
  udp_exchange_request r;
  r.host = host;
  r.port = port;
  r.datagram = [](std::size_t i) { return "try:" + std::to_string(i); };
  r.judge = [](std::string_view d) {
    reply_judgement j;
    if (d.substr(0, 7) == "re:try:") {
      j.verdict = reply_verdict::accepted;
      j.try_index = static_cast<std::size_t>(d[7] - '0');
    } else if (d == "bad") {
      j.verdict = reply_verdict::malformed;
      j.reason = "it is bad";
    }
    return j;
  };
  return r;
}

struct run_result {
  udp_exchange_result result;
  std::chrono::milliseconds took{0};
};

run_result exchange(udp_exchange_request request, address_policy policy = udp_loopback_policy(),
                    udp_exchange_settings settings = {}) {
  asio::io_context ioc;
  std::string error;
  auto resolver = dns_resolver::make(ioc, dns_settings{}, error);
  REQUIRE(resolver);
  udp_exchanger exchanger{ioc, resolver, std::move(policy), std::move(settings)};
  run_result out;
  int calls = 0;
  auto start = std::chrono::steady_clock::now();
  exchanger.run(std::move(request), [&](udp_exchange_result&& r) {
    out.result = std::move(r);
    ++calls;
  });
  ioc.run();
  out.took = std::chrono::duration_cast<std::chrono::milliseconds>(
    std::chrono::steady_clock::now() - start);
  resolver->stop();
  REQUIRE(calls == 1);
  return out;
}

} // namespace

TEST_CASE("udp exchange: the first accepted reply ends it, timed from its try", "[udp_exchange]") {
  udp_responder peer{behaviour::answer};
  auto r = exchange(request_to("127.0.0.1", peer.port()));
  CHECK(r.result.outcome == udp_outcome::answered);
  CHECK(r.result.reply == "re:try:0");
  CHECK(r.result.try_index == 0);
  CHECK(r.result.address == "127.0.0.1");
  CHECK(r.result.tries_sent == 1);
  CHECK(r.result.latency_ms >= 0);
  CHECK(r.result.latency_ms < 200);
  CHECK(r.took < 500ms);
  CHECK(peer.requests() == 1);
}

TEST_CASE("udp exchange: the latency counts from the try that was answered", "[udp_exchange]") {
  udp_responder peer{behaviour::second_only};
  auto r = exchange(request_to("127.0.0.1", peer.port()));
  REQUIRE(r.result.outcome == udp_outcome::answered);
  CHECK(r.result.try_index == 1);
  CHECK(r.result.tries_sent == 2);
  // The second try left 250 ms after the first; timed from the first it would be over 250.
  CHECK(r.result.latency_ms < 200);
  CHECK(r.took >= 240ms);
}

TEST_CASE("udp exchange: ICMP port unreachable is no_listener, silence a timeout",
          "[udp_exchange]") {
  auto port = closed_port();
  auto refused = exchange(request_to("127.0.0.1", port));
  CHECK(refused.result.outcome == udp_outcome::no_listener);
  CHECK(refused.result.message == "nothing listens on UDP 127.0.0.1:" + std::to_string(port)
                                    + ": the host answered with ICMP port unreachable");
  // It ends at the port unreachable, long before the deadline.
  CHECK(refused.took < 500ms);

  udp_responder peer{behaviour::silent};
  auto silent = exchange(request_to("127.0.0.1", peer.port()));
  CHECK(silent.result.outcome == udp_outcome::timeout);
  CHECK(silent.result.tries_sent == 3);
  CHECK(peer.requests() == 3);
  CHECK(silent.result.message == "no answer on UDP 127.0.0.1:" + std::to_string(peer.port())
                                   + " within 1000 ms (3 tries)");
  CHECK(silent.took >= 990ms);
  CHECK(silent.took < 1500ms);
}

TEST_CASE("udp exchange: a reply from another port is never heard", "[udp_exchange]") {
  udp_responder peer{behaviour::other_port};
  auto r = exchange(request_to("127.0.0.1", peer.port()));
  CHECK(r.result.outcome == udp_outcome::timeout);
  CHECK(peer.requests() == 3);
}

TEST_CASE("udp exchange: broken and oversized replies are malformed", "[udp_exchange]") {
  udp_responder broken{behaviour::broken};
  auto r = exchange(request_to("127.0.0.1", broken.port()));
  CHECK(r.result.outcome == udp_outcome::malformed);
  CHECK(r.result.message == "UDP 127.0.0.1:" + std::to_string(broken.port())
                              + " answered, but it is bad");

  udp_responder big{behaviour::oversized};
  auto o = exchange(request_to("127.0.0.1", big.port()));
  CHECK(o.result.outcome == udp_outcome::malformed);
  CHECK(o.result.message.find("larger than the 1500 bytes") != std::string::npos);

  // A good reply after a broken one still answers.
  udp_responder mixed{behaviour::broken_first};
  auto m = exchange(request_to("127.0.0.1", mixed.port()));
  CHECK(m.result.outcome == udp_outcome::answered);
  CHECK(m.result.reply == "re:try:0");
}

TEST_CASE("udp exchange: the address policy refuses before anything is sent", "[udp_exchange]") {
  udp_responder peer{behaviour::answer};
  auto r = exchange(request_to("127.0.0.1", peer.port()), address_policy{});
  CHECK(r.result.outcome == udp_outcome::forbidden);
  CHECK(r.result.message == "target 127.0.0.1:" + std::to_string(peer.port())
                              + " refused: 127.0.0.1 is loopback (127.0.0.0/8)");
  CHECK(r.result.tries_sent == 0);
  CHECK(peer.requests() == 0);

  // Addresses the caller resolved are checked the same way.
  auto given = request_to("play.example", peer.port());
  given.addresses = {asio::ip::make_address("10.0.0.5")};
  auto g = exchange(std::move(given), address_policy{});
  CHECK(g.result.outcome == udp_outcome::forbidden);
  CHECK(g.result.message.find("refused: 10.0.0.5 is private") != std::string::npos);
}

TEST_CASE("udp exchange: names are looked up once, localhost without a query",
          "[udp_exchange]") {
  udp_responder peer{behaviour::answer};
  // localhost is 127.0.0.1 and ::1: the IPv4 address answers (nothing listens on ::1's port).
  auto r = exchange(request_to("localhost", peer.port()));
  CHECK(r.result.outcome == udp_outcome::answered);
  CHECK(r.result.address == "127.0.0.1");

  auto given = request_to("play.example", peer.port());
  given.addresses = {asio::ip::make_address("127.0.0.1")};
  CHECK(exchange(std::move(given)).result.outcome == udp_outcome::answered);
}

TEST_CASE("udp exchange: a shorter deadline ends the tries sooner", "[udp_exchange]") {
  udp_responder peer{behaviour::silent};
  auto request = request_to("127.0.0.1", peer.port());
  request.deadline = 300ms;
  auto r = exchange(std::move(request));
  CHECK(r.result.outcome == udp_outcome::timeout);
  CHECK(r.result.tries_sent == 2);
  CHECK(r.took < 900ms);

  // A later one than the settings' is cut to it.
  auto longer = request_to("127.0.0.1", peer.port());
  longer.deadline = 5000ms;
  auto l = exchange(std::move(longer));
  CHECK(l.result.tries_sent == 3);
  CHECK(l.took < 1500ms);
  CHECK(to_string(udp_outcome::no_listener) == "no_listener");
}
