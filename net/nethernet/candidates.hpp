// What a server's ICE candidates mean for players: where each address lies, whether a player's
// client can use it, and warnings in plain words for the mistakes server owners make.
//
// A Minecraft client connects over UDP only, on component 1 (the one data channels use), and
// from anywhere on the Internet, so only a public UDP component-1 candidate lets a stranger in.
#pragma once

#include <cstdint>
#include <vector>

#include "base/address_scope.hpp"
#include "net/nethernet/sdp_answer.hpp"

namespace netherscope::net::nethernet {

/// What the API says about one candidate besides its own fields.
struct candidate_assessment {
  /// Where its address lies, and its IP version.
  base::address_class where;
  /// Component 1: a data channel is SCTP over one DTLS association on ICE component 1 (RFC
  /// 8831, 8261); component 2 only ever carried RTCP. pion lists every candidate again as
  /// component 2.
  bool used_by_data_channels = false;
  /// UDP, component 1 and a public address: a player anywhere can try it.
  bool usable_by_players = false;
};

/// Assesses one candidate.
candidate_assessment assess_candidate(const ice_candidate& candidate);

/// Warnings about an answer's candidates as a whole, in this order, each at most once:
/// - "no_candidates": the answer has no a=candidate line at all (nothing else is said then);
/// - "no_udp_candidates": no UDP candidate on component 1 (only TCP, say), though clients
///   connect over UDP only;
/// - "udp_not_public": UDP component-1 candidates exist but none has a public address, naming
///   up to four of them and what they are;
/// - "ipv6_only": every UDP component-1 candidate with an IP address is IPv6;
/// - "signalling_port_reused": a UDP candidate uses the signalling port's number (so UDP must be
///   open on that port as well as TCP); not checked when signalling_port is 0;
/// - "component_not_used": candidates for components other than 1, counted.
/// Candidate lines left out as malformed are parse_answer's warnings, not these.
std::vector<answer_warning> candidate_warnings(const parsed_answer& parsed,
                                               std::uint16_t signalling_port);

} // namespace netherscope::net::nethernet
