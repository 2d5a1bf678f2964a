// The JSON bodies of a probe's successful replies (SPEC 2.1 and 2.2), rendered once where the
// result is made, so a cached reply is served as stored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "net/nethernet/identity_check.hpp"
#include "base/text.hpp"
#include "net/nethernet/sdp_answer.hpp"

namespace netherscope::net::report {

/// Renders SPEC 2.1 {ok, status, tls, info, infoError, infoErrorCode}. A UTF-8 byte order mark
/// and surrounding whitespace are ignored. An empty body gives info null and no error (normal:
/// BDS with LAN visibility off, go-nethernet, Pumpkin). A body that is not JSON ("not_json") or
/// is JSON but not an object ("not_object") gives info null and says so. In an object, the
/// fields BDS documents (name, version, level: strings; protocol, players, maxPlayers,
/// gameType: integers) that have another type are left out and named ("field_types"); every
/// other field is kept as sent. motd is the name's {raw, clean, html} (core/motd), null when
/// there is no name. infoError is a sentence and infoErrorCode its machine code, both null when
/// there is nothing to say.
std::string render_info(std::uint16_t status, bool tls, std::string_view target_body);

/// How much of the answer an offer reply echoes in "answer": bytes of the reply's JSON, escapes
/// counted (core fit_for_json). Real answers are a few KB.
constexpr std::size_t answer_json_limit = 64 * 1024;

/// How many bytes of JSON the "candidates" array of an offer reply may take.
constexpr std::size_t candidates_json_limit = 64 * 1024;

/// What the service knows about an offer besides the target's answer.
struct offer_context {
  /// The network ID the offer was sent with.
  std::string network_id;
  /// The signalling port the offer went to (TCP); 0 skips the port check.
  std::uint16_t signalling_port = 0;
  /// Unix seconds when the answer arrived: the answer's identity is checked against it.
  std::int64_t now_unix = 0;
  /// Hex SHA-256 of the identity key this target answered with last time, when remembered.
  /// When set, the identity reports keyChanged and previousKeySha256 (and a warning when the
  /// key differs). Nothing sets it yet: per-target key memory is for the store to provide.
  std::optional<std::string> previous_key_sha256;
  /// The gamertag the offer carried a signed-in identity for; empty when it went self-signed.
  std::string offered_as;
  /// Whether an Xbox account is linked but the offer went self-signed because the service's
  /// sign-in failed (the reply then says so, without the operator's details).
  bool link_failing = false;
};

/// Renders SPEC 2.2 for a valid 2xx SDP answer: {ok, answer, candidates, answerFingerprint,
/// iceUfrag, exhausted, networkId, tls, identity, warnings, warningCodes}. answer is cut to
/// answer_json_limit (answerTruncated: true when it was) and candidates to
/// candidates_json_limit (candidatesTruncated: true); everything else, exhausted and the
/// warnings included, is judged from the whole answer. Each candidate has
/// its fields (type, transport and tcpType lower-cased), scope, usedByDataChannels,
/// usableByPlayers and the deprecated publicAddress (scope is public). exhausted is true
/// exactly when the answer has no a=candidate line. warnings are sentences for the owner;
/// warningCodes holds each one's machine code at the same index. identity is the result of
/// checking the answer's a=identity at context.now_unix. offerIdentity says what our offer
/// carried: {"kind":"xbox","gamertag":...} or {"kind":"self"}, with the warning
/// xbox_link_failing when the service's Xbox sign-in failed.
std::string render_offer(std::string_view answer, const nethernet::parsed_answer& parsed,
                         const nethernet::identity_check& identity, bool tls, const offer_context& context);

} // namespace netherscope::net::report
