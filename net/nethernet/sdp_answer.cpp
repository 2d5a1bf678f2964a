// Reading what a NetherNet target answers to our offer. See sdp_answer.hpp.
//
// Everything here reads untrusted bytes from the Internet: no exceptions are thrown (apart from
// std::bad_alloc), every index is checked, and the work is linear in the input.
#include "net/nethernet/sdp_answer.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstring>
#include <tuple>
#include <utility>

#include <boost/algorithm/string/predicate.hpp>

#include "base/text.hpp"

namespace netherscope::net::nethernet {

namespace {

// -- limits -------------------------------------------------------------------------------------

/// Longest candidate attribute we parse. Real ones are under 300 bytes (a go-nethernet line
/// with a 256-character ufrag stays under 600); anything longer is left out unread.
constexpr std::size_t max_candidate_length = 4096;

/// Most candidates parse_answer collects from one answer.
constexpr std::size_t max_candidates = 256;

/// Most per-line warnings parse_answer writes; the rest are counted in one summary warning.
constexpr std::size_t max_line_warnings = 64;

/// How many bytes of a left-out line a warning quotes.
constexpr std::size_t warning_quote_length = 200;

/// Longest connection-address: a DNS name (253) with room for an IPv6 zone.
constexpr std::size_t max_address_length = 255;

// -- character classes --------------------------------------------------------------------------

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool is_alnum(char c) {
  return is_alpha(c) || is_digit(c);
}

/// ice-char = ALPHA / DIGIT / "+" / "/" (RFC 8839).
bool is_ice_char(char c) {
  return is_alnum(c) || c == '+' || c == '/';
}

/// token characters of RFC 3261 §25.1, which RFC 8839 uses for transport, cand-type and
/// extension names.
bool is_token_char(char c) {
  return is_alnum(c) || std::string_view{"-.!%*_+`'~"}.find(c) != std::string_view::npos;
}

/// The separators we accept between candidate fields: SP and HTAB (base::blanks), in runs.
bool is_blank(char c) {
  return base::blanks.find(c) != std::string_view::npos;
}

/// VCHAR of RFC 5234: printable ASCII without space.
bool is_vchar(char c) {
  auto u = static_cast<unsigned char>(c);
  return u >= 0x21 && u <= 0x7e;
}

template <class Predicate>
bool all_of(std::string_view s, Predicate pred) {
  return std::all_of(s.begin(), s.end(), pred);
}

using boost::algorithm::starts_with;

// -- fields -------------------------------------------------------------------------------------

enum class number_status { ok, malformed, out_of_range };

/// Parses an unsigned decimal of at most max_digits digits that is at most max_value. An empty
/// string or any non-digit (a sign included) is malformed; too many digits (leading zeros
/// count) or too large a value is out_of_range.
number_status parse_decimal(std::string_view s, std::size_t max_digits, std::uint64_t max_value,
                            std::uint64_t& out) {
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, 10);
  // from_chars reads every leading digit even when the value overflows, so a stop before the
  // end is a non-digit.
  if (s.empty() || end != s.data() + s.size() || ec == std::errc::invalid_argument)
    return number_status::malformed;
  if (s.size() > max_digits || ec == std::errc::result_out_of_range || value > max_value)
    return number_status::out_of_range;
  out = value;
  return number_status::ok;
}

/// Whether s is an IPv6 literal, optionally with a zone ("fe80::1%eth0"), per inet_pton.
bool is_ipv6_literal(std::string_view s) {
  auto percent = s.find('%');
  if (percent != std::string_view::npos) {
    auto zone = s.substr(percent + 1);
    if (zone.empty() || !all_of(zone, [](char c) { return is_alnum(c) || c == '-' || c == '_' || c == '.'; }))
      return false;
    s = s.substr(0, percent);
  }
  char text[INET6_ADDRSTRLEN + 1] = {};
  if (s.empty() || s.size() >= sizeof text)
    return false;
  std::memcpy(text, s.data(), s.size());
  in6_addr bytes{};
  return inet_pton(AF_INET6, text, &bytes) == 1;
}

/// Whether s is a dotted-quad IPv4 literal, per inet_pton (four parts, no leading zeros).
bool is_ipv4_literal(std::string_view s) {
  char text[INET_ADDRSTRLEN + 1] = {};
  if (s.empty() || s.size() >= sizeof text)
    return false;
  std::memcpy(text, s.data(), s.size());
  in_addr bytes{};
  return inet_pton(AF_INET, text, &bytes) == 1;
}

/// Whether s is a host name: dot-separated labels of 1..63 letters, digits, '-' or '_'.
/// Lenient on purpose (underscores, hyphens at label ends) so mDNS names such as
/// "5f3d0c6e-4b1a-4c1e-9a0e-2f4f6b7c8d9e.local" and odd operator names pass.
bool is_host_name(std::string_view s) {
  if (s.empty() || s.size() > 253)
    return false;
  std::size_t label = 0;
  for (char c : s) {
    if (c == '.') {
      if (label == 0)
        return false;
      label = 0;
    } else if (is_alnum(c) || c == '-' || c == '_') {
      if (++label > 63)
        return false;
    } else {
      return false;
    }
  }
  return label != 0;
}

/// connection-address: an IPv4 literal, an unbracketed IPv6 literal or a host name.
bool is_connection_address(std::string_view s) {
  if (s.empty() || s.size() > max_address_length)
    return false;
  if (s.find(':') != std::string_view::npos)
    return is_ipv6_literal(s);
  if (all_of(s, [](char c) { return is_digit(c) || c == '.'; }))
    return is_ipv4_literal(s);
  return is_host_name(s);
}

/// A line quoted in a warning: at most warning_quote_length bytes of it, bytes outside printable
/// ASCII written as \xNN, and "..." when cut.
std::string quote_line(std::string_view line) {
  auto shown = line.substr(0, warning_quote_length);
  std::string out;
  out.reserve(shown.size() + 3);
  for (char c : shown) {
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u <= 0x7e) {
      out += c;
    } else {
      out += "\\x";
      out += base::hex_upper({&c, 1});
    }
  }
  if (line.size() > shown.size())
    out += "...";
  return out;
}

