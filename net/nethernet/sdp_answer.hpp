// Reading what a NetherNet target answers to our offer: SDP, a bare error code, or text.
//
// Pure functions over strings; nothing here touches the network. See PROTOCOL.md §2.2–§2.4 and
// RFC 8839 §5.1 for the candidate grammar.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace netherscope::net::nethernet {

/// One ICE candidate as SPEC 2.3 describes it, with the extension attributes the API reports.
struct ice_candidate {
  /// The attribute as written, without a leading "a=" and without trailing CR/LF. A doubled
  /// prefix stays visible: "a=candidate:candidate:1 ..." gives "candidate:candidate:1 ...".
  std::string raw;
  std::string foundation;
  std::uint32_t component = 0;
  /// Lower-cased ("udp", "tcp"): RFC 8839 makes the token case-insensitive, and servers write
  /// "UDP" as often as "udp".
  std::string transport;
  std::uint32_t priority = 0;
  std::string address;
  std::uint16_t port = 0;
  /// Lower-cased: "host", "srflx", "prflx", "relay" or another token.
  std::string type;
  std::optional<std::string> related_address;
  std::optional<std::uint16_t> related_port;
  /// RFC 6544 tcptype of a TCP candidate, lower-cased ("active", "passive", "so").
  std::optional<std::string> tcptype;
  /// libwebrtc's "generation N", when N is a decimal that fits 32 bits.
  std::optional<std::uint32_t> generation;
  /// libwebrtc's and go-nethernet's "network-id N", when N fits 32 bits.
  std::optional<std::uint32_t> network_id;
  /// libwebrtc's and go-nethernet's "network-cost N", when N fits 32 bits.
  std::optional<std::uint32_t> network_cost;
  /// Every other name-value pair after the type, as written and in order ("ufrag" among them),
  /// and a known pair whose value is not of its type (so nothing the server wrote is lost).
  std::vector<std::pair<std::string, std::string>> extensions;
};

/// Parses one candidate attribute (RFC 8839 §5.1). Accepts "a=candidate:...", "candidate:..."
/// and the doubled "candidate:candidate:..." prefix (with or without "a="); trailing CR/LF is
/// ignored. On failure returns nullopt and, if why is given, stores a short reason
/// ("port out of range").
///
/// Leniencies: fields may be separated by runs of spaces and tabs (libwebrtc writes one space);
/// the literals "typ", "raddr" and "rport" and the extension names match case-insensitively
/// (ABNF); raddr and rport may come in either order after the type; extension pairs
/// ("generation 0", "tcptype passive", ...) are kept as ice_candidate describes. Refused:
/// anything over 4096 bytes, any byte that is not printable ASCII, space or tab, an odd number
/// of tokens after the type, and a duplicate raddr or rport.
/// The address may be IPv4, unbracketed IPv6 (optionally with a %zone) or a host name such as an
/// mDNS "<uuid>.local".
std::optional<ice_candidate> parse_candidate(std::string_view line,
                                             std::string* why = nullptr);

/// What kind of body a target sent in answer to an offer.
enum class answer_kind {
  /// SDP: the body begins with "v=".
  sdp,
  /// A bare decimal NetherNet error code, optionally surrounded by whitespace.
  error_code,
  /// Anything else: an implementation's error text, or nothing.
  text,
};

/// Classifies an answer body; for error_code, stores the code in code (left untouched
/// otherwise). A leading UTF-8 BOM and ASCII whitespace are skipped before looking for "v=".
/// An error code is 1 to 10 decimal digits with nothing but whitespace around them; a sign,
/// more digits or any other text makes the body text.
answer_kind classify_answer(std::string_view body, std::int64_t* code = nullptr);

/// The name of a NetherNet error code (PROTOCOL.md §2.4; go-nethernet signal.go for 0-36),
/// or an empty view when unknown (negative, or above 37).
std::string_view nethernet_error_name(std::int64_t code);

/// The lines of an SDP text. A line ends at CRLF, LF or a lone CR: RFC 8866 asks for CRLF and
/// tells parsers to accept LF, and some servers send CR alone. The last line needs no end.
std::vector<std::string_view> sdp_lines(std::string_view sdp);

/// A remark about an answer for the API: a stable machine code to switch on and a sentence
/// for the server's owner.
struct answer_warning {
  std::string code;
  std::string message;
};

/// The first thing that makes an SDP answer unusable for a client, in the order checked.
enum class answer_problem {
  /// Nothing: the answer is valid.
  none,
  /// The first line (after a byte order mark and blank lines) is not v=0.
  no_version,
  /// There is no m= line.
  no_media,
  /// The first m= line is not m=application followed by a port.
  not_application,
  /// There is more than one m= line.
  several_media,
  /// The m=application line has port 0: the answerer rejected the data channel.
  rejected_media,
  /// No non-empty a=ice-ufrag.
  no_ice_ufrag,
  /// No non-empty a=ice-pwd.
  no_ice_pwd,
  /// No non-empty a=fingerprint.
  no_fingerprint,
};

/// The parts of an SDP answer the API reports.
struct parsed_answer {
  std::vector<ice_candidate> candidates;
  /// How many a=candidate lines the answer has, read or left out. Zero is what a drained port
  /// pool gives; lines that were all malformed are something else.
  std::size_t candidate_lines = 0;
  /// One entry per candidate line left out, code "candidate_left_out", naming the line and why:
  /// "left out candidate line N: <reason>: <line>" with N counted from 1, the line cut to 200
  /// bytes (then "...") and bytes outside printable ASCII written as \xNN. After 64 such
  /// entries, one summary entry (the same code) counts the rest; another, code
  /// "too_many_candidates", says when the candidate cap was hit.
  std::vector<answer_warning> warnings;
  /// The first a=fingerprint value as written (bytes untouched), e.g. "sha-256 AB:CD:...".
  std::string fingerprint;
  /// The first a=ice-ufrag value as written.
  std::string ice_ufrag;
  /// Why this is not a valid answer, naming the first part it lacks, e.g. "it has no
  /// a=ice-pwd value"; empty when it is valid. Valid means: the first line is v=0 (after an
  /// optional UTF-8 byte order mark and blank lines), there is exactly one m= line and it is
  /// m=application with a port other than 0 (port 0 rejects the data channel), and it has
  /// non-empty a=ice-ufrag, a=ice-pwd and a=fingerprint values (session or media level).
  std::string problem;
  /// The same as a value.
  answer_problem problem_code = answer_problem::none;

  /// Whether the answer has everything a client needs to connect apart from candidates.
  bool valid() const noexcept {
    return problem_code == answer_problem::none;
  }
};

/// Parses an SDP answer: every a=candidate line (session or media level), the fingerprint, the
/// ufrag and whether the answer is complete. Lines are those of sdp_lines. Never fails: bad
/// candidate lines become warnings and a missing part becomes problem. Duplicate candidate
/// lines are all kept. At most 256 candidates are read; the candidate lines after that are
/// only counted in one warning.
parsed_answer parse_answer(std::string_view sdp);

} // namespace netherscope::net::nethernet
