#include "net/nethernet/identity_check.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include <boost/algorithm/string/predicate.hpp>
#include <boost/json.hpp>

#include "base/crypto.hpp"
#include "base/jose.hpp"
#include "base/json_access.hpp"
#include "base/text.hpp"
#include "net/nethernet/identity.hpp"
#include "net/nethernet/sdp_answer.hpp"

namespace netherscope::net::nethernet {

namespace json = boost::json;

namespace {

/// The only algorithm of the self-signed shape, for the token and the fingerprints alike.
constexpr base::jws_alg identity_alg = base::jws_alg::es384;





// A NumericDate (RFC 7519 §2) in whole seconds, or nullopt when v is not a number. Boost.JSON
// keeps an integer as uint64 only when it is above every int64, and a double may be fractional
// or huge; both are brought into int64 so that comparisons with now stay exact.
std::optional<std::int64_t> numeric_date(const json::value& v) {
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  constexpr auto min = std::numeric_limits<std::int64_t>::min();
  if (const auto* i = v.if_int64())
    return *i;
  if (v.if_uint64())
    return max;
  if (const auto* d = v.if_double()) {
    if (!(*d < 9223372036854775808.0)) // 2^63, exactly representable
      return max;
    if (*d < -9223372036854775808.0)
      return min;
    return static_cast<std::int64_t>(std::floor(*d));
  }
  return std::nullopt;
}

void fail(identity_check& out, identity_error code, std::string error) {
  out.verified = false;
  out.code = code;
  out.error = std::move(error);
}

// The P-384 key a cpk claim names, or null with out failed.
base::pkey_ptr key_from_cpk(const json::value& cpk, identity_check& out) {
  if (const auto* jwk = cpk.if_object()) {
    auto key = base::key_from_jwk(*jwk);
    if (!key || base::key_curve(*key) != base::ec_curve::p384) {
      fail(out, identity_error::bad_cpk, "The cpk JWK is not an EC P-384 public key.");
      return nullptr;
    }
    return key;
  }
  if (const auto* text = cpk.if_string()) {
    auto der = base::base64_decode(base::view(*text));
    auto key = der ? base::public_key_from_der(*der) : nullptr;
    if (!key) {
      fail(out, identity_error::bad_cpk, "The cpk string is not a base64 DER public key.");
      return nullptr;
    }
    if (base::key_curve(*key) != base::ec_curve::p384) {
      fail(out, identity_error::bad_cpk, "The cpk key is not an EC P-384 key.");
      return nullptr;
    }
    return key;
  }
  fail(out, identity_error::bad_cpk, "The cpk claim is neither a JWK object nor a string.");
  return nullptr;
}

// The token: a compact ES384 JWS signed by the key in its own cpk claim. Returns that key, or
// null with out failed; sets key_sha256, issued_at and expires_at once the signature verifies.
base::pkey_ptr check_token(std::string_view token_text, std::int64_t now, identity_check& out) {
  base::jose_error error = base::jose_error::none;
  auto token = base::decode_jws(token_text, &error);
  if (!token) {
    if (error == base::jose_error::unsupported_alg)
      fail(out, identity_error::unsupported_alg, "The token alg is not ES384.");
    else
      fail(out, identity_error::bad_token, "The token is not a compact JWS with a JSON header.");
    return nullptr;
  }
  if (token->alg != identity_alg) {
    fail(out, identity_error::unsupported_alg, "The token alg is not ES384.");
    return nullptr;
  }
  auto claims = base::parse_object(token->payload);
  if (!claims) {
    fail(out, identity_error::bad_token, "The token claims are not a JSON object.");
    return nullptr;
  }
  const auto* cpk = claims->if_contains("cpk");
  if (!cpk) {
    fail(out, identity_error::bad_cpk, "The token has no cpk claim.");
    return nullptr;
  }
  auto key = key_from_cpk(*cpk, out);
  if (!key)
    return nullptr;
  if (const auto* x5u = token->header.if_contains("x5u")) {
    // In this shape x5u is not a URL but the key itself, as base64 DER (PROTOCOL.md §4.3).
    // The usual shape writes both as the same base64 DER, which then names the same key
    // without decoding it a second time.
    const auto* text = x5u->if_string();
    const auto* cpk_text = cpk->if_string();
    bool same_text = text != nullptr && cpk_text != nullptr && *text == *cpk_text;
    auto der = text && !same_text ? base::base64_decode(base::view(*text)) : std::nullopt;
    auto named = der ? base::public_key_from_der(*der) : nullptr;
    if (!same_text && (!named || EVP_PKEY_eq(named.get(), key.get()) != 1)) {
      fail(out, identity_error::x5u_mismatch, "The token x5u does not name the cpk key.");
      return nullptr;
    }
  }
  if (base::verify_jws(*token, *key) != base::jose_error::none) {
    fail(out, identity_error::token_signature, "The token signature does not verify with cpk.");
    return nullptr;
  }

  // The key signed its own token: from here on it is worth reporting, even if a check fails.
  if (auto der = base::public_key_der(*key))
    out.key_sha256 = base::hex_lower(base::sha256(*der));
  for (auto [name, field] : {std::pair{"iat", &out.issued_at}, std::pair{"exp", &out.expires_at}}) {
    if (const auto* date = claims->if_contains(name)) {
      *field = numeric_date(*date);
      if (!*field) {
        fail(out, identity_error::bad_time, "The token " + std::string{name} + " is not a number.");
        return nullptr;
      }
    }
  }
  if (out.expires_at && *out.expires_at < now) {
    fail(out, identity_error::expired, "The token has expired.");
    return nullptr;
  }
  return key;
}

void check_value(std::string_view value, const std::vector<std::string>& digests,
                 std::int64_t now, identity_check& out) {
  if (digests.empty())
    return fail(out, identity_error::no_fingerprints, "There are no fingerprints to check.");
  auto decoded = base::base64_decode(value);
  if (!decoded)
    return fail(out, identity_error::not_base64, "The identity is not valid base64.");
  auto outer = base::parse_object(*decoded);
  if (!outer)
    return fail(out, identity_error::not_json, "The identity is not a JSON object.");

  const auto* idp = base::object_at(*outer, "idp");
  const auto* protocol = idp ? base::string_at(*idp, "protocol") : nullptr;
  if (!protocol || base::view(*protocol) != "default" || !base::string_at(*idp, "domain"))
    return fail(out, identity_error::bad_idp,
                "The idp is not an object with protocol \"default\" and a string domain.");

  const auto* assertion_text = base::string_at(*outer, "assertion");
  auto assertion = assertion_text ? base::parse_object(base::view(*assertion_text)) : std::nullopt;
  const auto* token = assertion ? base::string_at(*assertion, "token") : nullptr;
  const auto* fingerprints = assertion ? base::string_at(*assertion, "fingerprints") : nullptr;
  if (!token || !fingerprints)
    return fail(out, identity_error::bad_assertion,
                "The assertion is not a JSON string of an object with token and fingerprints.");

  auto key = check_token(base::view(*token), now, out);
  if (!key)
    return;

  base::jose_error error = base::jose_error::none;
  auto detached =
    base::decode_jws_detached(base::view(*fingerprints), canonical_fingerprint_payload(digests), &error);
  if (!detached || detached->alg != identity_alg)
    return fail(out, identity_error::bad_fingerprints,
                "The fingerprints value is not a detached ES384 JWS.");
  if (base::verify_jws(*detached, *key) != base::jose_error::none)
    return fail(out, identity_error::fingerprint_signature,
                "The fingerprints signature does not match the digests.");
  out.verified = true;
}

} // namespace

std::string_view to_string(identity_error code) {
  switch (code) {
    case identity_error::none: return "none";
    case identity_error::absent: return "absent";
    case identity_error::duplicate: return "duplicate";
    case identity_error::no_fingerprints: return "no_fingerprints";
    case identity_error::unsupported_fingerprint: return "unsupported_fingerprint";
    case identity_error::not_base64: return "not_base64";
    case identity_error::not_json: return "not_json";
    case identity_error::bad_idp: return "bad_idp";
    case identity_error::bad_assertion: return "bad_assertion";
    case identity_error::bad_token: return "bad_token";
    case identity_error::unsupported_alg: return "unsupported_alg";
    case identity_error::bad_cpk: return "bad_cpk";
    case identity_error::x5u_mismatch: return "x5u_mismatch";
    case identity_error::token_signature: return "token_signature";
    case identity_error::bad_time: return "bad_time";
    case identity_error::expired: return "expired";
    case identity_error::bad_fingerprints: return "bad_fingerprints";
    case identity_error::fingerprint_signature: return "fingerprint_signature";
  }
  return "none";
}

identity_check verify_identity_attribute(std::string_view value,
                                         const std::vector<std::string>& sha256_digests,
                                         std::int64_t now_unix) {
  base::error_queue_mark mark;
  identity_check out;
  out.present = true;
  check_value(value, sha256_digests, now_unix, out);
  return out;
}

identity_check verify_sdp_identity(std::string_view sdp, std::int64_t now_unix) {
  constexpr std::string_view identity_prefix = "a=identity:";
  constexpr std::string_view fingerprint_prefix = "a=fingerprint:";
  identity_check out;
  std::optional<std::string_view> value;
  std::size_t identities = 0;
  std::vector<std::string> digests;
  bool other_hash = false;
  for (auto line : sdp_lines(sdp)) {
    if (boost::algorithm::starts_with(line, identity_prefix)) {
      ++identities;
      value = line.substr(identity_prefix.size());
    } else if (boost::algorithm::starts_with(line, fingerprint_prefix)) {
      // "a=fingerprint:" hash-func SP fingerprint (RFC 8122 §5); hash names are
      // case-insensitive.
      auto fields = base::split_tokens(line.substr(fingerprint_prefix.size()), " ");
      if (fields.size() == 2 && base::iequals(fields[0], "sha-256"))
        digests.emplace_back(fields[1]);
      else
        other_hash = true;
    }
  }
  if (identities == 0) {
    fail(out, identity_error::absent, "The SDP has no a=identity line.");
    return out;
  }
  if (identities > 1) {
    out.present = true;
    fail(out, identity_error::duplicate, "The SDP has more than one a=identity line.");
    return out;
  }
  if (other_hash) {
    out.present = true;
    fail(out, identity_error::unsupported_fingerprint,
         "An a=fingerprint line is not \"sha-256 <digest>\".");
    return out;
  }
  return verify_identity_attribute(*value, digests, now_unix);
}

} // namespace netherscope::net::nethernet
