// The OpenSSL 3 operations the fake Xbox chain needs, written apart from netherscope's own so
// that the fake checks the service instead of agreeing with it: base64 in both alphabets,
// digests, the P-256 proof keys of Xbox request signatures, and the issuer's RSA key that signs
// GameServerTokens (RS256) and is published as a JWKS.
#pragma once

#include <openssl/evp.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace fake_xbox {

struct pkey_free {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
/// An owned OpenSSL key.
using pkey = std::unique_ptr<EVP_PKEY, pkey_free>;

/// Base64 with padding (standard alphabet) or without (URL alphabet).
std::string to_base64(std::string_view bytes, bool url_alphabet);

/// Decodes base64 in either alphabet, padding optional; nullopt on any other character.
std::optional<std::string> from_base64(std::string_view text);

/// SHA-256 or SHA-1 of bytes, raw.
std::string digest(std::string_view bytes, bool sha1 = false);

/// Uppercase hex of bytes.
std::string upper_hex(std::string_view bytes);

/// n random bytes; throws std::runtime_error if the generator fails.
std::string random_bytes(std::size_t n);

/// A random token: prefix + base64url of n random bytes.
std::string random_token(std::string_view prefix, std::size_t n = 32);

/// A P-256 public key from a proof key JWK's base64url x and y; empty when they are not a
/// point on the curve.
pkey p256_from_jwk(std::string_view x_b64url, std::string_view y_b64url);

/// Whether sig (raw r||s, 64 bytes) is an ECDSA P-256 signature of SHA-256(message).
bool p256_verify(EVP_PKEY* key, std::string_view message, std::string_view sig);

/// Parses a DER SubjectPublicKeyInfo and names its curve ("secp384r1"); empty when it is not
/// an EC key.
std::string ec_curve_of_spki(std::string_view der);

/// The issuer's RSA key and what the JWKS publishes of it.
struct issuer_key {
  pkey key;
  /// kid = x5t = uppercase hex SHA-1 of the DER of a self-signed certificate for the key, as
  /// the captured JWKS writes both.
  std::string kid;
  /// The modulus and exponent in base64url.
  std::string n;
  std::string e;
};

/// Makes a 2048-bit RSA key and its certificate's thumbprint; throws on failure.
issuer_key make_issuer_key();

/// Signs a compact JWS with RS256; throws on failure.
std::string rs256_sign(EVP_PKEY* key, std::string_view signing_input);

}  // namespace fake_xbox
