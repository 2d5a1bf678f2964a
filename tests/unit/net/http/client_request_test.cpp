#include <catch2/catch.hpp>

#include "net/http/client_request.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using boost::asio::ip::make_address;

namespace {

std::vector<cidr> proxies(std::initializer_list<const char*> list) {
  std::vector<cidr> out;
  for (auto text : list)
    out.push_back(*parse_cidr(text));
  return out;
}

} // namespace

TEST_CASE("clients: the socket peer when no proxy is trusted", "[client]") {
  auto id = identify_client(make_address("198.51.100.7"), "203.0.113.9", {});
  CHECK(id.address.to_string() == "198.51.100.7");
  CHECK(id.subject == "198.51.100.7");
}

TEST_CASE("clients: X-Forwarded-For from an untrusted peer is ignored", "[client]") {
  auto id = identify_client(make_address("198.51.100.7"), "203.0.113.9",
                            proxies({"10.0.0.0/8"}));
  CHECK(id.subject == "198.51.100.7");
}

TEST_CASE("clients: the right-most untrusted hop behind trusted proxies", "[client]") {
  auto trusted = proxies({"10.0.0.0/8"});
  // The client claims 1.1.1.1, the edge proxy saw 203.0.113.9, an inner proxy 10.0.0.5.
  auto id = identify_client(make_address("10.0.0.2"), "1.1.1.1, 203.0.113.9, 10.0.0.5",
                            trusted);
  CHECK(id.subject == "203.0.113.9");
  // With ports and IPv6 brackets.
  id = identify_client(make_address("10.0.0.2"), "[2001:db8:1:2::9]:4711", trusted);
  CHECK(id.subject == "2001:db8:1:2::/64");
  id = identify_client(make_address("10.0.0.2"), "203.0.113.9:4711", trusted);
  CHECK(id.subject == "203.0.113.9");
}

TEST_CASE("clients: a malformed hop stops the walk at the last trusted one", "[client]") {
  auto trusted = proxies({"10.0.0.0/8"});
  auto id = identify_client(make_address("10.0.0.2"), "203.0.113.9, garbage", trusted);
  CHECK(id.subject == "10.0.0.2");
  id = identify_client(make_address("10.0.0.2"), "203.0.113.9, 10.0.0.7, ", trusted);
  CHECK(id.subject == "10.0.0.2");
}

TEST_CASE("clients: all hops trusted gives the left-most", "[client]") {
  auto id = identify_client(make_address("10.0.0.2"), "10.0.0.9, 10.0.0.8",
                            proxies({"10.0.0.0/8"}));
  CHECK(id.subject == "10.0.0.9");
}

TEST_CASE("clients: IPv6 counted per /64, mapped IPv4 as IPv4", "[client]") {
  CHECK(quota_subject(make_address("2001:db8:aaaa:bbbb:1:2:3:4")) == "2001:db8:aaaa:bbbb::/64");
  CHECK(quota_subject(make_address("2001:db8:aaaa:bbbb:ffff::1"))
        == quota_subject(make_address("2001:db8:aaaa:bbbb::2")));
  CHECK(quota_subject(make_address("2001:db8:aaaa:bbbc::1"))
        != quota_subject(make_address("2001:db8:aaaa:bbbb::1")));
  CHECK(quota_subject(make_address("::ffff:198.51.100.7")) == "198.51.100.7");
  auto id = identify_client(make_address("::ffff:10.0.0.2"), "203.0.113.9",
                            proxies({"10.0.0.0/8"}));
  CHECK(id.subject == "203.0.113.9");
}
