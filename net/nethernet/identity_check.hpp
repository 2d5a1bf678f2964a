// Checking the a=identity of someone else's SDP (PROTOCOL.md §2.3): the self-signed shape NetherNet
// servers put in their answers. The token is an ES384 JWT signed by the key in its own cpk
// claim; the fingerprints are a detached ES384 JWS, by the same key, over the canonical payload
// of the SDP's a=fingerprint digests.
//
// Nothing here throws except std::bad_alloc: every refusal is an identity_check with a code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace netherscope::net::nethernet {

/// Why an a=identity was not verified; the first check that failed.
enum class identity_error {
  /// Every check passed.
  none,
  /// The SDP has no a=identity line.
  absent,
  /// The SDP has more than one a=identity line.
  duplicate,
  /// There are no sha-256 fingerprints to check the fingerprints JWS against.
  no_fingerprints,
  /// An a=fingerprint line uses a hash other than sha-256, which the payload cannot name.
  unsupported_fingerprint,
  /// The value is not standard base64.
  not_base64,
  /// The decoded value is not a JSON object.
  not_json,
  /// idp is missing, its protocol is not "default" or its domain is not a string.
  bad_idp,
  /// assertion is not a JSON string holding an object with string token and fingerprints.
  bad_assertion,
  /// The token is not a compact JWS with base64url JSON header and claims, or names crit.
  bad_token,
  /// The token is not ES384 (a client's RS256 GameServerToken, for one).
  unsupported_alg,
  /// cpk is missing, or neither a P-384 JWK nor the base64 DER of a P-384 public key.
  bad_cpk,
  /// The header's x5u is not a base64 DER public key, or not the key cpk names.
  x5u_mismatch,
  /// The token's signature does not verify with cpk.
  token_signature,
  /// iat or exp is present but not a number.
  bad_time,
  /// exp lies before now.
  expired,
  /// fingerprints is not a detached compact JWS with an ES384 header.
  bad_fingerprints,
  /// The fingerprints signature does not verify over these digests with cpk.
  fingerprint_signature,
};

/// The enumerator's own name ("token_signature"): a stable machine code for the API.
std::string_view to_string(identity_error code);

/// What checking an a=identity found.
struct identity_check {
  /// Whether there was an a=identity value to check.
  bool present = false;
  /// Whether every check passed.
  bool verified = false;
  /// Lowercase hex SHA-256 of cpk's DER SubjectPublicKeyInfo, the pin a plain-HTTP client
  /// keeps (PROTOCOL.md §2.3). Set once the token's signature verifies with cpk, even if a
  /// later check fails; empty before.
  std::string key_sha256;
  /// The token's iat in Unix seconds, when present (fractions cut towards the past, values
  /// beyond int64 clamped); set with key_sha256.
  std::optional<std::int64_t> issued_at;
  /// The token's exp, read as issued_at is.
  std::optional<std::int64_t> expires_at;
  /// The first check that failed; none when verified.
  identity_error code = identity_error::none;
  /// That check as a short sentence; empty when verified.
  std::string error;
};

/// Checks an a=identity value (the text after "a=identity:") against the SDP's sha-256
/// fingerprint digests ("AB:CD:...", in SDP order) at now_unix: decodes the layers, takes the
/// key from the token's cpk claim (a JWK object or a standard-base64 DER SPKI string), verifies
/// the ES384 token with it (and that x5u, when present, names the same key), checks exp >=
/// now_unix when exp is present, and verifies the fingerprints JWS over the canonical payload of
/// sha256_digests. present is always true. Tokens signed by someone else (a client's RS256
/// GameServerToken) fail.
identity_check verify_identity_attribute(std::string_view value,
                                         const std::vector<std::string>& sha256_digests,
                                         std::int64_t now_unix);

/// Checks the a=identity of a whole SDP (an answer): finds the a=identity line (absent when
/// there is none, duplicate when there are several) and every a=fingerprint line in order,
/// wherever they are, then checks as verify_identity_attribute. Lines end at CRLF, LF or a lone
/// CR (sdp_lines).
identity_check verify_sdp_identity(std::string_view sdp, std::int64_t now_unix);

} // namespace netherscope::net::nethernet
