// Tests for net/sdp_answer: candidate grammar, answer classification, error names, and parsing
// of real libwebrtc answers plus the BDS, go-nethernet and Pumpkin shapes of PROTOCOL.md.
#include "net/nethernet/sdp_answer.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "support/fixtures.hpp"

using netherscope::test::read_fixture;
using netherscope::net::nethernet::answer_kind;
using netherscope::net::nethernet::classify_answer;
using netherscope::net::nethernet::ice_candidate;
using netherscope::net::nethernet::nethernet_error_name;
using netherscope::net::nethernet::parse_answer;
using netherscope::net::nethernet::parse_candidate;
using netherscope::net::nethernet::sdp_lines;

namespace {

/// Parses a line that must be good.
ice_candidate good(const std::string& line) {
  std::string why;
  auto c = parse_candidate(line, &why);
  INFO("line: " << line << "\nreason: " << why);
  REQUIRE(c.has_value());
  return *c;
}

/// The reason a line that must be bad is refused.
std::string bad(const std::string& line) {
  std::string why = "<unset>";
  auto c = parse_candidate(line, &why);
  INFO("line: " << line.substr(0, 200));
  REQUIRE_FALSE(c.has_value());
  return why;
}

/// An SDP answer around the given media-level lines.
std::string answer_of_lines(const std::vector<std::string>& lines) {
  std::string sdp = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"            // lines 1-4
                    "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"          // line 5
                    "c=IN IP4 0.0.0.0\r\n";                                         // line 6
  for (const auto& l : lines)
    sdp += l + "\r\n";
  sdp += "a=ice-ufrag:Zk3p\r\na=fingerprint:sha-256 AA:BB\r\n";
  return sdp;
}

const std::string good_before = "a=candidate:1 1 udp 2122260223 203.0.113.10 19140 typ host";
const std::string good_after = "a=candidate:2 1 udp 2122260222 198.51.100.7 19141 typ host";

} // namespace

// -- real libwebrtc SDP ---------------------------------------------------------------------------

TEST_CASE("libwebrtc answer fixture: four candidates, fingerprint and ufrag", "[sdp]") {
  auto sdp = read_fixture("libwebrtc-m106-answer.sdp");
  REQUIRE(sdp.size() > 100);
  CHECK(classify_answer(sdp) == answer_kind::sdp);

  auto a = parse_answer(sdp);
  CHECK(a.warnings.empty());
  CHECK(a.ice_ufrag == "bOZZ");
  CHECK(a.fingerprint
        == "sha-256 01:E3:E3:29:1E:5D:A5:EF:A5:D1:0B:02:0E:62:0F:38:38:95:D4:2C:1B:01:F6:A1:98:"
           "89:7E:F2:B2:D1:BB:5A");
  REQUIRE(a.candidates.size() == 4);

  const auto& c0 = a.candidates[0];
  CHECK(c0.raw == "candidate:559267639 1 udp 2122267903 ::1 44206 typ host generation 0 network-id 2");
  CHECK(c0.foundation == "559267639");
  CHECK(c0.component == 1);
  CHECK(c0.transport == "udp");
  CHECK(c0.priority == 2122267903u);
  CHECK(c0.address == "::1");
  CHECK(c0.port == 44206);
  CHECK(c0.type == "host");
  CHECK_FALSE(c0.related_address.has_value());
  CHECK_FALSE(c0.related_port.has_value());

  const auto& c1 = a.candidates[1];
  CHECK(c1.foundation == "1510613869");
  CHECK(c1.transport == "udp");
  CHECK(c1.priority == 2122194687u);
  CHECK(c1.address == "127.0.0.1");
  CHECK(c1.port == 45561);
  CHECK(c1.type == "host");

  const auto& c2 = a.candidates[2];
  CHECK(c2.raw
        == "candidate:1876313031 1 tcp 1518288127 ::1 40225 typ host tcptype passive generation 0 "
           "network-id 2");
  CHECK(c2.foundation == "1876313031");
  CHECK(c2.transport == "tcp");
  CHECK(c2.priority == 1518288127u);
  CHECK(c2.address == "::1");
  CHECK(c2.port == 40225);
  CHECK(c2.type == "host");

  const auto& c3 = a.candidates[3];
  CHECK(c3.foundation == "344579997");
  CHECK(c3.transport == "tcp");
  CHECK(c3.priority == 1518214911u);
  CHECK(c3.address == "127.0.0.1");
  CHECK(c3.port == 52253);

  for (const auto& c : a.candidates) {
    CHECK(c.raw.find('\r') == std::string::npos);
    CHECK(c.raw.rfind("candidate:", 0) == 0);
  }
}

TEST_CASE("libwebrtc answer without candidates", "[sdp]") {
  auto sdp = read_fixture("libwebrtc-m106-answer-no-candidates.sdp");
  REQUIRE(sdp.size() > 100);
  CHECK(classify_answer(sdp) == answer_kind::sdp);
  auto a = parse_answer(sdp);
  CHECK(a.candidates.empty());
  CHECK(a.warnings.empty());
  CHECK(a.ice_ufrag == "jaUk");
  CHECK(a.fingerprint
        == "sha-256 B9:AE:58:26:C9:F9:93:04:5B:F4:AA:41:C8:6F:23:B8:99:54:A9:B2:B6:D9:4D:B4:CA:27:"
           "E9:88:31:28:44:14");
}

