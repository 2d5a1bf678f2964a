// Who we are to a NetherNet target: our DTLS certificate (whose fingerprint goes into the
// offer) and our long-lived P-384 identity key, which signs the session-level a=identity
// attribute as PROTOCOL.md §2.3 describes, in the self-signed shape servers put in answers.
// The JOSE underneath is base/jose; checking someone else's a=identity is identity_check.
//
// Nothing here throws except std::bad_alloc: failures come back as nullopt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/crypto.hpp"

namespace netherscope::net::nethernet {

// -- our identity --

/// Our DTLS certificate and key and our identity key, as one value.
struct local_identity {
  /// ECDSA P-256 key of the DTLS certificate.
  base::pkey_ptr dtls_key;
  /// Self-signed certificate (CN netherscope, random serial, valid from a day ago for a
  /// year); WebRTC only requires that it match the fingerprint in the offer.
  base::x509_ptr dtls_cert;
  /// ECDSA P-384 key that signs the a=identity attribute.
  base::pkey_ptr identity_key;
  /// SHA-256 of the certificate's DER as "AB:CD:...", the value of a=fingerprint:sha-256.
  std::string fingerprint;
};

/// SHA-256 over a certificate's DER as "AB:CD:...", as a=fingerprint:sha-256 writes it; nullopt
/// when OpenSSL fails.
std::optional<std::string> certificate_fingerprint(const X509& cert);

/// Makes a fresh identity: new keys and a new certificate; nullopt when OpenSSL fails.
std::optional<local_identity> make_local_identity();

/// The persisted form of a local_identity: PKCS#8 DER for the keys, DER for the certificate.
struct identity_blob {
  /// PKCS#8 PrivateKeyInfo DER of the P-256 DTLS key.
  std::string dtls_key_der;
  /// DER of the self-signed DTLS certificate.
  std::string dtls_cert_der;
  /// PKCS#8 PrivateKeyInfo DER of the P-384 identity key.
  std::string identity_key_der;
};

/// Encodes an identity for storage; fields are left empty when a part is missing or cannot be
/// encoded, which from_blob then refuses.
identity_blob to_blob(const local_identity& id);

/// Serializes an identity blob for the store: a version byte, then three length-prefixed
/// (u32 LE) fields.
std::string encode_identity(const identity_blob& blob);

/// The inverse of encode_identity; nullopt for an unknown version or a truncated record.
std::optional<identity_blob> decode_identity(std::string_view record);

/// Whether the DTLS certificate's notAfter lies before unix_time (or cannot be read).
bool certificate_expires_before(const local_identity& id, std::int64_t unix_time);

/// Decodes a stored identity, checking that the DTLS key is P-256 and signed the certificate
/// it matches and that the identity key is P-384; recomputes the fingerprint.
std::optional<local_identity> from_blob(const identity_blob& blob);

// -- the a=identity attribute --

/// The canonical payload the fingerprints JWS signs:
/// {"fingerprint":[{"algorithm":"sha-256","digest":"<digest>"},...]} in the given order, keys
/// sorted, no whitespace.
std::string canonical_fingerprint_payload(const std::vector<std::string>& sha256_digests);

/// The value after "a=identity:" for an SDP whose a=fingerprint:sha-256 digests ("AB:CD:...")
/// are sha256_digests, in their SDP order: standard base64 of
/// {"assertion":"{\"fingerprints\":\"<detached JWS>\",\"token\":\"<JWT>\"}",
///  "idp":{"domain":"self","protocol":"default"}}, where the JWT is a self-signed ES384 token
/// with header alg and x5u and claims cpk, exp (now_unix + 60) and iat (now_unix). Both x5u and
/// cpk are the standard base64 of the key's DER SubjectPublicKeyInfo: strict servers (Pumpkin)
/// require cpk in that form, and go-nethernet writes and reads it so (PROTOCOL.md §2.3).
/// nullopt when the key is not P-384, the digest list is empty, or signing fails.
std::optional<std::string> make_identity_attribute(EVP_PKEY& identity_key,
                                                   const std::vector<std::string>& sha256_digests,
                                                   std::int64_t now_unix);

/// A signed-in player's proof for the attribute: the GameServerToken the Minecraft services
/// minted for our identity key (its cpk names that key), and their issuer, which servers take
/// from idp.domain to find the keys that verify it (docs/XBOX.md §5.1).
struct signed_in_identity {
  /// The RS256 GameServerToken; never logged.
  std::string game_server_token;
  /// The services' issuer URL, with its trailing slash.
  std::string idp_domain;
};

/// The value after "a=identity:" for a signed-in offer: the same envelope as
/// make_identity_attribute's, with the GameServerToken as the assertion's token and the issuer
/// as idp.domain; the fingerprints JWS is signed with identity_key, the key the token names.
/// nullopt when the key is not P-384, the digest list, the token or the domain is empty, or
/// signing fails.
std::optional<std::string> make_signed_in_identity_attribute(
  EVP_PKEY& identity_key, const std::vector<std::string>& sha256_digests,
  const signed_in_identity& signed_in);

} // namespace netherscope::net::nethernet
