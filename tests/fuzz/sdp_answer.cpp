// Fuzzes what a target sends back to our offer: classifying the body, reading an SDP answer
// and judging its candidates, as a probe does with every 2xx answer. A target is a stranger,
// so any bytes must give a value, within the bounds parse_answer promises.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "net/nethernet/candidates.hpp"
#include "net/nethernet/sdp_answer.hpp"
#include "tests/fuzz/fuzz_check.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using netherscope::fuzz::require;

namespace {

/// parse_answer's caps: 256 candidates read, 64 left-out lines named, then two summaries.
constexpr std::size_t max_candidates = 256;
constexpr std::size_t max_warnings = 64 + 2;

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view body{reinterpret_cast<const char*>(data), size};

  std::int64_t code = -1;
  if (classify_answer(body, &code) == answer_kind::error_code) {
    require(code >= 0 && code <= 9'999'999'999, "an error code is 1 to 10 digits");
    nethernet_error_name(code);
  }

  auto lines = sdp_lines(body);
  for (auto line : lines)
    require(line.find_first_of("\r\n") == std::string_view::npos, "a line holds no line end");

  auto parsed = parse_answer(body);
  require(parsed.valid() == parsed.problem.empty(), "an answer is valid exactly without problem");
  require(parsed.candidates.size() <= max_candidates, "at most 256 candidates are read");
  require(parsed.candidates.size() <= parsed.candidate_lines,
          "every candidate read comes from a candidate line");
  require(parsed.warnings.size() <= max_warnings, "left-out lines are named at most 64 times");
  for (const auto& c : parsed.candidates) {
    auto assessed = assess_candidate(c);
    require(!assessed.usable_by_players || (assessed.used_by_data_channels && c.transport == "udp"),
            "a candidate usable by players is UDP on component 1");
  }
  for (std::uint16_t port : {std::uint16_t{0}, std::uint16_t{19132}})
    require(candidate_warnings(parsed, port).size() <= 6, "each candidate warning comes once");
  return 0;
}