TEST_CASE("libwebrtc offer fixture candidates parse too", "[sdp]") {
  auto sdp = read_fixture("libwebrtc-m106-offer.sdp");
  REQUIRE(sdp.size() > 100);
  auto a = parse_answer(sdp);
  CHECK(a.warnings.empty());
  CHECK(a.ice_ufrag == "Boh7");
  CHECK(a.fingerprint.rfind("sha-256 F8:93:75:88:", 0) == 0);
  REQUIRE(a.candidates.size() == 4);
  CHECK(a.candidates[0].port == 40110);
  CHECK(a.candidates[1].port == 54335);
  CHECK(a.candidates[2].port == 43709);
  CHECK(a.candidates[2].transport == "tcp");
  CHECK(a.candidates[3].port == 46567);
  CHECK(a.candidates[3].address == "127.0.0.1");
}

// -- server shapes (PROTOCOL.md §2.2, §4.3) -------------------------------------------------------

TEST_CASE("BDS-like answer of PROTOCOL §4.3", "[sdp]") {
  // Written with LF only, and the fingerprint abbreviated with a UTF-8 ellipsis as in the notes.
  const std::string sdp =
      "v=0\n"
      "o=- 7183392011874556210 2 IN IP4 127.0.0.1\n"
      "s=-\n"
      "t=0 0\n"
      "a=group:BUNDLE 0\n"
      "a=extmap-allow-mixed\n"
      "a=msid-semantic: WMS\n"
      "a=identity:eyJhc3NlcnRpb24iOiJ7XCJmaW5nZXJwcmludHNcIjpcIi4uLlwiLFwidG9rZW5cIjpcIi4uLlwifSJ9\n"
      "m=application 19140 UDP/DTLS/SCTP webrtc-datachannel\n"
      "c=IN IP4 203.0.113.10\n"
      "a=candidate:2999745851 1 udp 2122260223 203.0.113.10 19140 typ host generation 0 network-id 1\n"
      "a=ice-ufrag:Zk3p\n"
      "a=ice-pwd:Lr5uX0aQ7wT2nB9cV4mE1s\n"
      "a=ice-options:trickle\n"
      "a=fingerprint:sha-256 A0:5B:\xE2\x80\xA6:7C\n"
      "a=setup:active\n"
      "a=mid:0\n"
      "a=sctp-port:5000\n"
      "a=max-message-size:262144\n";
  CHECK(classify_answer(sdp) == answer_kind::sdp);
  auto a = parse_answer(sdp);
  CHECK(a.warnings.empty());
  CHECK(a.ice_ufrag == "Zk3p");
  CHECK(a.fingerprint == "sha-256 A0:5B:\xE2\x80\xA6:7C");
  REQUIRE(a.candidates.size() == 1);
  const auto& c = a.candidates[0];
  CHECK(c.raw
        == "candidate:2999745851 1 udp 2122260223 203.0.113.10 19140 typ host generation 0 "
           "network-id 1");
  CHECK(c.foundation == "2999745851");
  CHECK(c.component == 1);
  CHECK(c.priority == 2122260223u);
  CHECK(c.address == "203.0.113.10");
  CHECK(c.port == 19140);
  CHECK(c.type == "host");
}

TEST_CASE("go-nethernet doubled prefix with ufrag, network-id, network-cost", "[sdp]") {
  auto c = good("a=candidate:candidate:3029283476 1 udp 2130706431 192.0.2.7 61234 typ host "
                "generation 0 ufrag AbCd network-id 0 network-cost 0");
  // raw keeps the doubled prefix so the caller sees what the server wrote.
  CHECK(c.raw
        == "candidate:candidate:3029283476 1 udp 2130706431 192.0.2.7 61234 typ host generation 0 "
           "ufrag AbCd network-id 0 network-cost 0");
  CHECK(c.foundation == "3029283476");
  CHECK(c.component == 1);
  CHECK(c.transport == "udp");
  CHECK(c.priority == 2130706431u);
  CHECK(c.address == "192.0.2.7");
  CHECK(c.port == 61234);
  CHECK(c.type == "host");

  auto s = good("a=candidate:candidate:1881214153 1 udp 1694498815 198.51.100.9 51000 typ srflx "
                "raddr 0.0.0.0 rport 51000 generation 0 ufrag AbCd network-id 1 network-cost 0");
  CHECK(s.type == "srflx");
  CHECK(s.address == "198.51.100.9");
  REQUIRE(s.related_address.has_value());
  CHECK(*s.related_address == "0.0.0.0");
  REQUIRE(s.related_port.has_value());
  CHECK(*s.related_port == 51000);

  // The doubled prefix without "a=" (a trickled value) reads the same way.
  auto t = good("candidate:candidate:3029283476 1 udp 2130706431 192.0.2.7 61234 typ host");
  CHECK(t.raw == "candidate:candidate:3029283476 1 udp 2130706431 192.0.2.7 61234 typ host");
  CHECK(t.foundation == "3029283476");

  // And inside a whole answer.
  auto a = parse_answer(answer_of_lines({"a=candidate:candidate:3029283476 1 udp 2130706431 192.0.2.7 "
                                     "61234 typ host generation 0 ufrag AbCd network-id 0 "
                                     "network-cost 0"}));
  CHECK(a.warnings.empty());
  REQUIRE(a.candidates.size() == 1);
  CHECK(a.candidates[0].raw.rfind("candidate:candidate:", 0) == 0);
}