std::optional<ice_candidate> fail(std::string* why, std::string reason) {
  if (why)
    *why = std::move(reason);
  return std::nullopt;
}

/// The status names of a failed port-like number.
std::string number_reason(number_status status, std::string_view field) {
  std::string out(field);
  out += status == number_status::out_of_range ? " out of range" : " is not a number";
  return out;
}

/// Stores a 32-bit decimal extension value in field, unless it is already set or not such a
/// decimal; returns whether it was stored.
bool keep_number(std::optional<std::uint32_t>& field, std::string_view value) {
  std::uint64_t number = 0;
  if (field || parse_decimal(value, 10, UINT32_MAX, number) != number_status::ok)
    return false;
  field = static_cast<std::uint32_t>(number);
  return true;
}

/// Stores an extension the API reports by name (tcptype, generation, network-id,
/// network-cost); returns false for any other pair, a repeated one, or a value not of its type,
/// which the caller keeps among the other extensions as written.
bool keep_known_extension(ice_candidate& out, std::string_view name, std::string_view value) {
  if (base::iequals(name, "tcptype")) {
    if (out.tcptype)
      return false;
    out.tcptype = base::ascii_lower(value);
    return true;
  }
  if (base::iequals(name, "generation"))
    return keep_number(out.generation, value);
  if (base::iequals(name, "network-id"))
    return keep_number(out.network_id, value);
  if (base::iequals(name, "network-cost"))
    return keep_number(out.network_cost, value);
  return false;
}

