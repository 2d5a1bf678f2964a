// Tests of the address policy: parsing and matching of CIDRs, the default refusals at the
// edges of every range, the IPv4 forms hidden in IPv6 addresses, and the allow and deny options.
#include "net/upstream/address_policy.hpp"

#include "base/address_scope.hpp"

#include <array>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

using netherscope::net::upstream::address_policy;
using netherscope::base::cidr;
using netherscope::base::parse_cidr;
using netherscope::net::upstream::policy_verdict;

namespace {

using boost::asio::ip::address;
using boost::asio::ip::address_v4;
using boost::asio::ip::address_v6;

/// Parses an address literal written in a test; a typo fails the test instead of throwing.
address ip(const std::string& text) {
  boost::system::error_code ec;
  auto result = boost::asio::ip::make_address(text, ec);
  INFO("address literal in the test: " << text);
  REQUIRE_FALSE(ec);
  return result;
}

/// Parses a CIDR written in a test, which must be valid.
cidr cidr_of(const std::string& text) {
  auto result = parse_cidr(text);
  INFO("cidr literal in the test: " << text);
  REQUIRE(result.has_value());
  return *result;
}

policy_verdict check(const address_policy& policy, const std::string& text) {
  return policy.check(ip(text));
}

bool allowed(const address_policy& policy, const std::string& text) {
  return check(policy, text).allowed;
}

/// An IPv6 address made of a 12-byte prefix and an IPv4 address in the last 32 bits.
address embed_last_32(std::array<unsigned char, 12> prefix, const std::string& v4) {
  const auto b = ip(v4).to_v4().to_bytes();
  address_v6::bytes_type bytes{};
  for (std::size_t i = 0; i < 12; ++i)
    bytes[i] = prefix[i];
  for (std::size_t i = 0; i < 4; ++i)
    bytes[12 + i] = b[i];
  return address{address_v6{bytes}};
}

/// The IPv4-mapped form ::ffff:a.b.c.d.
address mapped(const std::string& v4) {
  return embed_last_32({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF}, v4);
}

/// The NAT64 well-known-prefix form 64:ff9b::a.b.c.d.
address nat64(const std::string& v4) {
  return embed_last_32({0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0}, v4);
}

/// The 6to4 form 2002:aabb:ccdd::1, with the IPv4 address in bits 16..47.
address six_to_four(const std::string& v4) {
  const auto b = ip(v4).to_v4().to_bytes();
  address_v6::bytes_type bytes{};
  bytes[0] = 0x20;
  bytes[1] = 0x02;
  for (std::size_t i = 0; i < 4; ++i)
    bytes[2 + i] = b[i];
  bytes[15] = 1;
  return address{address_v6{bytes}};
}

/// A refused default range with addresses at its start, middle and end, and its nearest
/// neighbours outside it that the defaults allow ("" where the neighbour is refused by another
/// range or does not exist).
struct range_case {
  std::string cidr;
  std::string first;
  std::string middle;
  std::string last;
  std::string before;
  std::string after;
};

// Written out independently of the table in address_policy.cpp, so a wrong row there fails here.
const std::vector<range_case> v4_ranges{
  {"0.0.0.0/8", "0.0.0.0", "0.128.0.1", "0.255.255.255", "", "1.0.0.0"},
  {"10.0.0.0/8", "10.0.0.0", "10.1.2.3", "10.255.255.255", "9.255.255.255", "11.0.0.0"},
  {"100.64.0.0/10", "100.64.0.0", "100.100.0.1", "100.127.255.255", "100.63.255.255",
   "100.128.0.0"},
  {"127.0.0.0/8", "127.0.0.0", "127.0.0.1", "127.255.255.255", "126.255.255.255", "128.0.0.0"},
  {"169.254.0.0/16", "169.254.0.0", "169.254.169.254", "169.254.255.255", "169.253.255.255",
   "169.255.0.0"},
  {"172.16.0.0/12", "172.16.0.0", "172.20.1.1", "172.31.255.255", "172.15.255.255",
   "172.32.0.0"},
  {"192.0.0.0/24", "192.0.0.0", "192.0.0.170", "192.0.0.255", "191.255.255.255", "192.0.1.0"},
  {"192.0.2.0/24", "192.0.2.0", "192.0.2.128", "192.0.2.255", "192.0.1.255", "192.0.3.0"},
  {"192.88.99.0/24", "192.88.99.0", "192.88.99.1", "192.88.99.255", "192.88.98.255",
   "192.88.100.0"},
  {"192.168.0.0/16", "192.168.0.0", "192.168.1.1", "192.168.255.255", "192.167.255.255",
   "192.169.0.0"},
  {"198.18.0.0/15", "198.18.0.0", "198.19.0.1", "198.19.255.255", "198.17.255.255",
   "198.20.0.0"},
  {"198.51.100.0/24", "198.51.100.0", "198.51.100.7", "198.51.100.255", "198.51.99.255",
   "198.51.101.0"},
  {"203.0.113.0/24", "203.0.113.0", "203.0.113.50", "203.0.113.255", "203.0.112.255",
   "203.0.114.0"},
  {"224.0.0.0/4", "224.0.0.0", "232.1.2.3", "239.255.255.255", "223.255.255.255", ""},
  {"240.0.0.0/4", "240.0.0.0", "248.0.0.1", "255.255.255.255", "", ""},
};

const std::vector<range_case> v6_ranges{
  {"::/128", "::", "::", "::", "", ""},
  {"::1/128", "::1", "::1", "::1", "", ""},
  {"::/96", "::2", "::8.8.8.8", "::255.255.255.255", "", ""},
  {"100::/64", "100::", "100::1234", "100::ffff:ffff:ffff:ffff", "", ""},
  {"64:ff9b:1::/48", "64:ff9b:1::", "64:ff9b:1:abcd::1", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff",
   "", ""},
  {"fc00::/7", "fc00::", "fd12:3456::1", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "", ""},
  {"fe80::/10", "fe80::", "fe80::1", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "", ""},
  {"fec0::/10", "fec0::", "fec0::1", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "", ""},
  {"ff00::/8", "ff00::", "ff02::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "", ""},
  {"2001::/23", "2001::", "2001:100::1", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff",
   "2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2001:200::"},
  {"2001:db8::/32", "2001:db8::", "2001:db8:1234::5", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
   "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", "2001:db9::"},
  {"3fff::/20", "3fff::", "3fff:800::1", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff",
   "3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "3fff:1000::"},
};

/// Checks a table of ranges against a policy with no options.
void check_default_ranges(const std::vector<range_case>& ranges) {
  const address_policy policy;
  for (const auto& r : ranges) {
    INFO("range " << r.cidr);
    for (const auto* inside : {&r.first, &r.middle, &r.last}) {
      INFO("inside: " << *inside);
      CHECK_FALSE(allowed(policy, *inside));
    }
    // The middle address is in no narrower range, so its reason names this range.
    const auto reason = check(policy, r.middle).reason;
    CHECK(reason.find("(" + r.cidr + ")") != std::string::npos);
    CHECK(reason.rfind(ip(r.middle).to_string() + " is ", 0) == 0);
    for (const auto* outside : {&r.before, &r.after}) {
      if (outside->empty())
        continue;
      INFO("outside: " << *outside);
      CHECK(allowed(policy, *outside));
    }
  }
}

} // namespace

// -- parse_cidr, to_string and contains --

TEST_CASE("parse_cidr accepts well-formed networks", "[address_policy]") {
  // Each input and its canonical rendering by to_string.
  const std::vector<std::pair<std::string, std::string>> cases{
    {"10.0.0.0/8", "10.0.0.0/8"},
    {"0.0.0.0/0", "0.0.0.0/0"},
    {"::/0", "::/0"},
    {"[::1]/128", "::1/128"},
    {"[::1]", "::1/128"},
    {"::1", "::1/128"},
    {"10.1.2.3", "10.1.2.3/32"},
    {"10.1.2.3/32", "10.1.2.3/32"},
    {"255.255.255.255/32", "255.255.255.255/32"},
    {"172.16.0.0/12", "172.16.0.0/12"},
    {"10.0.0.0/08", "10.0.0.0/8"},
    {"2001:DB8::/32", "2001:db8::/32"},
    {"2001:0db8:0000::/48", "2001:db8::/48"},
    {"fe80::/10", "fe80::/10"},
    {"::ffff:10.0.0.0/104", "::ffff:10.0.0.0/104"},
    {"2000::/3", "2000::/3"},
  };
  for (const auto& [text, canonical] : cases) {
    INFO("input: " << text);
    const auto parsed = parse_cidr(text);
    REQUIRE(parsed.has_value());
    CHECK(netherscope::base::to_string(*parsed) == canonical);
  }
}

TEST_CASE("parse_cidr reports the family and prefix", "[address_policy]") {
  const auto v4 = cidr_of("192.168.0.0/16");
  CHECK(v4.network.is_v4());
  CHECK(v4.prefix == 16u);
  const auto v6 = cidr_of("[2001:db8::]/32");
  CHECK(v6.network.is_v6());
  CHECK(v6.prefix == 32u);
  CHECK(cidr_of("10.1.2.3").prefix == 32u);
  CHECK(cidr_of("2606:4700::1").prefix == 128u);
}

TEST_CASE("parse_cidr refuses malformed networks", "[address_policy]") {
  const std::vector<std::string> cases{
    "",
    "/",
    "abc",
    "/8",
    "10.0.0.0/",
    "10.0.0.0/33",
    "10.0.0.0/1000",
    "10.0.0.0/0008",
    "10.0.0.0/08x",
    "10.0.0.0/-1",
    "10.0.0.0/+8",
    "10.0.0.0/8/8",
    "10.0.0.1/8",
    "1.0.0.0/0",
    "::1/129",
    "::1/0",
    "2001:db8::1/32",
    " 10.0.0.0/8",
    "10.0.0.0/8 ",
    "10.0.0.0 /8",
    "10.0.0.0/ 8",
    "10.0.0.0\t/8",
    "256.0.0.0/8",
    "10.0.0/8",
    "010.0.0.0/8",
    "0x0a.0.0.0/8",
    "1.2.3.4.5",
    "::1::2/128",
    "[10.0.0.0]/8",
    "[::1/128",
    "::1]/128",
    "[]/0",
    "[ ::1]/128",
    "fe80::1%eth0/128",
    "fe80::%1/64",
    "g::/16",
  };
  for (const auto& text : cases) {
    INFO("input: \"" << text << "\"");
    CHECK_FALSE(parse_cidr(text).has_value());
  }
}

TEST_CASE("to_string output parses back to the same network", "[address_policy]") {
  for (const std::string text : {"0.0.0.0/0", "100.64.0.0/10", "1.2.3.4/32", "::/0", "::1/128",
                                 "fc00::/7", "64:ff9b::/96", "[2001:db8::]/32", "3fff::/20"}) {
    INFO("input: " << text);
    const auto once = cidr_of(text);
    const auto again = parse_cidr(netherscope::base::to_string(once));
    REQUIRE(again.has_value());
    CHECK(again->network == once.network);
    CHECK(again->prefix == once.prefix);
  }
}

TEST_CASE("contains matches the prefix bit by bit", "[address_policy]") {
  using netherscope::base::contains;
  CHECK(contains(cidr_of("10.0.0.0/8"), ip("10.255.255.255")));
  CHECK_FALSE(contains(cidr_of("10.0.0.0/8"), ip("11.0.0.0")));
  CHECK(contains(cidr_of("172.16.0.0/12"), ip("172.31.255.255")));
  CHECK_FALSE(contains(cidr_of("172.16.0.0/12"), ip("172.32.0.0")));
  CHECK_FALSE(contains(cidr_of("172.16.0.0/12"), ip("172.15.255.255")));
  CHECK(contains(cidr_of("100.64.0.0/10"), ip("100.127.255.255")));
  CHECK_FALSE(contains(cidr_of("100.64.0.0/10"), ip("100.128.0.0")));
  CHECK(contains(cidr_of("1.2.3.4/32"), ip("1.2.3.4")));
  CHECK_FALSE(contains(cidr_of("1.2.3.4/32"), ip("1.2.3.5")));
  CHECK(contains(cidr_of("0.0.0.0/0"), ip("255.255.255.255")));
  CHECK(contains(cidr_of("fe80::/10"), ip("febf::1")));
  CHECK_FALSE(contains(cidr_of("fe80::/10"), ip("fec0::")));
  CHECK(contains(cidr_of("::/0"), ip("ffff::1")));
  CHECK(contains(cidr_of("::1/128"), ip("::1")));
  CHECK_FALSE(contains(cidr_of("::1/128"), ip("::2")));
}

TEST_CASE("contains never matches across address families", "[address_policy]") {
  using netherscope::base::contains;
  CHECK_FALSE(contains(cidr_of("0.0.0.0/0"), ip("::ffff:10.0.0.1")));
  CHECK_FALSE(contains(cidr_of("0.0.0.0/0"), ip("::1")));
  CHECK_FALSE(contains(cidr_of("::/0"), ip("10.0.0.1")));
  CHECK_FALSE(contains(cidr_of("::ffff:0:0/96"), ip("10.0.0.1")));
  // A hand-built cidr longer than its address is malformed and matches nothing.
  CHECK_FALSE(contains(cidr{ip("10.0.0.0"), 33}, ip("10.0.0.0")));
}

// -- default refusals --

TEST_CASE("defaults refuse every reserved IPv4 range to its edges", "[address_policy]") {
  check_default_ranges(v4_ranges);
}

TEST_CASE("defaults refuse every reserved IPv6 range to its edges", "[address_policy]") {
  check_default_ranges(v6_ranges);
}

TEST_CASE("defaults refuse IPv6 outside global unicast 2000::/3", "[address_policy]") {
  const address_policy policy;
  for (const std::string text : {"1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "4000::", "200::1",
                                 "8000::1", "e000::1", "::1:0:0:0", "::ffff:0:0:1"}) {
    INFO("address: " << text);
    const auto verdict = check(policy, text);
    CHECK_FALSE(verdict.allowed);
    CHECK(verdict.reason == ip(text).to_string() + " is not global unicast (outside 2000::/3)");
  }
  CHECK(allowed(policy, "2000::"));
  CHECK(allowed(policy, "3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"));
}

TEST_CASE("defaults allow public addresses", "[address_policy]") {
  const address_policy policy;
  for (const std::string text : {"8.8.8.8", "1.1.1.1", "9.9.9.9", "223.255.255.255",
                                 "2606:4700:4700::1111", "2a00:1450:4001::200e",
                                 "2001:4860:4860::8888"}) {
    INFO("address: " << text);
    const auto verdict = check(policy, text);
    CHECK(verdict.allowed);
    CHECK(verdict.reason.empty());
  }
}

TEST_CASE("a default-built policy equals one with empty options", "[address_policy]") {
  const address_policy empty_options{{}, {}};
  CHECK_FALSE(allowed(empty_options, "127.0.0.1"));
  CHECK_FALSE(allowed(empty_options, "::1"));
  CHECK(allowed(empty_options, "8.8.8.8"));
}

TEST_CASE("a scope id does not hide a link-local address", "[address_policy]") {
  const address_policy policy;
  CHECK_FALSE(allowed(policy, "fe80::1%1"));
}

// -- IPv4 carried in IPv6 --

TEST_CASE("mapped NAT64 and 6to4 forms are judged by their IPv4", "[address_policy]") {
  const address_policy policy;
  CHECK_FALSE(allowed(policy, "::ffff:127.0.0.1"));
  CHECK_FALSE(allowed(policy, "::ffff:10.0.0.1"));
  CHECK(allowed(policy, "::ffff:8.8.8.8"));
  CHECK_FALSE(allowed(policy, "64:ff9b::a00:1"));
  CHECK(allowed(policy, "64:ff9b::808:808"));
  CHECK_FALSE(allowed(policy, "2002:0a00:0001::"));
  CHECK(allowed(policy, "2002:0808:0808::"));
  CHECK_FALSE(allowed(policy, "64:ff9b:1::1"));
}

TEST_CASE("only the exact IPv4-carrying prefixes are judged as IPv4", "[address_policy]") {
  const address_policy policy;
  // Next to ::ffff:0:0/96 and 64:ff9b::/96 lies no global unicast, so a public IPv4 address in
  // the last 32 bits must not make these allowed.
  for (const std::string text : {"::fffe:808:808", "::1:ffff:808:808", "::ffff:1:808:808",
                                 "64:ff9b::1:808:808", "64:ff9b:0:0:1::808:808",
                                 "::ff:808:808", "64:ff9a::808:808", "65:ff9b::808:808",
                                 "164:ff9b::808:808"}) {
    INFO("address: " << text);
    CHECK_FALSE(allowed(policy, text));
  }
  // Next to 2002::/16 lies global unicast, where a private IPv4 pattern means nothing.
  CHECK(allowed(policy, "2003:a00:1::"));
  CHECK(allowed(policy, "2001:ffff:a00:1::"));
}

TEST_CASE("every reserved IPv4 range is refused in every IPv6 form", "[address_policy]") {
  const address_policy policy;
  for (const auto& r : v4_ranges) {
    INFO("range " << r.cidr);
    for (auto form : {mapped, nat64, six_to_four}) {
      for (const auto* inside : {&r.first, &r.middle, &r.last}) {
        const auto addr = form(*inside);
        INFO("inside: " << addr.to_string());
        const auto verdict = policy.check(addr);
        CHECK_FALSE(verdict.allowed);
        if (inside == &r.middle)
          CHECK(verdict.reason.find("(" + r.cidr + ")") != std::string::npos);
      }
      for (const auto* outside : {&r.before, &r.after}) {
        if (outside->empty())
          continue;
        const auto addr = form(*outside);
        INFO("outside: " << addr.to_string());
        CHECK(policy.check(addr).allowed);
      }
    }
  }
}

// -- reasons --

TEST_CASE("reasons name the address the class and the range", "[address_policy]") {
  const address_policy policy;
  CHECK(check(policy, "127.0.0.1").reason == "127.0.0.1 is loopback (127.0.0.0/8)");
  CHECK(check(policy, "198.51.100.7").reason == "198.51.100.7 is documentation (198.51.100.0/24)");
  CHECK(check(policy, "100.64.1.2").reason
        == "100.64.1.2 is CGNAT shared address space (100.64.0.0/10)");
  CHECK(check(policy, "255.255.255.255").reason
        == "255.255.255.255 is broadcast (255.255.255.255/32)");
  CHECK(check(policy, "::ffff:10.1.2.3").reason == "::ffff:10.1.2.3 is private (10.0.0.0/8)");
  CHECK(check(policy, "64:ff9b::a00:1").reason
        == "64:ff9b::a00:1 (NAT64 for 10.0.0.1) is private (10.0.0.0/8)");
  CHECK(check(policy, "2002:a9fe:1::").reason
        == "2002:a9fe:1:: (6to4 for 169.254.0.1) is link-local (169.254.0.0/16)");
  CHECK(check(policy, "fe80::1").reason == "fe80::1 is link-local (fe80::/10)");
  CHECK(check(policy, "::1").reason == "::1 is loopback (::1/128)");
  CHECK(check(policy, "fd00::1").reason == "fd00::1 is private unique-local (fc00::/7)");
  CHECK(check(policy, "64:ff9b:1::1").reason == "64:ff9b:1::1 is local-use NAT64 (64:ff9b:1::/48)");
  CHECK(check(policy, "4000::1").reason == "4000::1 is not global unicast (outside 2000::/3)");
}

// -- allow and deny options --

TEST_CASE("allowing loopback permits it and nothing else", "[address_policy]") {
  const address_policy policy{{cidr_of("127.0.0.0/8"), cidr_of("::1/128")}, {}};
  CHECK(allowed(policy, "127.0.0.1"));
  CHECK(allowed(policy, "127.255.255.254"));
  CHECK(allowed(policy, "::1"));
  CHECK(allowed(policy, "::ffff:127.0.0.1"));
  CHECK_FALSE(allowed(policy, "10.0.0.1"));
  CHECK_FALSE(allowed(policy, "::2"));
  CHECK_FALSE(allowed(policy, "fe80::1"));
  // NAT64 and 6to4 addresses lead to a gateway, not to the IPv4 host, so an IPv4 allow does
  // not cover them.
  CHECK_FALSE(allowed(policy, "64:ff9b::7f00:1"));
  CHECK_FALSE(allowed(policy, "2002:7f00:1::"));
}

TEST_CASE("an IPv6 allow covers the IPv6 address itself", "[address_policy]") {
  const address_policy policy{{cidr_of("fd00::/8"), cidr_of("::ffff:10.0.0.0/104")}, {}};
  CHECK(allowed(policy, "fd00::1"));
  CHECK_FALSE(allowed(policy, "fc00::1"));
  CHECK(allowed(policy, "::ffff:10.9.9.9"));
  // The IPv6 network does not reach across to the IPv4 family.
  CHECK_FALSE(allowed(policy, "10.9.9.9"));
}

TEST_CASE("deny beats allow", "[address_policy]") {
  const address_policy policy{{cidr_of("0.0.0.0/0")}, {cidr_of("8.8.8.0/24")}};
  CHECK_FALSE(allowed(policy, "8.8.8.8"));
  CHECK(allowed(policy, "8.8.4.4"));
  CHECK(allowed(policy, "10.0.0.1"));
  CHECK(check(policy, "8.8.8.8").reason == "8.8.8.8 is denied by --deny-cidr 8.8.8.0/24");
}

TEST_CASE("an IPv4 deny also refuses the IPv6 forms of it", "[address_policy]") {
  const address_policy policy{{cidr_of("::/0")}, {cidr_of("8.8.8.0/24")}};
  CHECK_FALSE(allowed(policy, "::ffff:8.8.8.8"));
  CHECK_FALSE(allowed(policy, "64:ff9b::808:808"));
  CHECK_FALSE(allowed(policy, "2002:808:808::1"));
  CHECK(allowed(policy, "::ffff:8.8.4.4"));
  CHECK(allowed(policy, "2002:808:404::1"));
  CHECK(check(policy, "::ffff:8.8.8.8").reason
        == "::ffff:8.8.8.8 is denied by --deny-cidr 8.8.8.0/24");
  CHECK(check(policy, "64:ff9b::808:808").reason
        == "64:ff9b::808:808 (NAT64 for 8.8.8.8) is denied by --deny-cidr 8.8.8.0/24");
}

TEST_CASE("a deny refuses public addresses the defaults allow", "[address_policy]") {
  const address_policy policy{{}, {cidr_of("2606:4700::/32"), cidr_of("1.1.1.1/32")}};
  CHECK_FALSE(allowed(policy, "2606:4700:4700::1111"));
  CHECK_FALSE(allowed(policy, "1.1.1.1"));
  CHECK(allowed(policy, "1.0.0.1"));
  CHECK(allowed(policy, "2606:4701::1"));
  CHECK(check(policy, "2606:4700:4700::1111").reason
        == "2606:4700:4700::1111 is denied by --deny-cidr 2606:4700::/32");
}

// -- one table for the policy and the scopes --

namespace {

/// The last address of a network: every host bit set.
address last_of(const cidr& net) {
  if (net.network.is_v4()) {
    const auto host_bits = 32u - net.prefix;
    const auto mask = host_bits == 32 ? 0xFFFFFFFFu : (1u << host_bits) - 1u;
    return address{address_v4{net.network.to_v4().to_uint() | mask}};
  }
  auto bytes = net.network.to_v6().to_bytes();
  for (unsigned bit = net.prefix; bit < 128; ++bit)
    bytes[bit / 8] = static_cast<unsigned char>(bytes[bit / 8] | (0x80u >> (bit % 8)));
  return address{address_v6{bytes}};
}

} // namespace

TEST_CASE("the policy and classify_address read every row alike", "[address_policy]") {
  // The policy refuses exactly the addresses whose scope is not public, in the row's words;
  // checked at both ends of every row, whichever row those ends fall in.
  const address_policy policy;
  for (const auto& row : netherscope::base::special_ranges()) {
    INFO("row " << netherscope::base::to_string(row.net));
    for (const auto& addr : {row.net.network, last_of(row.net)}) {
      INFO("address " << addr.to_string());
      const auto& found = netherscope::base::find_special_range(addr);
      CHECK(netherscope::base::classify_address(addr.to_string()).scope == found.scope);
      const auto verdict = policy.check(addr);
      const bool is_public = found.scope == netherscope::base::address_scope::public_address;
      CHECK(verdict.allowed == is_public);
      if (!is_public)
        CHECK(verdict.reason == addr.to_string() + " is " + found.reason);
    }
  }
}