TEST_CASE("Pumpkin shape: port rewritten to 19132", "[sdp]") {
  auto c = good("a=candidate:1052210212 1 udp 2130706431 203.0.113.10 19132 typ host");
  CHECK(c.port == 19132);
  CHECK(c.address == "203.0.113.10");
  CHECK(c.type == "host");
  CHECK(c.raw == "candidate:1052210212 1 udp 2130706431 203.0.113.10 19132 typ host");
}

TEST_CASE("srflx, relay and prflx candidates carry raddr and rport", "[sdp]") {
  auto s = good("a=candidate:842163049 1 udp 1677729535 198.51.100.20 61000 typ srflx raddr "
                "10.0.0.5 rport 61001 generation 0 network-cost 999");
  CHECK(s.type == "srflx");
  CHECK(s.port == 61000);
  REQUIRE(s.related_address);
  CHECK(*s.related_address == "10.0.0.5");
  REQUIRE(s.related_port);
  CHECK(*s.related_port == 61001);

  auto r = good("a=candidate:3745638421 1 udp 41885695 203.0.113.50 50000 typ relay raddr "
                "198.51.100.20 rport 61000 generation 0 network-id 1");
  CHECK(r.type == "relay");
  CHECK(r.priority == 41885695u);
  REQUIRE(r.related_address);
  CHECK(*r.related_address == "198.51.100.20");
  REQUIRE(r.related_port);
  CHECK(*r.related_port == 61000);

  auto p = good("candidate:1 1 udp 1845501695 198.51.100.21 60001 typ prflx raddr 10.0.0.5 rport "
                "60002");
  CHECK(p.type == "prflx");
  REQUIRE(p.related_port);
  CHECK(*p.related_port == 60002);

  // Swapped order is read too (not mistaken for an extension).
  auto w = good("candidate:1 1 udp 1 198.51.100.21 60001 typ srflx rport 7 raddr 10.0.0.6");
  REQUIRE(w.related_address);
  CHECK(*w.related_address == "10.0.0.6");
  REQUIRE(w.related_port);
  CHECK(*w.related_port == 7);

  // Only one of the two.
  auto o = good("candidate:1 1 udp 1 198.51.100.21 60001 typ srflx raddr 10.0.0.6");
  CHECK(o.related_address.has_value());
  CHECK_FALSE(o.related_port.has_value());
}

TEST_CASE("TCP active, passive and so candidates with port 9", "[sdp]") {
  for (const char* tcptype : {"active", "passive", "so"}) {
    auto c = good(std::string("a=candidate:1052210212 1 tcp 1518280447 192.0.2.8 9 typ host "
                              "tcptype ")
                  + tcptype + " generation 0 network-id 1");
    CHECK(c.transport == "tcp");
    CHECK(c.port == 9);
    CHECK(c.type == "host");
  }
  auto zero = good("a=candidate:1 1 tcp 1518280447 192.0.2.8 0 typ host tcptype active");
  CHECK(zero.port == 0);
}

TEST_CASE("IPv6 srflx with raddr ::", "[sdp]") {
  auto c = good("a=candidate:2 1 udp 1686052607 2001:db8::1 50000 typ srflx raddr :: rport 0 "
                "generation 0");
  CHECK(c.address == "2001:db8::1");
  REQUIRE(c.related_address);
  CHECK(*c.related_address == "::");
  REQUIRE(c.related_port);
  CHECK(*c.related_port == 0);
  auto mapped = good("candidate:3 1 udp 1 ::ffff:192.0.2.1 1 typ host");
  CHECK(mapped.address == "::ffff:192.0.2.1");
  auto zoned = good("candidate:3 1 udp 1 fe80::1%eth0 1 typ host");
  CHECK(zoned.address == "fe80::1%eth0");
}

TEST_CASE("mDNS .local address", "[sdp]") {
  auto c = good("a=candidate:1 1 udp 2113937151 5f3d0c6e-4b1a-4c1e-9a0e-2f4f6b7c8d9e.local 54321 "
                "typ host generation 0 network-cost 999");
  CHECK(c.address == "5f3d0c6e-4b1a-4c1e-9a0e-2f4f6b7c8d9e.local");
  CHECK(c.port == 54321);
  auto fqdn = good("candidate:1 1 udp 1 turn.example.com 3478 typ relay raddr host-1.example.com "
                   "rport 1");
  CHECK(fqdn.address == "turn.example.com");
}