/// NetherNet error codes by value: go-nethernet signal.go (ErrorCode… iota list, 0–37), with 37
/// named as PROTOCOL.md §2.4 and PRODUCT.md name it (go-nethernet itself says IdentityNotAllowed).
constexpr std::array<std::string_view, 38> error_names = {
  "None",                                                  // 0
  "DestinationNotLoggedIn",                                // 1
  "NegotiationTimeout",                                    // 2
  "WrongTransportVersion",                                 // 3
  "FailedToCreatePeerConnection",                          // 4
  "ICE",                                                   // 5
  "ConnectRequest",                                        // 6
  "ConnectResponse",                                       // 7
  "CandidateAdd",                                          // 8
  "InactivityTimeout",                                     // 9
  "FailedToCreateOffer",                                   // 10
  "FailedToCreateAnswer",                                  // 11
  "FailedToSetLocalDescription",                           // 12
  "FailedToSetRemoteDescription",                          // 13
  "NegotiationTimeoutWaitingForResponse",                  // 14
  "NegotiationTimeoutWaitingForAccept",                    // 15
  "IncomingConnectionIgnored",                             // 16
  "SignalingParsingFailure",                               // 17
  "SignalingUnknownError",                                 // 18
  "SignalingUnicastMessageDeliveryFailed",                 // 19
  "SignalingBroadcastDeliveryFailed",                      // 20
  "SignalingMessageDeliveryFailed",                        // 21
  "SignalingTurnAuthFailed",                               // 22
  "SignalingFallbackToBestEffortDelivery",                 // 23
  "NoSignalingChannel",                                    // 24
  "NotLoggedIn",                                           // 25
  "SignalingFailedToSend",                                 // 26
  "RelayServerConfigurationResultFailure",                 // 27
  "RelayServerConfigurationResultParsingErrorNoURLs",      // 28
  "RelayServerConfigurationResultParsingErrorNoCreds",     // 29
  "RelayServerConfigurationResultParsingErrorNoServers",   // 30
  "RelayServerConfigurationResultParsingErrorNoExpiration", // 31
  "DataChannelClosed",                                     // 32
  "InternalErrorJSONSerialization",                        // 33
  "InvalidArgument",                                       // 34
  "GenericFailure",                                        // 35
  "FailedToCreateIdentityAssertion",                       // 36
  "IdentityVerificationFailed",                            // 37
};

} // namespace

// -- candidates ---------------------------------------------------------------------------------

