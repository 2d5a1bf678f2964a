// Test support: the public JWK of a key, as the Xbox services and a NetherNet identity carry
// one. The service only reads JWKs (base::key_from_jwk); tests and fuzzers write them to hand
// it keys of their own.
#pragma once

#include <optional>

#include <boost/json/object.hpp>
#include <openssl/evp.h>

#include "base/crypto.hpp"

namespace netherscope::test {

/// The public JWK of a P-256 or P-384 key, members in sorted order:
/// {"crv":"P-384","kty":"EC","x":"<base64url>","y":"<base64url>"}; nullopt for other keys.
inline std::optional<boost::json::object> ec_public_jwk(const EVP_PKEY& key) {
  auto curve = base::key_curve(key);
  auto xy = base::ec_public_xy(key);
  if (!curve || !xy)
    return std::nullopt;
  boost::json::object jwk;
  jwk["crv"] = *curve == base::ec_curve::p384 ? "P-384" : "P-256";
  jwk["kty"] = "EC";
  jwk["x"] = base::base64url_encode(xy->first);
  jwk["y"] = base::base64url_encode(xy->second);
  return jwk;
}

} // namespace netherscope::test