TEST_CASE("transport, type and tcptype are lower-cased, raw keeps the case", "[sdp]") {
  auto c = good("a=candidate:1 1 UDP 2130706431 192.0.2.1 19132 typ HOST");
  CHECK(c.transport == "udp");
  CHECK(c.type == "host");
  CHECK(c.raw == "candidate:1 1 UDP 2130706431 192.0.2.1 19132 typ HOST");
  auto tcp = good("a=candidate:1 1 TCP 1 192.0.2.1 9 typ host TCPTYPE Active");
  CHECK(tcp.transport == "tcp");
  REQUIRE(tcp.tcptype);
  CHECK(*tcp.tcptype == "active");
  auto other = good("candidate:1 1 sctp-x 1 192.0.2.1 1 typ custom-type");
  CHECK(other.transport == "sctp-x");
  CHECK(other.type == "custom-type");
  auto typ = good("candidate:1 1 udp 1 192.0.2.1 1 TYP host RADDR 10.0.0.1 RPORT 2");
  CHECK(typ.type == "host");
  REQUIRE(typ.related_port);
  CHECK(*typ.related_port == 2);
}

TEST_CASE("extension pairs: the known ones typed, the others kept in order", "[sdp]") {
  auto c = good("a=candidate:candidate:1 1 udp 1 192.0.2.7 61234 typ host generation 0 ufrag AbCd "
                "network-id 7 network-cost 999 x-future some-value");
  REQUIRE(c.generation);
  CHECK(*c.generation == 0);
  REQUIRE(c.network_id);
  CHECK(*c.network_id == 7);
  REQUIRE(c.network_cost);
  CHECK(*c.network_cost == 999);
  CHECK_FALSE(c.tcptype);
  using pairs = std::vector<std::pair<std::string, std::string>>;
  CHECK(c.extensions == pairs{{"ufrag", "AbCd"}, {"x-future", "some-value"}});

  // A known name whose value is not of its type, or a repeated one, is kept as written.
  auto odd = good("candidate:1 1 udp 1 192.0.2.7 1 typ host generation zero network-id 4294967296 "
                  "network-cost 1 network-cost 2");
  CHECK_FALSE(odd.generation);
  CHECK_FALSE(odd.network_id);
  REQUIRE(odd.network_cost);
  CHECK(*odd.network_cost == 1);
  CHECK(odd.extensions
        == pairs{{"generation", "zero"}, {"network-id", "4294967296"}, {"network-cost", "2"}});

  auto none = good("candidate:1 1 udp 1 192.0.2.7 1 typ host");
  CHECK_FALSE(none.generation);
  CHECK(none.extensions.empty());
}

TEST_CASE("boundary values are accepted", "[sdp]") {
  const std::string f32 = "abcdefghijklmnopqrstuvwxyz+/0123";
  REQUIRE(f32.size() == 32);
  auto c = good("candidate:" + f32 + " 256 udp 4294967295 192.0.2.1 65535 typ host");
  CHECK(c.foundation == f32);
  CHECK(c.component == 256);
  CHECK(c.priority == 4294967295u);
  CHECK(c.port == 65535);
  auto low = good("candidate:x 1 udp 0 192.0.2.1 0 typ host");
  CHECK(low.priority == 0u);
  CHECK(low.port == 0);
}

TEST_CASE("prefixes, line ends and whitespace runs", "[sdp]") {
  auto plain = good("candidate:1 1 udp 5 192.0.2.1 7 typ host");
  CHECK(plain.raw == "candidate:1 1 udp 5 192.0.2.1 7 typ host");
  auto crlf = good("a=candidate:1 1 udp 5 192.0.2.1 7 typ host\r\n");
  CHECK(crlf.raw == "candidate:1 1 udp 5 192.0.2.1 7 typ host");
  auto cr = good("a=candidate:1 1 udp 5 192.0.2.1 7 typ host\r");
  CHECK(cr.raw == "candidate:1 1 udp 5 192.0.2.1 7 typ host");
  auto runs = good("a=candidate:1  1\tudp \t 5 192.0.2.1   7 typ host  generation\t0 ");
  CHECK(runs.priority == 5u);
  CHECK(runs.port == 7);
  CHECK(runs.type == "host");
  CHECK(runs.raw == "candidate:1  1\tudp \t 5 192.0.2.1   7 typ host  generation\t0 ");
}

TEST_CASE("session-level and duplicate candidate lines are all kept", "[sdp]") {
  const std::string line = "a=candidate:7 1 udp 100 192.0.2.9 4000 typ host";
  const std::string sdp = "v=0\r\n" + line + "\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"
                          + line + "\r\n" + line + "\r\n";
  auto a = parse_answer(sdp);
  CHECK(a.warnings.empty());
  REQUIRE(a.candidates.size() == 3);
  CHECK(a.candidates[0].raw == a.candidates[2].raw);
}

