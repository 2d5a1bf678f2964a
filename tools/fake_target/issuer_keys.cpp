// Reading the issuer's OpenID configuration and JWKS, and the loopback URLs they name.
#include "issuer_keys.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/json.hpp>
#include <boost/url/parse.hpp>

namespace fake_target {

namespace json = boost::json;

namespace {

const json::string* jwk_member(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value ? value->if_string() : nullptr;
}

std::optional<json::object> parse_json_object(std::string_view body, std::string& error, const char* what) {
  boost::system::error_code ec;
  auto value = json::parse(body, ec);
  if (ec || !value.is_object()) {
    error = std::string(what) + " is not a JSON object";
    return std::nullopt;
  }
  return std::move(value.as_object());
}

}  // namespace

std::optional<loopback_url> parse_loopback_url(std::string_view text) {
  const auto parsed = boost::urls::parse_absolute_uri(text);
  if (!parsed || parsed->scheme() != "http" || parsed->has_userinfo() || parsed->has_fragment()) return std::nullopt;
  std::string host(parsed->encoded_host_address());
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(host, ec);
  if (ec || !address.is_loopback()) return std::nullopt;
  loopback_url url;
  url.host = host;
  if (parsed->has_port()) {
    if (parsed->port_number() == 0) return std::nullopt;
    url.port = parsed->port_number();
  }
  url.target = std::string(parsed->encoded_target());
  if (url.target.empty() || url.target.front() != '/') url.target.insert(0, "/");
  return url;
}

std::optional<openid_configuration> read_openid_configuration(std::string_view body, std::string& error) {
  const auto object = parse_json_object(body, error, "the OpenID configuration");
  if (!object) return std::nullopt;
  const auto* jwks_uri = jwk_member(*object, "jwks_uri");
  if (!jwks_uri) {
    error = "the OpenID configuration has no jwks_uri";
    return std::nullopt;
  }
  openid_configuration out;
  out.jwks_uri = std::string(*jwks_uri);
  if (const auto* issuer = jwk_member(*object, "issuer")) out.issuer = std::string(*issuer);
  return out;
}

std::optional<std::map<std::string, pkey_ptr, std::less<>>> read_jwks(std::string_view body, std::string& error) {
  const auto object = parse_json_object(body, error, "the JWKS");
  if (!object) return std::nullopt;
  const auto* keys = object->if_contains("keys");
  if (!keys || !keys->is_array()) {
    error = "the JWKS has no keys array";
    return std::nullopt;
  }
  std::map<std::string, pkey_ptr, std::less<>> out;
  for (const auto& entry : keys->get_array()) {
    const auto* jwk = entry.if_object();
    if (!jwk) continue;
    const auto* kty = jwk_member(*jwk, "kty");
    const auto* kid = jwk_member(*jwk, "kid");
    const auto* n = jwk_member(*jwk, "n");
    const auto* e = jwk_member(*jwk, "e");
    if (!kty || *kty != "RSA" || !kid || !n || !e) continue;
    const auto modulus = base64_decode(*n, true);
    const auto exponent = base64_decode(*e, true);
    if (!modulus || !exponent) continue;
    if (auto key = rsa_public_key(*modulus, *exponent)) out[std::string(*kid)] = std::move(key);
  }
  return out;
}

}  // namespace fake_target
