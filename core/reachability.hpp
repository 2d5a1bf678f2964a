// What a probe needs to check an answer's candidates for reachability (POST /api/offer with
// probe: true), as a plain value the io thread hands to the probe actor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace netherscope::core {

/// Why a candidate is left unchecked, or none when it is to be checked.
enum class reach_skip : std::uint8_t {
  none,
  /// TCP, or a component other than 1: players connect over UDP on component 1 only.
  not_udp,
};

/// One candidate of the answer, in the order of the reply's candidates array.
struct reach_target {
  std::string address;
  std::uint16_t port = 0;
  reach_skip skip = reach_skip::none;
};

/// The credentials and candidates of one answer (RFC 8445 §7.2.2: the check's USERNAME is
/// "<answer ufrag>:<offer ufrag>", its key the answer's ice-pwd).
struct reach_plan {
  /// False when there is no valid answer to check.
  bool valid = false;
  std::string offer_ufrag;
  std::string answer_ufrag;
  std::string answer_pwd;
  std::vector<reach_target> candidates;
};

} // namespace netherscope::core