TEST_CASE("first fingerprint and ufrag win, absent ones stay empty", "[sdp]") {
  auto a = parse_answer("v=0\na=fingerprint:sha-256 11:22\na=ice-ufrag:one\n"
                        "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\n"
                        "a=fingerprint:sha-384 33:44\na=ice-ufrag:two\n");
  CHECK(a.fingerprint == "sha-256 11:22");
  CHECK(a.ice_ufrag == "one");
  auto none = parse_answer("v=0\r\ns=-\r\n");
  CHECK(none.fingerprint.empty());
  CHECK(none.ice_ufrag.empty());
  CHECK(none.candidates.empty());
  auto empty = parse_answer("");
  CHECK(empty.candidates.empty());
  CHECK(empty.warnings.empty());
}

// -- malformed candidates -------------------------------------------------------------------------

namespace {

struct bad_case {
  std::string name;
  std::string line;
  std::string reason; // a substring of the expected reason
};

std::vector<bad_case> bad_cases() {
  std::string nul = "a=candidate:1 1 udp 1 192.0.2.1 1 typ host generation 0";
  nul[nul.find("generation") + 3] = '\0';
  std::string ctrl = "a=candidate:1 1 udp 1 192.0.2.1 1 typ host\x01";
  return {
      {"missing typ", "a=candidate:1 1 udp 1 192.0.2.1 1 host", "missing typ"},
      {"no typ at all", "a=candidate:1 1 udp 1 192.0.2.1 1", "missing typ"},
      {"priority over 2^32-1", "a=candidate:1 1 udp 4294967296 192.0.2.1 1 typ host",
       "priority out of range"},
      {"priority of 11 digits", "a=candidate:1 1 udp 12345678901 192.0.2.1 1 typ host",
       "priority out of range"},
      {"negative priority", "a=candidate:1 1 udp -1 192.0.2.1 1 typ host", "priority is not a number"},
      {"port 65536", "a=candidate:1 1 udp 1 192.0.2.1 65536 typ host", "port out of range"},
      {"port not a number", "a=candidate:1 1 udp 1 192.0.2.1 19132a typ host", "port is not a number"},
      {"component 0", "a=candidate:1 0 udp 1 192.0.2.1 1 typ host", "component-id out of range"},
      {"component 1000", "a=candidate:1 1000 udp 1 192.0.2.1 1 typ host", "component-id out of range"},
      {"component 257", "a=candidate:1 257 udp 1 192.0.2.1 1 typ host", "component-id out of range"},
      {"foundation of 33 chars", "a=candidate:" + std::string(33, 'f') + " 1 udp 1 192.0.2.1 1 typ host",
       "bad foundation"},
      {"non-ice-char foundation", "a=candidate:ab-cd 1 udp 1 192.0.2.1 1 typ host", "bad foundation"},
      {"typ with no type", "a=candidate:1 1 udp 1 192.0.2.1 1 typ", "typ without candidate type"},
      {"raddr without value", "a=candidate:1 1 udp 1 198.51.100.1 1 typ srflx raddr", "raddr without value"},
      {"raddr followed by rport", "a=candidate:1 1 udp 1 198.51.100.1 1 typ srflx raddr rport 5",
       "raddr without value"},
      {"rport without value", "a=candidate:1 1 udp 1 198.51.100.1 1 typ srflx raddr 10.0.0.1 rport",
       "rport without value"},
      {"bad raddr", "a=candidate:1 1 udp 1 198.51.100.1 1 typ srflx raddr 10.0.0.300 rport 1", "bad raddr"},
      {"rport 70000", "a=candidate:1 1 udp 1 198.51.100.1 1 typ srflx raddr 10.0.0.1 rport 70000",
       "rport out of range"},
      {"duplicate raddr", "a=candidate:1 1 udp 1 198.51.100.1 1 typ srflx raddr 10.0.0.1 raddr 10.0.0.2",
       "duplicate raddr"},
      {"odd extension tokens", "a=candidate:1 1 udp 1 192.0.2.1 1 typ host generation 0 network-id",
       "odd number of extension tokens"},
      {"single extension token", "a=candidate:1 1 udp 1 192.0.2.1 1 typ host generation",
       "odd number of extension tokens"},
      {"empty after prefix", "a=candidate:", "missing foundation"},
      {"only blanks after prefix", "a=candidate:  \t ", "missing foundation"},
      {"missing port", "a=candidate:1 1 udp 1 192.0.2.1", "missing port"},
      {"missing component", "a=candidate:1", "missing component-id"},
      {"bad IPv4", "a=candidate:1 1 udp 1 256.0.0.1 1 typ host", "bad connection-address"},
      {"bad IPv6", "a=candidate:1 1 udp 1 2001:db8:::1 1 typ host", "bad connection-address"},
      {"bracketed IPv6", "a=candidate:1 1 udp 1 [::1] 1 typ host", "bad connection-address"},
      {"empty host label", "a=candidate:1 1 udp 1 a..local 1 typ host", "bad connection-address"},
      {"bad transport", "a=candidate:1 1 u(dp 1 192.0.2.1 1 typ host", "bad transport"},
      {"bad type", "a=candidate:1 1 udp 1 192.0.2.1 1 typ ho@st", "bad candidate type"},
      {"bad extension name", "a=candidate:1 1 udp 1 192.0.2.1 1 typ host gen=eration 0",
       "bad extension name"},
      {"NUL byte", nul, "invalid byte 0x00"},
      {"control byte", ctrl, "invalid byte 0x01"},
      {"non-ASCII address", "a=candidate:1 1 udp 1 caf\xC3\xA9.local 1 typ host", "invalid byte 0xC3"},
      {"high garbage", "a=candidate:\xFF\xFE\x80 1 udp 1 192.0.2.1 1 typ host", "invalid byte 0xFF"},
      {"100 KB line", "a=candidate:1 1 udp 1 192.0.2.1 1 typ host generation 0 x " + std::string(100 * 1024, 'y'),
       "line too long"},
  };
}

} // namespace