std::optional<ice_candidate> parse_candidate(std::string_view line, std::string* why) {
  auto rest = line;
  while (!rest.empty() && (rest.back() == '\r' || rest.back() == '\n'))
    rest.remove_suffix(1);
  if (starts_with(rest, "a="))
    rest.remove_prefix(2);
  const auto raw = rest;
  constexpr std::string_view key = "candidate:";
  if (!starts_with(rest, key))
    return fail(why, "not a candidate attribute");
  rest.remove_prefix(key.size());
  // go-nethernet writes the attribute value with its own "candidate:" in front (PROTOCOL §2.2).
  if (starts_with(rest, key))
    rest.remove_prefix(key.size());
  if (raw.size() > max_candidate_length)
    return fail(why, "line too long (" + std::to_string(raw.size()) + " bytes, limit "
                       + std::to_string(max_candidate_length) + ")");
  for (std::size_t i = 0; i < rest.size(); ++i)
    if (!is_blank(rest[i]) && !is_vchar(rest[i]))
      return fail(why, "invalid byte 0x" + base::hex_upper(rest.substr(i, 1))
                         + " at column "
                         + std::to_string(static_cast<std::size_t>(rest.data() - line.data()) + i + 1));

  auto tokens = base::split_tokens(rest, base::blanks);
  auto n = tokens.size();
  ice_candidate out;
  std::uint64_t number = 0;

  if (n < 1)
    return fail(why, "missing foundation");
  if (tokens[0].size() > 32 || !all_of(tokens[0], is_ice_char))
    return fail(why, "bad foundation (1 to 32 of ALPHA DIGIT + /)");
  out.foundation = std::string(tokens[0]);

  if (n < 2)
    return fail(why, "missing component-id");
  if (auto st = parse_decimal(tokens[1], 3, 256, number); st != number_status::ok)
    return fail(why, number_reason(st, "component-id"));
  if (number == 0)
    return fail(why, "component-id out of range");
  out.component = static_cast<std::uint32_t>(number);

  if (n < 3)
    return fail(why, "missing transport");
  if (!all_of(tokens[2], is_token_char))
    return fail(why, "bad transport");
  out.transport = base::ascii_lower(tokens[2]);

  if (n < 4)
    return fail(why, "missing priority");
  if (auto st = parse_decimal(tokens[3], 10, UINT32_MAX, number); st != number_status::ok)
    return fail(why, number_reason(st, "priority"));
  out.priority = static_cast<std::uint32_t>(number);

  if (n < 5)
    return fail(why, "missing connection-address");
  if (!is_connection_address(tokens[4]))
    return fail(why, "bad connection-address");
  out.address = std::string(tokens[4]);

  if (n < 6)
    return fail(why, "missing port");
  if (auto st = parse_decimal(tokens[5], 5, 65535, number); st != number_status::ok)
    return fail(why, number_reason(st, "port"));
  out.port = static_cast<std::uint16_t>(number);

  if (n < 7 || !base::iequals(tokens[6], "typ"))
    return fail(why, "missing typ");
  if (n < 8)
    return fail(why, "typ without candidate type");
  if (!all_of(tokens[7], is_token_char))
    return fail(why, "bad candidate type");
  out.type = base::ascii_lower(tokens[7]);

  // What follows is name-value pairs: raddr and rport (RFC order, but accepted in any order so a
  // swapped pair is not taken for an extension), then extensions.
  for (std::size_t i = 8; i < n; i += 2) {
    auto name = tokens[i];
    bool is_raddr = base::iequals(name, "raddr");
    bool is_rport = base::iequals(name, "rport");
    bool has_value = i + 1 < n;
    if ((is_raddr || is_rport)
        && (!has_value || base::iequals(tokens[i + 1], "raddr") || base::iequals(tokens[i + 1], "rport")))
      return fail(why, std::string(is_raddr ? "raddr" : "rport") + " without value");
    if (!has_value)
      return fail(why, "odd number of extension tokens");
    auto value = tokens[i + 1];
    if (is_raddr) {
      if (out.related_address)
        return fail(why, "duplicate raddr");
      if (!is_connection_address(value))
        return fail(why, "bad raddr");
      out.related_address = std::string(value);
    } else if (is_rport) {
      if (out.related_port)
        return fail(why, "duplicate rport");
      if (auto st = parse_decimal(value, 5, 65535, number); st != number_status::ok)
        return fail(why, number_reason(st, "rport"));
      out.related_port = static_cast<std::uint16_t>(number);
    } else if (!all_of(name, is_token_char)) {
      return fail(why, "bad extension name");
    } else if (!keep_known_extension(out, name, value)) {
      out.extensions.emplace_back(std::string(name), std::string(value));
    }
  }

  out.raw = std::string(raw);
  return out;
}

// -- answers ------------------------------------------------------------------------------------

answer_kind classify_answer(std::string_view body, std::int64_t* code) {
  if (starts_with(body, "\xEF\xBB\xBF"))
    body.remove_prefix(3);
  body = base::trim(body, base::ascii_whitespace);
  if (starts_with(body, "v="))
    return answer_kind::sdp;
  std::uint64_t value = 0;
  // Ten digits at most: that covers every uint32 and fits int64 without overflow.
  if (parse_decimal(body, 10, 9'999'999'999ULL, value) == number_status::ok) {
    if (code)
      *code = static_cast<std::int64_t>(value);
    return answer_kind::error_code;
  }
  return answer_kind::text;
}

std::string_view nethernet_error_name(std::int64_t code) {
  if (code < 0 || code >= static_cast<std::int64_t>(error_names.size()))
    return {};
  return error_names[static_cast<std::size_t>(code)];
}

std::vector<std::string_view> sdp_lines(std::string_view sdp) {
  std::vector<std::string_view> lines;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < sdp.size(); ++i) {
    if (sdp[i] != '\r' && sdp[i] != '\n')
      continue;
    lines.push_back(sdp.substr(begin, i - begin));
    if (sdp[i] == '\r' && i + 1 < sdp.size() && sdp[i + 1] == '\n')
      ++i;
    begin = i + 1;
  }
  if (begin < sdp.size())
    lines.push_back(sdp.substr(begin));
  return lines;
}

namespace {

/// What parse_answer learns about the answer's shape while it reads the lines, and the first
/// part a valid answer lacks.
struct shape {
  bool seen_content = false;  // a line that is not blank came before
  bool version_first = false; // and the first such line was v=0
  std::size_t media_lines = 0;
  std::string first_media;    // the first m= line
  bool have_pwd = false;

