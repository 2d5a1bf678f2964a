// Tests for net/nethernet/candidates: each candidate's usability, and the warnings an answer's
// candidates earn as a whole, each in the situation owners meet it.
#include "net/nethernet/candidates.hpp"
#include "support/rooms.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace netherscope::test;

namespace {

/// A parsed answer with these candidate lines (which must all parse).
parsed_answer with(const std::vector<std::string>& lines) {
  parsed_answer a;
  for (const auto& line : lines) {
    auto c = parse_candidate(line);
    INFO(line);
    REQUIRE(c);
    a.candidates.push_back(*c);
  }
  a.candidate_lines = lines.size();
  return a;
}

std::vector<std::string> codes(const parsed_answer& a, std::uint16_t port = 19132) {
  std::vector<std::string> out;
  for (const auto& w : candidate_warnings(a, port)) {
    CHECK_FALSE(w.message.empty());
    out.push_back(w.code);
  }
  return out;
}

using list = std::vector<std::string>;

} // namespace

TEST_CASE("usable by players: UDP, component 1, public", "[candidates]") {
  struct row {
    const char* line;
    bool data_channel;
    bool usable;
  };
  for (auto r : {row{"candidate:1 1 udp 1 8.8.8.8 40000 typ host", true, true},
                 row{"candidate:1 1 UDP 1 2001:4860::1 40000 typ srflx raddr 10.0.0.1 rport 1", true, true},
                 row{"candidate:1 1 udp 1 8.8.8.8 40000 typ relay", true, true},
                 row{"candidate:1 2 udp 1 8.8.8.8 40000 typ host", false, false},
                 row{"candidate:1 1 tcp 1 8.8.8.8 40000 typ host tcptype passive", true, false},
                 row{"candidate:1 1 udp 1 10.0.0.5 40000 typ host", true, false},
                 row{"candidate:1 1 udp 1 x.local 40000 typ host", true, false}}) {
    INFO(r.line);
    auto assessed = assess_candidate(*parse_candidate(r.line));
    CHECK(assessed.used_by_data_channels == r.data_channel);
    CHECK(assessed.usable_by_players == r.usable);
  }
}

TEST_CASE("candidate warnings in the situations owners meet", "[candidates]") {
  const std::string public_udp = "candidate:1 1 udp 1 8.8.8.8 40000 typ host";
  const std::string docker = "candidate:2 1 udp 1 172.17.0.2 40000 typ host";
  const std::string loopback = "candidate:3 1 udp 1 127.0.0.1 40001 typ host";
  const std::string public_tcp = "candidate:4 1 tcp 1 8.8.8.8 40002 typ host tcptype passive";
  const std::string public_v6 = "candidate:5 1 udp 1 2001:4860::1 40003 typ host";

  // A healthy answer says nothing.
  CHECK(codes(with({public_udp, docker})).empty());

  // BDS behind a Docker bridge: only its container address.
  auto behind_docker = candidate_warnings(with({docker, loopback}), 19132);
  REQUIRE(behind_docker.size() == 1);
  CHECK(behind_docker[0].code == "udp_not_public");
  // The addresses are the owner's own data, which the warning names.
  CHECK(behind_docker[0].message.find("172.17.0.2 is a private address") != std::string::npos);
  CHECK(behind_docker[0].message.find("127.0.0.1 is a loopback address") != std::string::npos);

  CHECK(codes(with({public_tcp})) == list{"no_udp_candidates"});
  CHECK(codes(with({public_v6})) == list{"ipv6_only"});
  CHECK(codes(with({public_v6, public_udp})).empty());
  CHECK(codes(with({"candidate:1 1 udp 1 8.8.8.8 19132 typ host"}))
        == list{"signalling_port_reused"});
  // Port 0 means the signalling port is not known.
  CHECK(codes(with({"candidate:1 1 udp 1 8.8.8.8 19132 typ host"}), 0).empty());
  CHECK(codes(with({public_udp, "candidate:1 2 udp 1 8.8.8.8 40000 typ host"}))
        == list{"component_not_used"});
  // Component 2 alone does not let anyone in.
  CHECK(codes(with({"candidate:1 2 udp 1 8.8.8.8 40000 typ host"}))
        == list{"no_udp_candidates", "component_not_used"});
  // Several at once, in their documented order.
  CHECK(codes(with({"candidate:1 1 udp 1 fd00::2 19132 typ host", public_tcp}))
        == list{"udp_not_public", "ipv6_only", "signalling_port_reused"});
}

TEST_CASE("no candidate lines: one warning, malformed lines only: none of these", "[candidates]") {
  parsed_answer empty;
  CHECK(codes(empty) == list{"no_candidates"});
  parsed_answer malformed;
  malformed.candidate_lines = 3;
  CHECK(codes(malformed).empty());
}

TEST_CASE("udp_not_public names four addresses, then counts", "[candidates]") {
  std::vector<std::string> lines;
  for (int i = 1; i <= 6; ++i)
    lines.push_back("candidate:" + std::to_string(i) + " 1 udp 1 10.0.0." + std::to_string(i)
                    + " 4000 typ host");
  lines.push_back("candidate:9 1 udp 1 10.0.0.1 4001 typ host"); // an address seen before
  auto warnings = candidate_warnings(with(lines), 19132);
  REQUIRE(warnings.size() == 1);
  const auto& m = warnings[0].message;
  CHECK(m.find("10.0.0.4 is a private address, and 2 more") != std::string::npos);
  CHECK(m.find("10.0.0.5") == std::string::npos);
}
