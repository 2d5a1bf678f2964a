// The parts of JOSE this service uses: JWS in the compact serialization (RFC 7515 §7.1) signed
// with ES256 or ES384 (RFC 7518 §3.4), with the payload attached or detached (RFC 7515
// Appendix F), and EC public keys as JWKs (RFC 7518 §6.2). There is no JWE, RSA, HMAC or JSON
// serialization here, and an "alg" of "none" is never accepted.
//
// Nothing here throws except std::bad_alloc: malformed input comes back as a jose_error.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "base/crypto.hpp"

namespace netherscope::base {

/// The JWS algorithms we sign and verify: ECDSA with the curve's own hash, r||s signatures.
enum class jws_alg {
  /// ECDSA on P-256 with SHA-256; 64-byte signatures.
  es256,
  /// ECDSA on P-384 with SHA-384; 96-byte signatures.
  es384,
};

/// Why a JWS or a JWK was refused.
enum class jose_error {
  /// Nothing is wrong.
  none,
  /// Not three base64url parts, a header that is not a JSON object or has no string "alg", a
  /// detached JWS that carries a payload, or a signature that is not base64url.
  malformed,
  /// The header's "alg" names an algorithm we do not implement ("none", "RS256", "HS256", ...).
  unsupported_alg,
  /// The header has "crit": it names extensions that must be understood, and we know none
  /// (RFC 7515 §4.1.11).
  unsupported_crit,
  /// The header's "alg" does not go with the key (ES256 with a P-384 key, or the reverse).
  alg_mismatch,
  /// The key is not an EC P-256 or P-384 key, or a JWK does not describe one.
  bad_key,
  /// The signature does not verify, or has the wrong length for the algorithm.
  bad_signature,
};

/// A short sentence saying what an error means ("The JWS signature does not verify.").
std::string_view describe(jose_error error);

/// The name of an algorithm in a JWS header: "ES256" or "ES384".
std::string_view jws_alg_name(jws_alg alg);

/// The algorithm a header's "alg" names, or nullopt for any other name (including "none").
std::optional<jws_alg> jws_alg_from_name(std::string_view name);

/// The algorithm that signs with key: ES256 for P-256, ES384 for P-384; nullopt for others.
std::optional<jws_alg> jws_alg_for(const EVP_PKEY& key);

/// A compact JWS taken apart and decoded; verify_jws checks its signature.
struct jws {
  /// The protected header, a JSON object with a supported "alg".
  boost::json::object header;
  /// The algorithm the header names.
  jws_alg alg = jws_alg::es256;
  /// The payload bytes: decoded from the middle part, or as given for a detached JWS.
  std::string payload;
  /// The raw signature bytes (r||s for ECDSA).
  std::string signature;
  /// What the signature covers: BASE64URL(header) "." BASE64URL(payload), as on the wire.
  std::string signing_input;
};

/// Signs payload as a compact JWS "header.payload.signature". header is written as given (its
/// member order kept) and must hold the "alg" that goes with key; nullopt when it does not,
/// when key is not P-256 or P-384, or when signing fails.
std::optional<std::string> sign_jws(EVP_PKEY& key, const boost::json::object& header,
                                    std::string_view payload);

/// As sign_jws, but leaves the payload out of the result: "header..signature" (RFC 7515
/// Appendix F). The receiver must know the payload to verify it.
std::optional<std::string> sign_jws_detached(EVP_PKEY& key, const boost::json::object& header,
                                             std::string_view payload);

/// Takes a compact JWS apart: three base64url parts (the payload part may be empty, meaning an
/// empty payload), a header that is a JSON object with a supported "alg" and no "crit". Does
/// not verify the signature. On failure returns nullopt and, if error is given, sets it.
std::optional<jws> decode_jws(std::string_view compact, jose_error* error = nullptr);

/// Takes a detached compact JWS "header..signature" apart with its payload supplied; as
/// decode_jws, and malformed when the middle part is not empty.
std::optional<jws> decode_jws_detached(std::string_view compact, std::string_view payload,
                                       jose_error* error = nullptr);

/// Checks a decoded JWS's signature with key: alg_mismatch when the header's algorithm is not
/// the key's, bad_key for a key that is not P-256 or P-384, bad_signature when it does not
/// verify, none when it does.
jose_error verify_jws(const jws& token, EVP_PKEY& key);

/// The public key a JWK describes: "kty" "EC", "crv" "P-256" or "P-384", and "x" and "y" in
/// base64url of exactly the field width, naming a point on the curve. Other members (a "d",
/// "kid", "use") are ignored; the key made is public only. On failure returns null and, if
/// error is given, sets it to bad_key.
pkey_ptr key_from_jwk(const boost::json::object& jwk, jose_error* error = nullptr);

} // namespace netherscope::base
