// SDP offer checking and answer writing. The checks mirror what go-nethernet refuses with
// error code 13 (PROTOCOL §2.4, §3.2); the answer mirrors the BDS sample of §4.3.
#include "sdp.hpp"

#include <algorithm>
#include <cctype>

namespace fake_target {

namespace {

// Splits on LF and drops a CR before it, so offers with either line end read the same.
std::vector<std::string_view> split_lines(std::string_view body) {
  std::vector<std::string_view> lines;
  while (!body.empty()) {
    const auto end = body.find('\n');
    std::string_view line = body.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (end == std::string_view::npos) break;
    body.remove_prefix(end + 1);
  }
  // A final line end leaves nothing behind it; trailing blank lines are tolerated too,
  // as some writers add one, but a blank line between two fields is not.
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  while (!text.empty()) {
    const auto start = text.find_first_not_of(' ');
    if (start == std::string_view::npos) break;
    text.remove_prefix(start);
    const auto end = text.find(' ');
    words.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end);
  }
  return words;
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<std::uint64_t> parse_unsigned(std::string_view text) {
  if (!all_digits(text) || text.size() > 20) return std::nullopt;
  std::uint64_t value = 0;
  for (const char c : text) {
    const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_hex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

// A sha-256 digest is 32 bytes: "AB:CD:..." with 32 pairs and 31 colons.
bool is_sha256_digest(std::string_view digest) {
  if (digest.size() != 32 * 3 - 1) return false;
  for (std::size_t i = 0; i < digest.size(); ++i) {
    const bool colon_slot = i % 3 == 2;
    if (colon_slot ? digest[i] != ':' : !is_hex(digest[i])) return false;
  }
  return true;
}

bool is_datachannel_media(std::string_view value) {
  const auto words = split_words(value);
  if (words.size() != 4 || words[0] != "application" || words[2] != "UDP/DTLS/SCTP" ||
      words[3] != "webrtc-datachannel")
    return false;
  const auto port = parse_unsigned(words[1]);
  return port && *port <= 65535;
}

offer_check refuse(std::string problem) {
  return offer_check{std::nullopt, std::move(problem)};
}

std::string candidate_line(const answer_fields& fields, const answer_candidate& c) {
  const std::string common = std::to_string(c.foundation) + " 1 udp ";
  const std::string where = c.address + " " + std::to_string(c.port) + " typ host";
  switch (fields.dialect) {
    case candidate_dialect::go:
      // go-nethernet formats the attribute value with its own "candidate:" prefix and then
      // writes it under the attribute key "candidate", doubling the prefix (PROTOCOL §2.2).
      return "a=candidate:candidate:" + common + "2130706431 " + where + " generation 0 ufrag " +
             fields.ice_ufrag + " network-id 1 network-cost 0";
    case candidate_dialect::pumpkin:
      return "a=candidate:" + common + "2130706431 " + where;
    case candidate_dialect::bds:
      break;
  }
  return "a=candidate:" + common + "2122260223 " + where + " generation 0 network-id 1";
}

}  // namespace

offer_check check_offer(std::string_view body) {
  const auto lines = split_lines(body);
  if (lines.empty() || lines.front() != "v=0") return refuse("the offer does not start with v=0");

  offer_summary summary;
  std::size_t media_sections = 0;
  bool has_ufrag = false;
  bool has_pwd = false;
  bool has_sha256 = false;
  bool has_setup = false;
  bool has_max_message_size = false;

  for (const auto line : lines) {
    if (line.size() < 2 || line[1] != '=' || line[0] < 'a' || line[0] > 'z')
      return refuse("malformed SDP line: " + std::string(line));
    const auto value = line.substr(2);
    if (line[0] == 'm') {
      if (++media_sections > 1) return refuse("more than one m= section");
      if (!is_datachannel_media(value))
        return refuse("m= is not application UDP/DTLS/SCTP webrtc-datachannel");
      continue;
    }
    if (line[0] != 'a') continue;

    const auto colon = value.find(':');
    const auto name = value.substr(0, colon);
    const auto argument = colon == std::string_view::npos ? std::string_view{} : value.substr(colon + 1);
    if (name == "ice-ufrag") {
      has_ufrag = has_ufrag || !argument.empty();
    } else if (name == "ice-pwd") {
      has_pwd = has_pwd || !argument.empty();
    } else if (name == "fingerprint") {
      const auto words = split_words(argument);
      if (words.size() != 2) return refuse("malformed a=fingerprint line");
      sdp_fingerprint fingerprint{lowercase(words[0]), std::string(words[1])};
      if (fingerprint.algorithm == "sha-256") {
        if (!is_sha256_digest(fingerprint.digest)) return refuse("malformed sha-256 fingerprint");
        has_sha256 = true;
      }
      summary.fingerprints.push_back(std::move(fingerprint));
    } else if (name == "setup") {
      if (argument != "active" && argument != "passive" && argument != "actpass")
        return refuse("a=setup must be active, passive or actpass");
      has_setup = true;
    } else if (name == "max-message-size") {
      const auto size = parse_unsigned(argument);
      if (!size || *size <= 1) return refuse("a=max-message-size must be a number above 1");
      has_max_message_size = true;
    } else if (name == "identity" && media_sections == 0) {
      summary.session_identities.emplace_back(argument);
    }
  }

  if (media_sections == 0) return refuse("no m= section");
  if (!has_ufrag || !has_pwd) return refuse("a=ice-ufrag or a=ice-pwd is missing");
  if (!has_sha256) return refuse("no a=fingerprint:sha-256 line");
  if (!has_setup) return refuse("a=setup is missing");
  if (!has_max_message_size) return refuse("a=max-message-size is missing");
  return offer_check{std::move(summary), {}};
}

sdp_fingerprint answer_fingerprint(const answer_fields& fields) {
  return {"sha-256", fields.fingerprint};
}

std::string write_answer(const answer_fields& fields) {
  const bool any = !fields.candidates.empty();
  const std::string media_port = any ? std::to_string(fields.candidates.front().port) : "9";
  const std::string connection =
      any ? std::string(fields.ipv6 ? "IN IP6 " : "IN IP4 ") + fields.connection_address : "IN IP4 0.0.0.0";

  std::vector<std::string> lines = {
      "v=0",
      "o=- " + std::to_string(fields.session_id) + " 2 IN IP4 127.0.0.1",
      "s=-",
      "t=0 0",
      "a=group:BUNDLE 0",
      "a=extmap-allow-mixed",
      "a=msid-semantic: WMS",
      "a=identity:" + fields.identity,
      "m=application " + media_port + " UDP/DTLS/SCTP webrtc-datachannel",
      "c=" + connection,
  };
  for (const auto& candidate : fields.candidates) lines.push_back(candidate_line(fields, candidate));
  if (any)
    for (const auto& extra : fields.extra_lines) lines.push_back("a=" + extra);
  lines.insert(lines.end(), {
                                "a=ice-ufrag:" + fields.ice_ufrag,
                                "a=ice-pwd:" + fields.ice_pwd,
                                "a=ice-options:trickle",
                                "a=fingerprint:sha-256 " + fields.fingerprint,
                                "a=setup:active",
                                "a=mid:0",
                                "a=sctp-port:5000",
                                "a=max-message-size:262144",
                            });
  std::string out;
  for (const auto& line : lines) out.append(line).append("\r\n");
  return out;
}

}  // namespace fake_target