  void see(std::string_view line) {
    if (!seen_content && base::trim(line, base::ascii_whitespace).empty())
      return;
    if (!seen_content) {
      seen_content = true;
      version_first = line == "v=0";
    }
    if (starts_with(line, "m=") && media_lines++ == 0)
      first_media = std::string(line);
    else if (starts_with(line, "a=ice-pwd:") && line.size() > std::string_view{"a=ice-pwd:"}.size())
      have_pwd = true;
  }

  /// The first problem of the answer, with its sentence fragment.
  std::pair<answer_problem, std::string> problem(const parsed_answer& parsed) const {
    using p = answer_problem;
    if (!version_first)
      return {p::no_version, "it does not begin with the version line v=0"};
    if (media_lines == 0)
      return {p::no_media, "it has no m=application line"};
    auto fields = base::split_tokens(std::string_view{first_media}.substr(2), " ");
    if (fields.size() < 2 || fields[0] != "application")
      return {p::not_application, "its m= line is not m=application with a port"};
    if (media_lines > 1)
      return {p::several_media, "it has " + std::to_string(media_lines)
                                  + " m= lines where one m=application is expected"};
    if (fields[1] == "0")
      return {p::rejected_media,
              "its m=application line has port 0, which rejects the data channel"};
    if (parsed.ice_ufrag.empty())
      return {p::no_ice_ufrag, "it has no a=ice-ufrag value"};
    if (!have_pwd)
      return {p::no_ice_pwd, "it has no a=ice-pwd value"};
    if (parsed.fingerprint.empty())
      return {p::no_fingerprint, "it has no a=fingerprint value"};
    return {p::none, {}};
  }
};

} // namespace

parsed_answer parse_answer(std::string_view sdp) {
  parsed_answer out;
  if (starts_with(sdp, "\xEF\xBB\xBF"))
    sdp.remove_prefix(3);
  shape seen;
  bool have_fingerprint = false;
  bool have_ufrag = false;
  std::size_t line_warnings = 0;
  std::size_t unwarned = 0;        // left-out lines past max_line_warnings
  std::size_t over_limit = 0;      // candidate lines past max_candidates
  std::size_t first_over_limit = 0;

  std::size_t line_number = 0;
  for (auto line : sdp_lines(sdp)) {
    ++line_number;
    seen.see(line);

    if (starts_with(line, "a=candidate:")) {
      ++out.candidate_lines;
      if (out.candidates.size() >= max_candidates) {
        if (over_limit++ == 0)
          first_over_limit = line_number;
        continue;
      }
      std::string why;
      if (auto candidate = parse_candidate(line, &why)) {
        out.candidates.push_back(std::move(*candidate));
      } else if (line_warnings < max_line_warnings) {
        ++line_warnings;
        out.warnings.push_back({"candidate_left_out",
                                "left out candidate line " + std::to_string(line_number) + ": "
                                  + why + ": " + quote_line(line)});
      } else {
        ++unwarned;
      }
    } else if (!have_fingerprint && starts_with(line, "a=fingerprint:")) {
      have_fingerprint = true;
      out.fingerprint = std::string(line.substr(std::string_view{"a=fingerprint:"}.size()));
    } else if (!have_ufrag && starts_with(line, "a=ice-ufrag:")) {
      have_ufrag = true;
      out.ice_ufrag = std::string(line.substr(std::string_view{"a=ice-ufrag:"}.size()));
    }
  }

  if (unwarned > 0)
    out.warnings.push_back({"candidate_left_out",
                            "left out " + std::to_string(unwarned)
                              + " more malformed candidate lines (warnings stop after "
                              + std::to_string(max_line_warnings) + ")"});
  if (over_limit > 0)
    out.warnings.push_back({"too_many_candidates",
                            "left out " + std::to_string(over_limit)
                              + " candidate lines from line " + std::to_string(first_over_limit)
                              + " on: at most " + std::to_string(max_candidates)
                              + " candidates are read"});
  std::tie(out.problem_code, out.problem) = seen.problem(out);
  return out;
}

} // namespace netherscope::net::nethernet