TEST_CASE("malformed candidates are refused with a reason", "[sdp]") {
  for (const auto& bc : bad_cases()) {
    INFO("case: " << bc.name);
    auto why = bad(bc.line);
    INFO("reason: " << why);
    CHECK(why.find(bc.reason) != std::string::npos);
  }
  // Not a candidate at all.
  CHECK(bad("a=fingerprint:sha-256 AA") == "not a candidate attribute");
  CHECK(bad("") == "not a candidate attribute");
  CHECK(bad(" a=candidate:1 1 udp 1 192.0.2.1 1 typ host") == "not a candidate attribute");
  // why is optional.
  CHECK_FALSE(parse_candidate("a=candidate:1 1 udp 1 192.0.2.1 1 typ").has_value());
}

TEST_CASE("malformed lines become warnings while good lines around them parse", "[sdp]") {
  for (const auto& bc : bad_cases()) {
    INFO("case: " << bc.name);
    auto a = parse_answer(answer_of_lines({good_before, bc.line, good_after}));
    REQUIRE(a.candidates.size() == 2);
    CHECK(a.candidates[0].foundation == "1");
    CHECK(a.candidates[1].foundation == "2");
    CHECK(a.ice_ufrag == "Zk3p");
    CHECK(a.fingerprint == "sha-256 AA:BB");
    REQUIRE(a.warnings.size() == 1);
    CHECK(a.warnings[0].code == "candidate_left_out");
    const auto& w = a.warnings[0].message;
    INFO("warning: " << w);
    // Lines 1-6 are the session and m= lines, so the bad one is line 8.
    CHECK(w.rfind("left out candidate line 8: ", 0) == 0);
    CHECK(w.find(bc.reason) != std::string::npos);
    // The quoted line is cut and printable: no NUL, no bytes outside ASCII.
    CHECK(w.size() < 200 + 4 * 200 + 100);
    bool printable = true;
    for (char ch : w)
      printable = printable && static_cast<unsigned char>(ch) >= 0x20
                  && static_cast<unsigned char>(ch) <= 0x7e;
    CHECK(printable);
  }
}

TEST_CASE("warning text: format, truncation and escaping", "[sdp]") {
  auto a = parse_answer("v=0\na=candidate:1 1 udp 1 192.0.2.1 65536 typ host\n");
  REQUIRE(a.warnings.size() == 1);
  CHECK(a.warnings[0].message
        == "left out candidate line 2: port out of range: a=candidate:1 1 udp 1 192.0.2.1 65536 typ "
           "host");

  auto nul = parse_answer(std::string("v=0\r\na=candidate:\0\r\n", 20));
  REQUIRE(nul.warnings.size() == 1);
  CHECK(nul.warnings[0].message
        == "left out candidate line 2: invalid byte 0x00 at column 13: a=candidate:\\x00");

  const std::string long_line = "a=candidate:1 1 udp 1 192.0.2.1 1 typ host x " + std::string(100 * 1024, 'y');
  auto longer = parse_answer("v=0\n" + long_line + "\n");
  REQUIRE(longer.warnings.size() == 1);
  const auto& w = longer.warnings[0].message;
  CHECK(w.rfind("left out candidate line 2: line too long (", 0) == 0);
  CHECK(w.size() == w.find(": a=candidate:") + 2 + 200 + 3);
  CHECK(w.substr(w.size() - 3) == "...");
}

TEST_CASE("at most 256 candidates are read, with one warning", "[sdp]") {
  std::vector<std::string> lines;
  for (int i = 0; i < 300; ++i)
    lines.push_back("a=candidate:" + std::to_string(i) + " 1 udp 1 192.0.2.1 " + std::to_string(1000 + i)
                    + " typ host");
  auto a = parse_answer(answer_of_lines(lines));
  REQUIRE(a.candidates.size() == 256);
  CHECK(a.candidates.back().port == 1255);
  REQUIRE(a.warnings.size() == 1);
  // Candidate lines start at line 7; the 257th is line 263.
  CHECK(a.warnings[0].code == "too_many_candidates");
  CHECK(a.warnings[0].message
        == "left out 44 candidate lines from line 263 on: at most 256 candidates are read");
  CHECK(a.candidate_lines == 300);
  // The fingerprint and ufrag after the candidates are still read.
  CHECK(a.ice_ufrag == "Zk3p");
  CHECK(a.fingerprint == "sha-256 AA:BB");
}

