// The small set of OpenSSL 3 operations the fake target needs: base64 codecs, self-signed
// certificates, P-384 keys, ES384 (raw r||s) signatures and RS256 verification. Only
// EVP-level APIs are used.
#pragma once

#include "config.hpp"

#include <openssl/evp.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace fake_target {

struct pkey_deleter {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
/// An owned OpenSSL key.
using pkey_ptr = std::unique_ptr<EVP_PKEY, pkey_deleter>;

/// Encodes bytes as base64: the standard alphabet with padding, or base64url without padding.
std::string base64_encode(std::string_view data, bool url);

/// Decodes base64 in one alphabet. Padding is optional; anything else outside the alphabet
/// (whitespace, the other alphabet's characters, data after padding) makes it fail.
std::optional<std::string> base64_decode(std::string_view text, bool url);

/// A certificate and its key, in the forms the TLS layer and the SDP answer need.
struct certificate {
  std::string cert_pem;
  std::string key_pem;
  std::string cert_der;
};

/// Makes a self-signed ECDSA P-256 certificate for CN=localhost with SAN
/// IP:127.0.0.1, IP:::1, DNS:localhost, valid from an hour ago for one day. Throws
/// std::runtime_error when OpenSSL fails, which only happens at startup.
certificate make_self_signed_certificate();

/// The certificate --tls on presents, and the PEM a client has to trust to accept it.
struct tls_certificate_set {
  certificate served;
  std::string trust_pem;
};

/// Makes the --tls on certificate of a kind, all ECDSA P-256: good is
/// make_self_signed_certificate(); expired has the same names but ended a day ago; wrong_name
/// is self-signed for CN and DNS wrong.example only; unknown_issuer is the good names signed
/// by a CA made for the occasion, whose certificate is trust_pem (the others trust
/// themselves). Throws std::runtime_error when OpenSSL fails.
tls_certificate_set make_tls_certificate(cert_kind kind);

/// Formats SHA-256(data) the way SDP fingerprints are written: uppercase hex pairs joined by ':'.
std::string sha256_fingerprint(std::string_view data);

/// Generates a P-384 key pair; throws std::runtime_error on failure.
pkey_ptr make_p384_key();

/// The DER SubjectPublicKeyInfo of a key.
std::string public_key_der(EVP_PKEY* key);

/// The 48-byte big-endian x and y coordinates of a P-384 public key.
std::pair<std::string, std::string> public_key_xy(EVP_PKEY* key);

/// Builds a P-384 public key from JWK coordinates; empty when they are not a point on the curve.
pkey_ptr p384_key_from_xy(std::string_view x, std::string_view y);

/// Parses a DER SubjectPublicKeyInfo; empty unless it is an EC key on P-384.
pkey_ptr p384_key_from_der(std::string_view der);

/// Signs with ECDSA over SHA-384 and returns the 96-byte JWS form r||s.
std::string es384_sign(EVP_PKEY* key, std::string_view input);

/// Verifies a 96-byte JWS ES384 signature (r||s) over input.
bool es384_verify(EVP_PKEY* key, std::string_view input, std::string_view raw_signature);

/// Builds an RSA public key from a JWK's modulus and exponent (big-endian bytes, already
/// decoded from base64url); empty when OpenSSL refuses them.
pkey_ptr rsa_public_key(std::string_view n, std::string_view e);

/// Verifies a JWS RS256 signature (RSASSA-PKCS1-v1_5 over SHA-256) over input.
bool rs256_verify(EVP_PKEY* key, std::string_view input, std::string_view signature);

}  // namespace fake_target
