// The a=identity scheme of PROTOCOL.md §2.3: verifying an offer's assertion and making the
// self-signed "self" assertion that BDS puts in its answers.
#pragma once

#include "config.hpp"
#include "crypto.hpp"
#include "issuer_keys.hpp"
#include "sdp.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fake_target {

/// Why an identity assertion was refused; the styles word each kind differently.
enum class identity_failure {
  malformed,              ///< not base64, not the expected JSON, wrong alg, bad cpk, ...
  cpk_not_string,         ///< cpk is a JWK object where Pumpkin reads a base64 DER string
  token_signature,        ///< the token's ES384 signature does not verify with its own cpk
  expired,                ///< the token's exp lies in the past
  fingerprint_signature,  ///< the detached JWS does not cover this offer's fingerprints
};

/// A refused assertion: its kind plus a human-readable detail for the log.
struct identity_problem {
  identity_failure kind;
  std::string detail;
};

/// The canonical payload the fingerprints JWS signs: keys sorted, no whitespace,
/// `{"fingerprint":[{"algorithm":"sha-256","digest":"AA:..."}]}`.
std::string canonical_fingerprints(const std::vector<sdp_fingerprint>& fingerprints);

/// Which forms of the token's `cpk` claim a verifier takes.
enum class cpk_forms {
  jwk_or_der,  ///< a P-384 JWK object or a base64 DER string, as go-nethernet reads it
  der_only,    ///< a base64 DER string only: Pumpkin's claims struct types cpk as a string
};

/// Verifies an a=identity value against the offer's fingerprints at time `now` (Unix
/// seconds), as an offline server does. An ES384 token is treated as self-signed: its
/// signature is checked with its own `cpk`, in one of the forms `accepted` names. An RS256
/// token (an issuer-signed GameServerToken) is taken as go-nethernet's default verifier and
/// an offline Pumpkin take it: only its `cpk` and `exp` (which it must have) are read, and its
/// signature is not checked.
std::optional<identity_problem> verify_identity(std::string_view value,
                                                const std::vector<sdp_fingerprint>& fingerprints,
                                                std::int64_t now,
                                                cpk_forms accepted = cpk_forms::jwk_or_der);

/// What an online-mode server reads of an identity before it asks the Xbox service about the
/// token: whether it decodes, whether its provider is one it takes (Pumpkin: idp.protocol
/// "default" and a domain), and the token header's key id.
struct online_view {
  bool decodes = false;
  bool provider_ok = false;
  /// The token header's "kid"; empty when there is none (a self-signed token has none).
  std::string kid;
};

/// Reads an a=identity value as an online-mode server does first.
online_view read_for_online(std::string_view value);

/// How online verification of an offer's GameServerToken ended.
enum class online_outcome {
  verified,     ///< every check passed
  refused,      ///< a check failed; pumpkin_text says which
  unknown_kid,  ///< the token's kid is not in the key set (worth one refetch of the JWKS)
};

/// The verdict of verify_game_server_identity, with Pumpkin's words for a refusal and, for a
/// verified token, the player it names.
struct online_verdict {
  online_outcome outcome = online_outcome::refused;
  /// The text of Pumpkin's 400 (for refused and unknown_kid).
  std::string pumpkin_text;
  /// The token's xname (gamertag) and xid (XUID), when verified.
  std::string xname;
  std::string xid;
};

/// Verifies an a=identity value as an online-mode server does: idp.protocol "default" and a
/// non-empty idp.domain; a token header with a kid the key set knows and alg RS256; the RS256
/// signature; exp in the future; iss one of keys.issuers; and the fingerprints JWS signed by
/// the key the token's cpk (base64 DER) names, over this offer's fingerprints.
online_verdict verify_game_server_identity(std::string_view value,
                                           const std::vector<sdp_fingerprint>& fingerprints,
                                           std::int64_t now, const issuer_keys& keys);

/// Makes a BDS-shaped identity value (domain "self", ES384 token with x5u header, a 60 s
/// lifetime) whose fingerprints JWS covers `fingerprints`.
std::string make_identity(EVP_PKEY* key, const std::vector<sdp_fingerprint>& fingerprints, std::int64_t now,
                          cpk_form form);

}  // namespace fake_target
