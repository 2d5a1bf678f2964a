// Fuzzes the candidate line parser (RFC 8839 §5.1 with the leniencies sdp_answer.hpp lists)
// and what the API says about each candidate. One input is one line; a parsed candidate's
// raw text must parse again to the same candidate.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "net/nethernet/candidates.hpp"
#include "net/nethernet/sdp_answer.hpp"
#include "tests/fuzz/fuzz_check.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using netherscope::fuzz::require;

namespace {

bool same(const ice_candidate& a, const ice_candidate& b) {
  return a.raw == b.raw && a.foundation == b.foundation && a.component == b.component
         && a.transport == b.transport && a.priority == b.priority && a.address == b.address
         && a.port == b.port && a.type == b.type && a.related_address == b.related_address
         && a.related_port == b.related_port && a.tcptype == b.tcptype
         && a.generation == b.generation && a.network_id == b.network_id
         && a.network_cost == b.network_cost && a.extensions == b.extensions;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view line{reinterpret_cast<const char*>(data), size};

  std::string why;
  auto candidate = parse_candidate(line, &why);
  if (!candidate) {
    require(!why.empty(), "a refused candidate says why");
    return 0;
  }
  require(candidate->raw.size() <= line.size(), "raw is the line without its prefix and end");
  auto again = parse_candidate(candidate->raw);
  require(again && same(*again, *candidate), "a candidate's raw text parses to itself");

  auto assessed = assess_candidate(*candidate);
  require(!assessed.usable_by_players
            || (assessed.used_by_data_channels && candidate->transport == "udp"),
          "a candidate usable by players is UDP on component 1");

  // The candidate alone in an answer, as candidate_warnings sees the set.
  parsed_answer answer;
  answer.candidate_lines = 1;
  answer.candidates.push_back(*candidate);
  candidate_warnings(answer, candidate->port);
  return 0;
}
