// Reachability of an answer's candidates (POST /api/offer with probe: true): which candidates
// to check, the STUN Binding requests that check them (net/nethernet/stun), and the reply's
// fields once the checks (net/upstream/ice_check) have ended. Pure functions; the probe actor
// runs the checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/reachability.hpp"
#include "net/upstream/ice_check.hpp"

namespace netherscope::net::report {

/// Plans the checks of an answer: every UDP candidate on component 1 is to be checked (the
/// checker sends to at most 8 destinations the address policy allows, and reports the rest
/// as over its limit); others are skipped as not_udp. Invalid when the answer is not a valid SDP answer (its
/// ufrag and pwd are then unknown). offer_ufrag is the a=ice-ufrag of the offer we sent.
core::reach_plan plan_reach(std::string_view answer_sdp, std::string_view offer_ufrag);

/// The checks of a plan, and which check each candidate's result comes from.
struct reach_run {
  std::vector<upstream::udp_check> checks;
  /// Per candidate of the plan: the index of its check, or npos when it is skipped. Two
  /// candidates with the same address and port share one check.
  std::vector<std::size_t> check_of;
};

/// Builds a Binding request per distinct destination, each with a random transaction ID
/// (OpenSSL's generator), ICE-CONTROLLING with tie_breaker, and a judge that accepts only a
/// response whose MESSAGE-INTEGRITY verifies under the answer's ice-pwd. A plan that is not
/// valid gives no checks.
reach_run make_checks(const core::reach_plan& plan, std::uint64_t tie_breaker);

/// A random tie-breaker (RFC 8445 §7.3.1.1) from OpenSSL's generator.
std::uint64_t random_tie_breaker();

/// Adds the results to an offer reply's body. Each candidate gets reachable (true, false, or
/// null when unchecked), rttMs (a number for reachable ones, else null), refused ("policy",
/// "limit", "not_udp", "not_ip" or null; limit: past the 8 destinations one answer's checks
/// go to), refusedReason (the policy's words, or null) and
/// checkResult ("reachable", "timeout", "integrity", "error_response", "send_failed", or null
/// when unchecked). The body gets "reachability": {checked, reachable, elapsedMs}. A body that
/// is not a JSON object is returned unchanged.
std::string with_reachability(std::string body, const core::reach_plan& plan, const reach_run& run,
                              const std::vector<upstream::udp_check_result>& results, double elapsed_ms);

} // namespace netherscope::net::report
