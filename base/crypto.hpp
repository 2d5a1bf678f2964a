// Small cryptographic building blocks over OpenSSL 3: owning pointers, the error-queue guard,
// randomness, base64 and hex, SHA-256 and ECDSA signatures in the raw r||s form JOSE uses
// (IEEE P1363). JOSE itself (JWS, JWK) is in base/jose.hpp.
//
// Nothing here throws on an OpenSSL failure: functions return nullopt, false, an empty string
// or a null pointer, as each documents. Only non-deprecated OpenSSL 3 APIs are used.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

namespace netherscope::base {

// -- the error queue --

/// Drops whatever OpenSSL pushes onto this thread's error queue while it lives. Our functions
/// report failures by return value, and entries left behind would confuse a later
/// SSL_get_error on a TLS stream that shares the thread. Put one at the top of every function
/// that calls OpenSSL.
class error_queue_mark {
public:
  /// Sets a mark on the thread's error queue.
  error_queue_mark() noexcept { ERR_set_mark(); }
  /// Pops every error pushed since the mark, and the mark.
  ~error_queue_mark() { ERR_pop_to_mark(); }
  error_queue_mark(const error_queue_mark&) = delete;
  error_queue_mark& operator=(const error_queue_mark&) = delete;
};

// -- owning pointers for OpenSSL objects --

/// Frees memory OpenSSL allocated for us (OPENSSL_free).
struct openssl_free {
  void operator()(void* p) const noexcept { OPENSSL_free(p); }
};

/// Frees an EVP_PKEY.
struct evp_pkey_deleter {
  void operator()(EVP_PKEY* p) const noexcept { EVP_PKEY_free(p); }
};

/// An owned EVP_PKEY.
using pkey_ptr = std::unique_ptr<EVP_PKEY, evp_pkey_deleter>;

/// Frees an X509 certificate.
struct x509_deleter {
  void operator()(X509* p) const noexcept { X509_free(p); }
};

/// An owned X509 certificate.
using x509_ptr = std::unique_ptr<X509, x509_deleter>;

/// Frees an EVP_MD_CTX.
struct evp_md_ctx_deleter {
  void operator()(EVP_MD_CTX* p) const noexcept { EVP_MD_CTX_free(p); }
};

/// An owned digest (or digest-sign) context.
using md_ctx_ptr = std::unique_ptr<EVP_MD_CTX, evp_md_ctx_deleter>;

/// Frees an EVP_PKEY_CTX.
struct evp_pkey_ctx_deleter {
  void operator()(EVP_PKEY_CTX* p) const noexcept { EVP_PKEY_CTX_free(p); }
};

/// An owned key context.
using pkey_ctx_ptr = std::unique_ptr<EVP_PKEY_CTX, evp_pkey_ctx_deleter>;

/// Frees an ECDSA_SIG.
struct ecdsa_sig_deleter {
  void operator()(ECDSA_SIG* p) const noexcept { ECDSA_SIG_free(p); }
};

/// An owned ECDSA signature (r, s).
using ecdsa_sig_ptr = std::unique_ptr<ECDSA_SIG, ecdsa_sig_deleter>;

/// Frees a BIGNUM.
struct bignum_deleter {
  void operator()(BIGNUM* p) const noexcept { BN_free(p); }
};

/// An owned BIGNUM.
using bignum_ptr = std::unique_ptr<BIGNUM, bignum_deleter>;

/// Frees a PKCS8_PRIV_KEY_INFO.
struct pkcs8_deleter {
  void operator()(PKCS8_PRIV_KEY_INFO* p) const noexcept { PKCS8_PRIV_KEY_INFO_free(p); }
};

/// An owned PKCS#8 PrivateKeyInfo.
using pkcs8_ptr = std::unique_ptr<PKCS8_PRIV_KEY_INFO, pkcs8_deleter>;

// -- randomness, encodings, digests --

/// n bytes from OpenSSL's CSPRNG (RAND_bytes), or nullopt when it fails.
std::optional<std::string> random_bytes(std::size_t n);

/// Standard base64 (RFC 4648 §4) with "=" padding, by EVP_EncodeBlock.
std::string base64_encode(std::string_view data);

/// Decodes padded standard base64 (EVP_DecodeBlock, made strict); nullopt on a bad length,
/// character, padding or non-zero trailing bits. Whitespace is not accepted.
std::optional<std::string> base64_decode(std::string_view text);

/// URL-safe base64 (RFC 4648 §5) without padding, as JOSE writes it.
std::string base64url_encode(std::string_view data);

/// Decodes URL-safe base64 with or without "=" padding; nullopt when malformed (as
/// base64_decode).
std::optional<std::string> base64url_decode(std::string_view text);

/// Compares two secrets in time independent of where they differ; two empty ones differ.
bool same_secret(std::string_view a, std::string_view b);

/// The raw 32-byte SHA-256 of data; empty only if OpenSSL fails.
std::string sha256(std::string_view data);

/// The raw 20-byte HMAC-SHA1 of data under key (RFC 2104, EVP_Q_mac), as STUN's
/// MESSAGE-INTEGRITY needs it; empty only if OpenSSL fails.
std::string hmac_sha1(std::string_view key, std::string_view data);

/// The raw 32-byte HMAC-SHA256 of data under key (RFC 2104, EVP_Q_mac), as webhook signatures
/// need it; empty only if OpenSSL fails.
std::string hmac_sha256(std::string_view key, std::string_view data);

/// Uppercase hex bytes joined by colons ("AB:CD:01"), as SDP fingerprints are written
/// (OPENSSL_buf2hexstr); empty for no bytes, or if OpenSSL fails.
std::string hex_colon(std::string_view raw);

// -- keys --

/// The elliptic curves this service signs with.
enum class ec_curve {
  /// NIST P-256 (secp256r1), signed with SHA-256 (ES256).
  p256,
  /// NIST P-384 (secp384r1), signed with SHA-384 (ES384).
  p384,
};

/// A fresh EC key on the curve, from EVP_PKEY_Q_keygen; null when OpenSSL fails.
pkey_ptr generate_ec_key(ec_curve curve);

/// The curve of an EC key, or nullopt when the key is not EC on P-256 or P-384.
std::optional<ec_curve> key_curve(const EVP_PKEY& key);

/// The DER SubjectPublicKeyInfo of a key's public half, or nullopt on failure.
std::optional<std::string> public_key_der(const EVP_PKEY& key);

/// Parses a DER SubjectPublicKeyInfo (all of text, nothing after it); null when malformed.
pkey_ptr public_key_from_der(std::string_view der);

/// The PKCS#8 (PrivateKeyInfo) DER of a private key, or nullopt on failure.
std::optional<std::string> private_key_der(const EVP_PKEY& key);

/// Parses an unencrypted PKCS#8 PrivateKeyInfo DER (all of der); null when malformed.
pkey_ptr private_key_from_der(std::string_view der);

/// The public point of a P-256 or P-384 key as big-endian x and y, each padded to the field
/// width (32 or 48 bytes); nullopt for other keys.
std::optional<std::pair<std::string, std::string>> ec_public_xy(const EVP_PKEY& key);

/// A public key from its affine coordinates (each exactly the field width); null when the
/// lengths are wrong or the point is not on the curve.
pkey_ptr ec_public_from_xy(ec_curve curve, std::string_view x, std::string_view y);

// -- ECDSA in the P1363 form --

/// Signs data with an EC key (SHA-384 for P-384, SHA-256 for P-256) and returns the raw
/// fixed-width r||s (96 or 64 bytes); nullopt for other keys or on failure.
std::optional<std::string> ecdsa_sign_p1363(EVP_PKEY& key, std::string_view data);

/// Whether sig is a valid raw r||s signature of data under key (the digest chosen as in
/// ecdsa_sign_p1363); false for a wrong length, another key type or any failure.
bool ecdsa_verify_p1363(EVP_PKEY& key, std::string_view data, std::string_view sig);

} // namespace netherscope::base
