// Proof of possession on Xbox requests: a P-256 key made when the account is linked, whose
// public half the device token request sends as a JWK (ProofKey), and which signs the device,
// SISU and XSTS requests in the `Signature` header (docs/XBOX.md §3.1):
//
//   SHA-256 over  00 00 00 01 00 | FILETIME (8 bytes BE) 00 | method 00 | path?query 00 |
//                 Authorization 00 | body 00
//   header = base64( 00 00 00 01 | FILETIME (8 bytes BE) | r||s (64 bytes) )
//
// where FILETIME counts 100-ns ticks since 1601-01-01 UTC.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "base/crypto.hpp"
#include "net/xbox/wire.hpp"

namespace netherscope::net::xbox {

/// The signature policy version every auth request uses.
constexpr std::uint32_t signature_policy_version = 1;

/// A Unix time in milliseconds as a Windows FILETIME: 100-ns ticks since 1601-01-01 UTC.
std::int64_t windows_filetime(std::int64_t unix_ms);

/// The bytes whose SHA-256 the signature signs (the layout above).
std::string signature_input(std::int64_t filetime, std::string_view method,
                            std::string_view path_and_query, std::string_view authorization,
                            std::string_view body);

/// The Signature header's value for a request, signed with a P-256 key; nullopt when the key
/// is not P-256 or signing fails.
std::optional<std::string> signature_header(EVP_PKEY& key, std::int64_t filetime,
                                            std::string_view method,
                                            std::string_view path_and_query,
                                            std::string_view authorization,
                                            std::string_view body);

/// Adds the Signature header to call, signed at unix_ms over its method, its URL's path and
/// query, its Authorization header and its body; false when signing fails.
bool sign_call(http_call& call, EVP_PKEY& key, std::int64_t unix_ms);

/// The ProofKey JWK of a P-256 key: {"kty":"EC","alg":"ES256","crv":"P-256","use":"sig",
/// "x":…,"y":…} with 32-byte coordinates; nullopt for other keys.
std::optional<boost::json::object> proof_key(const EVP_PKEY& key);

/// A fresh random (version 4) UUID in lower case with dashes, for the device id; empty only if
/// the random generator fails.
std::string make_device_id();

} // namespace netherscope::net::xbox
