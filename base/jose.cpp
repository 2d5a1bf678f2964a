#include "base/jose.hpp"

#include <utility>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "base/json_access.hpp"
#include "base/text.hpp"

namespace netherscope::base {

namespace json = boost::json;

namespace {




template <class T>
std::optional<T> refuse(jose_error* out, jose_error error) {
  if (out)
    *out = error;
  return std::nullopt;
}

// Whether header names exactly the algorithm of key; signing refuses anything else so that a
// caller cannot produce a JWS its own verifier would refuse.
bool header_fits_key(const json::object& header, const EVP_PKEY& key) {
  auto alg = jws_alg_for(key);
  const auto* name = string_at(header, "alg");
  return alg && name && jws_alg_from_name(view(*name)) == alg;
}

// Decodes the three parts; payload_b64 is the middle part as it will be signed.
std::optional<jws> decode_parts(std::string_view header_b64, std::string_view payload_b64,
                                std::string payload, std::string_view signature_b64,
                                jose_error* error) {
  if (header_b64.empty() || signature_b64.empty())
    return refuse<jws>(error, jose_error::malformed);
  auto header_json = base64url_decode(header_b64);
  auto header = header_json ? parse_object(*header_json) : std::nullopt;
  auto signature = base64url_decode(signature_b64);
  if (!header || !signature)
    return refuse<jws>(error, jose_error::malformed);
  const auto* name = string_at(*header, "alg");
  if (!name)
    return refuse<jws>(error, jose_error::malformed);
  auto alg = jws_alg_from_name(view(*name));
  if (!alg)
    return refuse<jws>(error, jose_error::unsupported_alg);
  if (header->contains("crit"))
    return refuse<jws>(error, jose_error::unsupported_crit);
  jws out;
  out.header = std::move(*header);
  out.alg = *alg;
  out.payload = std::move(payload);
  out.signature = std::move(*signature);
  out.signing_input.reserve(header_b64.size() + 1 + payload_b64.size());
  out.signing_input.append(header_b64).append(".").append(payload_b64);
  if (error)
    *error = jose_error::none;
  return out;
}

} // namespace

std::string_view describe(jose_error error) {
  switch (error) {
    case jose_error::none:
      return "The JWS verifies.";
    case jose_error::malformed:
      return "The JWS is not three base64url parts with a JSON header naming its alg.";
    case jose_error::unsupported_alg:
      return "The JWS alg is not ES256 or ES384.";
    case jose_error::unsupported_crit:
      return "The JWS header lists critical extensions we do not implement.";
    case jose_error::alg_mismatch:
      return "The JWS alg does not go with the key.";
    case jose_error::bad_key:
      return "The key is not an EC P-256 or P-384 public key.";
    case jose_error::bad_signature:
      return "The JWS signature does not verify.";
  }
  return "Unknown JOSE error.";
}

std::string_view jws_alg_name(jws_alg alg) {
  return alg == jws_alg::es384 ? "ES384" : "ES256";
}

std::optional<jws_alg> jws_alg_from_name(std::string_view name) {
  // Algorithm names are case-sensitive (RFC 7515 §4.1.1).
  if (name == "ES256")
    return jws_alg::es256;
  if (name == "ES384")
    return jws_alg::es384;
  return std::nullopt;
}

std::optional<jws_alg> jws_alg_for(const EVP_PKEY& key) {
  auto curve = key_curve(key);
  if (!curve)
    return std::nullopt;
  return *curve == ec_curve::p384 ? jws_alg::es384 : jws_alg::es256;
}

std::optional<std::string> sign_jws(EVP_PKEY& key, const json::object& header,
                                    std::string_view payload) {
  if (!header_fits_key(header, key))
    return std::nullopt;
  auto input = base64url_encode(json::serialize(header)) + "." + base64url_encode(payload);
  auto sig = ecdsa_sign_p1363(key, input);
  if (!sig)
    return std::nullopt;
  return input + "." + base64url_encode(*sig);
}

std::optional<std::string> sign_jws_detached(EVP_PKEY& key, const json::object& header,
                                             std::string_view payload) {
  auto compact = sign_jws(key, header, payload);
  if (!compact)
    return std::nullopt;
  // Leave the middle part out; the signature still covers it (RFC 7515 Appendix F).
  auto first = compact->find('.');
  auto last = compact->rfind('.');
  return compact->substr(0, first + 1) + compact->substr(last);
}

std::optional<jws> decode_jws(std::string_view compact, jose_error* error) {
  auto parts = split(compact, '.');
  if (parts.size() != 3)
    return refuse<jws>(error, jose_error::malformed);
  auto payload = base64url_decode(parts[1]);
  if (!payload)
    return refuse<jws>(error, jose_error::malformed);
  return decode_parts(parts[0], parts[1], std::move(*payload), parts[2], error);
}

std::optional<jws> decode_jws_detached(std::string_view compact, std::string_view payload,
                                       jose_error* error) {
  auto parts = split(compact, '.');
  if (parts.size() != 3 || !parts[1].empty())
    return refuse<jws>(error, jose_error::malformed);
  return decode_parts(parts[0], base64url_encode(payload), std::string{payload}, parts[2],
                      error);
}

jose_error verify_jws(const jws& token, EVP_PKEY& key) {
  auto alg = jws_alg_for(key);
  if (!alg)
    return jose_error::bad_key;
  if (*alg != token.alg)
    return jose_error::alg_mismatch;
  // ecdsa_verify_p1363 hashes with the curve's own digest, which is the algorithm's.
  if (!ecdsa_verify_p1363(key, token.signing_input, token.signature))
    return jose_error::bad_signature;
  return jose_error::none;
}

pkey_ptr key_from_jwk(const json::object& jwk, jose_error* error) {
  auto bad = [error]() -> pkey_ptr {
    if (error)
      *error = jose_error::bad_key;
    return nullptr;
  };
  const auto* kty = string_at(jwk, "kty");
  const auto* crv = string_at(jwk, "crv");
  const auto* x = string_at(jwk, "x");
  const auto* y = string_at(jwk, "y");
  if (!kty || view(*kty) != "EC" || !crv || !x || !y)
    return bad();
  ec_curve curve;
  if (view(*crv) == "P-256")
    curve = ec_curve::p256;
  else if (view(*crv) == "P-384")
    curve = ec_curve::p384;
  else
    return bad();
  auto xs = base64url_decode(view(*x));
  auto ys = base64url_decode(view(*y));
  // ec_public_from_xy checks the widths and that the point is on the curve.
  auto key = xs && ys ? ec_public_from_xy(curve, *xs, *ys) : nullptr;
  if (!key)
    return bad();
  if (error)
    *error = jose_error::none;
  return key;
}

} // namespace netherscope::base