TEST_CASE("warnings stop after 64, then one summary", "[sdp]") {
  std::vector<std::string> lines(100, "a=candidate:1 1 udp 1 192.0.2.1 1 typ");
  lines.push_back(good_after);
  auto a = parse_answer(answer_of_lines(lines));
  REQUIRE(a.candidates.size() == 1);
  REQUIRE(a.warnings.size() == 65);
  CHECK(a.warnings[0].message.rfind("left out candidate line 7: ", 0) == 0);
  CHECK(a.warnings[63].message.rfind("left out candidate line 70: ", 0) == 0);
  CHECK(a.warnings[64].code == "candidate_left_out");
  CHECK(a.warnings[64].message
        == "left out 36 more malformed candidate lines (warnings stop after 64)");
}

TEST_CASE("a large hostile body parses in bounded time without crashing", "[sdp]") {
  // 1 MiB of mixed junk: long lines, lone CRs, NULs, prefixes without values.
  std::string body = "v=0\n";
  const std::string pieces[] = {"a=candidate:", "a=candidate:candidate:", "\r", std::string(1, '\0'),
                                "a=candidate:1 1 udp 1 ::", " typ ", "raddr", "\xFF", "\n"};
  std::size_t i = 0;
  while (body.size() < (1u << 20))
    body += pieces[(i++ * 7) % (sizeof pieces / sizeof pieces[0])];
  auto a = parse_answer(body);
  CHECK(a.candidates.size() <= 256);
  CHECK(a.warnings.size() <= 66);
}

// -- line ends and validity ------------------------------------------------------------------------

TEST_CASE("sdp_lines ends lines at CRLF, LF and a lone CR", "[sdp]") {
  using lines = std::vector<std::string_view>;
  CHECK(sdp_lines("a\r\nb\nc\rd") == lines{"a", "b", "c", "d"});
  CHECK(sdp_lines("a\r\n") == lines{"a"});
  CHECK(sdp_lines("a\n\nb") == lines{"a", "", "b"});
  CHECK(sdp_lines("a\r\rb") == lines{"a", "", "b"});
  CHECK(sdp_lines("a\n\r") == lines{"a", ""});
  CHECK(sdp_lines("").empty());
}

TEST_CASE("recorded answers of werift, libwebrtc and aiortc are valid", "[sdp]") {
  struct recorded {
    const char* file;
    std::size_t candidates;
  };
  for (auto r : {recorded{"werift-0.24.4-answer-identity-string.sdp", 2},
                 recorded{"libwebrtc-wrtc-0.10.0-answer-identity-jwk.sdp", 8},
                 recorded{"aiortc-1.4.0-answer.sdp", 1},
                 recorded{"libwebrtc-m106-answer.sdp", 4},
                 recorded{"libwebrtc-m106-answer-no-candidates.sdp", 0}}) {
    INFO(r.file);
    auto a = parse_answer(read_fixture(r.file));
    CHECK(a.valid());
    CHECK(a.problem.empty());
    CHECK(a.warnings.empty());
    CHECK(a.candidates.size() == r.candidates);
    CHECK(a.candidate_lines == r.candidates);
  }
  auto werift = parse_answer(read_fixture("werift-0.24.4-answer-identity-string.sdp"));
  CHECK(werift.candidates[0].extensions
        == std::vector<std::pair<std::string, std::string>>{{"ufrag", "3602"}});
  auto libwebrtc = parse_answer(read_fixture("libwebrtc-wrtc-0.10.0-answer-identity-jwk.sdp"));
  CHECK(libwebrtc.candidates[4].tcptype == std::optional<std::string>{"passive"});
  CHECK(libwebrtc.candidates[4].network_id == std::optional<std::uint32_t>{2});
}

