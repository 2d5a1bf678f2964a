// The Minecraft services' issuer as an online-mode server knows it (PROTOCOL.md §2.3): the
// `iss` a GameServerToken must carry and the RSA keys of its JWKS by kid, read from the
// issuer's OpenID configuration and key set. Pure: fetching them is issuer_fetch's job.
#pragma once

#include "crypto.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fake_target {

/// What verifies a GameServerToken: the issuers its `iss` may name and the keys by kid.
struct issuer_keys {
  /// --xbox-issuer with a trailing "/", and the OpenID configuration's "issuer" when it differs.
  std::vector<std::string> issuers;
  /// The JWKS's RSA keys by kid.
  std::map<std::string, pkey_ptr, std::less<>> by_kid;
};

/// The parts of an absolute http URL on a loopback address that a request needs.
struct loopback_url {
  std::string host;  ///< the address, without brackets
  std::uint16_t port = 80;
  std::string target;  ///< path and query, "/" when empty
};

/// Reads an http URL whose host is a loopback IP literal (127.0.0.0/8 or [::1]); nullopt for
/// anything else (https, a name, another address, userinfo, a fragment).
std::optional<loopback_url> parse_loopback_url(std::string_view url);

/// The OpenID configuration's "issuer" and "jwks_uri"; nullopt with `error` set when the body
/// is not a JSON object with a string jwks_uri.
struct openid_configuration {
  std::string issuer;
  std::string jwks_uri;
};
std::optional<openid_configuration> read_openid_configuration(std::string_view body, std::string& error);

/// The RSA keys of a JWKS body by kid ({"keys":[{"kty":"RSA","kid":…,"n":…,"e":…}, …]}); keys
/// of another kty, without a kid or whose n and e do not make a key are skipped. nullopt with
/// `error` set when the body is not a JSON object with a "keys" array.
std::optional<std::map<std::string, pkey_ptr, std::less<>>> read_jwks(std::string_view body, std::string& error);

}  // namespace fake_target
