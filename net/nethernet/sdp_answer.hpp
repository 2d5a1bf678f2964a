// Reading what a NetherNet target answers to our offer: SDP, a bare error code, or text.
//
// Pure functions over strings; nothing here touches the network. See PROTOCOL.md §2.2–§2.4 and
// RFC 8839 §5.1 for the candidate grammar.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace netherscope::net {

/// One ICE candidate as SPEC 2.3 describes it.
struct ice_candidate {
  /// The attribute as written, without a leading "a=" and without trailing CR/LF. A doubled
  /// prefix stays visible: "a=candidate:candidate:1 ..." gives "candidate:candidate:1 ...".
  std::string raw;
  std::string foundation;
  std::uint32_t component = 0;
  /// As written in the SDP ("udp", "UDP", "tcp"); compared case-insensitively.
  std::string transport;
  std::uint32_t priority = 0;
  std::string address;
  std::uint16_t port = 0;
  /// "host", "srflx", "prflx", "relay" or another token.
  std::string type;
  std::optional<std::string> related_address;
  std::optional<std::uint16_t> related_port;
};

/// Parses one candidate attribute (RFC 8839 §5.1). Accepts "a=candidate:...", "candidate:..."
/// and the doubled "candidate:candidate:..." prefix (with or without "a="); trailing CR/LF is
/// ignored. On failure returns nullopt and, if why is given, stores a short reason
/// ("port out of range").
///
/// Leniencies: fields may be separated by runs of spaces and tabs (libwebrtc writes one space);
/// the literals "typ", "raddr" and "rport" match case-insensitively (ABNF); raddr and rport may
/// come in either order after the type; extension pairs ("generation 0", "tcptype passive", ...)
/// are accepted and ignored. Refused: anything over 4096 bytes, any byte that is not printable
/// ASCII, space or tab, an odd number of tokens after the type, and a duplicate raddr or rport.
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

/// The parts of an SDP answer the API reports.
struct parsed_answer {
  std::vector<ice_candidate> candidates;
  /// One entry per candidate line left out, naming the line and why:
  /// "left out candidate line N: <reason>: <line>" with N counted from 1, the line cut to 200
  /// bytes (then "...") and bytes outside printable ASCII written as \xNN. After 64 such
  /// entries, one summary entry counts the rest; another says when the candidate cap was hit.
  std::vector<std::string> warnings;
  /// The first a=fingerprint value as written (bytes untouched), e.g. "sha-256 AB:CD:...".
  std::string fingerprint;
  /// The first a=ice-ufrag value as written.
  std::string ice_ufrag;
};

/// Parses an SDP answer: every a=candidate line (session or media level), the fingerprint and
/// the ufrag. Lines end at LF, with one CR before it dropped. Never fails: bad candidate lines
/// become warnings. Duplicate candidate lines are all kept. At most 256 candidates are read; the
/// candidate lines after that are only counted in one warning.
parsed_answer parse_answer(std::string_view sdp);

} // namespace netherscope::net