TEST_CASE("an answer is valid only with v=0, one m=application and its ICE and DTLS parts",
          "[sdp]") {
  using netherscope::net::nethernet::answer_problem;
  const std::string m = "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\n";
  const std::string parts = "a=ice-ufrag:u\na=ice-pwd:p\na=fingerprint:sha-256 AA\n";
  struct shape {
    std::string sdp;
    answer_problem problem;
  };
  for (const auto& c : std::vector<shape>{
         {"v=0\n" + m + parts, answer_problem::none},
         {"\xEF\xBB\xBF\r\n\r\nv=0\r\n" + m + parts, answer_problem::none},
         {"v=0\r" + m.substr(0, m.size() - 1) + "\ra=ice-ufrag:u\ra=ice-pwd:p\r"
            "a=fingerprint:sha-256 AA\r",
          answer_problem::none},
         {"", answer_problem::no_version},
         {"o=- 1 1 IN IP4 0.0.0.0\nv=0\n" + m + parts, answer_problem::no_version},
         {"v=0\n" + parts, answer_problem::no_media},
         {"v=0\nm=audio 9 UDP/TLS/RTP/SAVPF 111\n" + parts, answer_problem::not_application},
         {"v=0\nm=application\n" + parts, answer_problem::not_application},
         {"v=0\n" + m + m + parts, answer_problem::several_media},
         {"v=0\nm=application 0 UDP/DTLS/SCTP webrtc-datachannel\n" + parts,
          answer_problem::rejected_media},
         {"v=0\n" + m + "a=ice-ufrag:\na=ice-pwd:p\na=fingerprint:sha-256 AA\n",
          answer_problem::no_ice_ufrag},
         {"v=0\n" + m + "a=ice-ufrag:u\na=fingerprint:sha-256 AA\n", answer_problem::no_ice_pwd},
         {"v=0\n" + m + "a=ice-ufrag:u\na=ice-pwd:p\n", answer_problem::no_fingerprint},
       }) {
    INFO(c.sdp);
    auto a = parse_answer(c.sdp);
    CHECK(a.problem_code == c.problem);
    CHECK(a.valid() == (c.problem == answer_problem::none));
    CHECK(a.problem.empty() == a.valid());
  }
}

TEST_CASE("CR-only answers give the same candidates as CRLF ones", "[sdp]") {
  auto crlf = read_fixture("libwebrtc-wrtc-0.10.0-answer-identity-jwk.sdp");
  std::string cr;
  for (std::size_t i = 0; i < crlf.size(); ++i)
    if (crlf[i] != '\n')
      cr += crlf[i];
  auto a = parse_answer(crlf);
  auto b = parse_answer(cr);
  REQUIRE(b.candidates.size() == a.candidates.size());
  for (std::size_t i = 0; i < a.candidates.size(); ++i)
    CHECK(b.candidates[i].raw == a.candidates[i].raw);
  CHECK(b.valid());
  CHECK(b.ice_ufrag == a.ice_ufrag);
  CHECK(b.fingerprint == a.fingerprint);
}

// -- classification and error codes ---------------------------------------------------------------

TEST_CASE("classify_answer", "[sdp]") {
  std::int64_t code = -5;
  CHECK(classify_answer("v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\n", &code) == answer_kind::sdp);
  CHECK(code == -5);
  CHECK(classify_answer("\xEF\xBB\xBF \r\nv=0\r\n") == answer_kind::sdp);

  CHECK(classify_answer("37", &code) == answer_kind::error_code);
  CHECK(code == 37);
  code = -5;
  CHECK(classify_answer(" 37\n", &code) == answer_kind::error_code);
  CHECK(code == 37);
  CHECK(classify_answer("0", &code) == answer_kind::error_code);
  CHECK(code == 0);
  CHECK(classify_answer("\xEF\xBB\xBF" "13\r\n", &code) == answer_kind::error_code);
  CHECK(code == 13);
  CHECK(classify_answer("9999999999", &code) == answer_kind::error_code);
  CHECK(code == 9999999999LL);
  CHECK(classify_answer("37") == answer_kind::error_code); // code pointer optional

  code = -5;
  for (const char* text : {"Negotiation failed with error code: 37", "", "v", "-1", "+1", "12345678901",
                           "37 38", "37x", " \r\n\t", "V=0", "SDP offer is missing its identity assertion"}) {
    INFO("body: " << text);
    CHECK(classify_answer(text, &code) == answer_kind::text);
  }
  CHECK(code == -5);
  CHECK(classify_answer(std::string_view("3\0", 2)) == answer_kind::text);
}

TEST_CASE("nethernet_error_name", "[sdp]") {
  CHECK(nethernet_error_name(0) == "None");
  CHECK(nethernet_error_name(1) == "DestinationNotLoggedIn");
  CHECK(nethernet_error_name(5) == "ICE");
  CHECK(nethernet_error_name(13) == "FailedToSetRemoteDescription");
  CHECK(nethernet_error_name(17) == "SignalingParsingFailure");
  CHECK(nethernet_error_name(18) == "SignalingUnknownError");
  CHECK(nethernet_error_name(22) == "SignalingTurnAuthFailed");
  CHECK(nethernet_error_name(26) == "SignalingFailedToSend");
  CHECK(nethernet_error_name(31) == "RelayServerConfigurationResultParsingErrorNoExpiration");
  CHECK(nethernet_error_name(35) == "GenericFailure");
  CHECK(nethernet_error_name(36) == "FailedToCreateIdentityAssertion");
  CHECK(nethernet_error_name(37) == "IdentityVerificationFailed");
  for (std::int64_t c = 0; c <= 37; ++c) {
    INFO("code " << c);
    CHECK_FALSE(nethernet_error_name(c).empty());
  }
  CHECK(nethernet_error_name(38).empty());
  CHECK(nethernet_error_name(1000).empty());
  CHECK(nethernet_error_name(-1).empty());
  CHECK(nethernet_error_name(std::numeric_limits<std::int64_t>::min()).empty());
  CHECK(nethernet_error_name(std::numeric_limits<std::int64_t>::max()).empty());
}
