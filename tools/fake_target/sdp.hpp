// SDP offer checking and answer writing for the fake target (PROTOCOL.md §3.2, §4.3).
// Pure string functions: no sockets, no clock, no randomness of their own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fake_target {

/// One `a=fingerprint:<algorithm> <digest>` line, algorithm lowercased, digest as written.
struct sdp_fingerprint {
  std::string algorithm;
  std::string digest;
};

/// What the rest of the fake needs from an offer that passed the structural check.
struct offer_summary {
  std::vector<sdp_fingerprint> fingerprints;    ///< every a=fingerprint line, in order
  std::vector<std::string> session_identities;  ///< values of a=identity lines before m=
};

/// The outcome of checking an offer's structure: a summary, or the reason it was refused.
struct offer_check {
  std::optional<offer_summary> summary;
  std::string problem;
};

/// Checks the lines go-nethernet insists on (PROTOCOL §3.2): `v=` first, exactly one
/// `m=application <port> UDP/DTLS/SCTP webrtc-datachannel`, ice-ufrag and ice-pwd, a
/// well-formed sha-256 fingerprint, a valid `a=setup`, and `a=max-message-size` above 1.
/// Lines may end with LF or CRLF.
offer_check check_offer(std::string_view body);

/// One candidate the answer advertises.
struct answer_candidate {
  std::uint32_t foundation = 0;
  std::string address;
  std::uint16_t port = 0;
};

/// How the candidate lines are written.
enum class candidate_dialect { bds, go, pumpkin };

/// Everything that varies between two answers.
struct answer_fields {
  std::uint64_t session_id = 0;    ///< the o= session id, below 2^63
  std::string identity;            ///< the a=identity value
  std::string connection_address;  ///< the c= address when there are candidates
  bool ipv6 = false;               ///< write IN IP6 rather than IN IP4
  std::vector<answer_candidate> candidates;
  std::vector<std::string> extra_lines;  ///< raw attribute values appended as a=<value>
  candidate_dialect dialect = candidate_dialect::bds;
  std::string ice_ufrag;
  std::string ice_pwd;
  std::string fingerprint;  ///< sha-256 digest, uppercase colon-separated hex
};

/// The single a=fingerprint line an answer made from these fields carries.
sdp_fingerprint answer_fingerprint(const answer_fields& fields);

/// Writes the answer in the BDS layout of PROTOCOL §4.3, CRLF line ends. With no
/// candidates the m= port is 9 and the connection line `c=IN IP4 0.0.0.0`, as go-nethernet
/// writes it.
std::string write_answer(const answer_fields& fields);

}  // namespace fake_target
