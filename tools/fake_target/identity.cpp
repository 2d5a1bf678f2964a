// Identity assertions (PROTOCOL.md §2.3). The JSON layers are decoded one at a time so that
// each refusal can say which layer was wrong.
#include "identity.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace fake_target {

namespace json = boost::json;

namespace {

// The protected header every fingerprints JWS uses: {"alg":"ES384"}.
const std::string fingerprints_header = base64_encode(R"({"alg":"ES384"})", true);

identity_problem malformed(std::string detail) {
  return {identity_failure::malformed, std::move(detail)};
}

std::vector<std::string_view> split_dots(std::string_view text) {
  std::vector<std::string_view> parts;
  for (;;) {
    const auto dot = text.find('.');
    parts.push_back(text.substr(0, dot));
    if (dot == std::string_view::npos) return parts;
    text.remove_prefix(dot + 1);
  }
}

// Parses text as JSON and insists on an object; anything else is a malformed layer.
std::optional<json::object> parse_object(std::string_view text) {
  boost::system::error_code ec;
  auto value = json::parse(text, ec);
  if (ec || !value.is_object()) return std::nullopt;
  return std::move(value.as_object());
}

std::optional<json::object> decode_json_part(std::string_view part) {
  const auto decoded = base64_decode(part, true);
  if (!decoded) return std::nullopt;
  return parse_object(*decoded);
}

const json::string* string_member(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value ? value->if_string() : nullptr;
}

bool header_says_es384(const json::object& header) {
  const auto* alg = string_member(header, "alg");
  return alg && *alg == "ES384";
}

// cpk has been seen both as a JWK object and as base64 DER (PROTOCOL §2.3); accept either.
pkey_ptr key_from_cpk(const json::value& cpk) {
  if (const auto* der = cpk.if_string()) {
    const auto bytes = base64_decode(*der, false);
    return bytes ? p384_key_from_der(*bytes) : nullptr;
  }
  const auto* jwk = cpk.if_object();
  if (!jwk) return nullptr;
  const auto* kty = string_member(*jwk, "kty");
  const auto* crv = string_member(*jwk, "crv");
  const auto* x = string_member(*jwk, "x");
  const auto* y = string_member(*jwk, "y");
  if (!kty || *kty != "EC" || !crv || *crv != "P-384" || !x || !y) return nullptr;
  const auto xs = base64_decode(*x, true);
  const auto ys = base64_decode(*y, true);
  return xs && ys ? p384_key_from_xy(*xs, *ys) : nullptr;
}

// Reads exp when it is present. An exp that is there but not a number makes the token
// malformed rather than eternal.
std::optional<identity_problem> check_expiry(const json::object& payload, std::int64_t now) {
  const auto* exp = payload.if_contains("exp");
  if (!exp) return std::nullopt;
  double when = 0;
  if (exp->is_int64())
    when = static_cast<double>(exp->as_int64());
  else if (exp->is_uint64())
    when = static_cast<double>(exp->as_uint64());
  else if (exp->is_double())
    when = exp->as_double();
  else
    return malformed("token exp is not a number");
  if (when < static_cast<double>(now))
    return identity_problem{identity_failure::expired, "identity token has expired"};
  return std::nullopt;
}

}  // namespace

std::string canonical_fingerprints(const std::vector<sdp_fingerprint>& fingerprints) {
  json::array list;
  for (const auto& fingerprint : fingerprints)
    list.push_back(json::object{{"algorithm", fingerprint.algorithm}, {"digest", fingerprint.digest}});
  return json::serialize(json::object{{"fingerprint", std::move(list)}});
}

namespace {

// An a=identity value taken apart down to the token's JSON, before any signature is checked.
struct decoded_identity {
  json::object idp;
  json::object token_header;
  json::object token_payload;
  std::string token_signing_input;
  std::string token_signature_part;
  std::string detached;
};

std::optional<identity_problem> decode_identity(std::string_view value, decoded_identity& out) {
  const auto outer_text = base64_decode(value, false);
  if (!outer_text) return malformed("a=identity is not standard base64");
  const auto outer = parse_object(*outer_text);
  if (!outer) return malformed("a=identity is not a JSON object");
  const auto* idp = outer->if_contains("idp");
  const auto* assertion_text = string_member(*outer, "assertion");
  if (!idp || !idp->is_object() || !assertion_text) return malformed("a=identity lacks idp or assertion");

  const auto assertion = parse_object(*assertion_text);
  if (!assertion) return malformed("assertion is not a JSON object");
  const auto* token = string_member(*assertion, "token");
  const auto* detached = string_member(*assertion, "fingerprints");
  if (!token || !detached) return malformed("assertion lacks token or fingerprints");

  const auto token_parts = split_dots(*token);
  if (token_parts.size() != 3) return malformed("token is not a compact JWS");
  auto token_header = decode_json_part(token_parts[0]);
  auto token_payload = decode_json_part(token_parts[1]);
  if (!token_header || !token_payload) return malformed("token header or payload is not base64url JSON");
  out.idp = idp->get_object();
  out.token_header = std::move(*token_header);
  out.token_payload = std::move(*token_payload);
  out.token_signing_input = std::string(token_parts[0]) + "." + std::string(token_parts[1]);
  out.token_signature_part = std::string(token_parts[2]);
  out.detached = std::string(*detached);
  return std::nullopt;
}

// The key the token's cpk names, in one of the forms `accepted` names.
std::optional<identity_problem> read_cpk(const json::object& payload, cpk_forms accepted, pkey_ptr& key) {
  const auto* cpk = payload.if_contains("cpk");
  if (!cpk) return malformed("token has no cpk claim");
  // Pumpkin reads cpk with as_str(), so any other kind counts as no cpk at all.
  if (accepted == cpk_forms::der_only && !cpk->is_string())
    return identity_problem{identity_failure::cpk_not_string, "OIDC payload missing cpk"};
  key = key_from_cpk(*cpk);
  if (!key) return malformed("cpk is neither a P-384 JWK nor base64 DER of a P-384 key");
  return std::nullopt;
}

// The detached fingerprints JWS must be an ES384 signature by `key` over this offer's
// fingerprints.
std::optional<identity_problem> check_fingerprints(const std::string& detached, EVP_PKEY* key,
                                                   const std::vector<sdp_fingerprint>& fingerprints) {
  const auto jws_parts = split_dots(detached);
  if (jws_parts.size() != 3 || !jws_parts[1].empty()) return malformed("fingerprints is not a detached JWS");
  const auto jws_header = decode_json_part(jws_parts[0]);
  if (!jws_header || !header_says_es384(*jws_header)) return malformed("fingerprints alg is not ES384");
  const auto jws_signature = base64_decode(jws_parts[2], true);
  const std::string jws_input =
      std::string(jws_parts[0]) + "." + base64_encode(canonical_fingerprints(fingerprints), true);
  if (!jws_signature || !es384_verify(key, jws_input, *jws_signature))
    return identity_problem{identity_failure::fingerprint_signature,
                            "fingerprint signature verification failed"};
  return std::nullopt;
}

bool header_says_rs256(const json::object& header) {
  const auto* alg = string_member(header, "alg");
  return alg && *alg == "RS256";
}

}  // namespace

std::optional<identity_problem> verify_identity(std::string_view value,
                                                const std::vector<sdp_fingerprint>& fingerprints,
                                                std::int64_t now, cpk_forms accepted) {
  decoded_identity identity;
  if (auto problem = decode_identity(value, identity)) return problem;
  // An issuer-signed GameServerToken is taken as offline servers take it (go-nethernet's
  // default verifier, Pumpkin offline): its cpk and exp are read, and its RS256 signature is
  // left alone, since checking it needs the issuer's keys.
  const bool issuer_signed = header_says_rs256(identity.token_header);
  if (!issuer_signed && !header_says_es384(identity.token_header))
    return malformed("token alg is neither ES384 nor RS256");
  pkey_ptr key;
  if (auto problem = read_cpk(identity.token_payload, accepted, key)) return problem;

  if (!issuer_signed) {
    const auto token_signature = base64_decode(identity.token_signature_part, true);
    if (!token_signature || !es384_verify(key.get(), identity.token_signing_input, *token_signature))
      return identity_problem{identity_failure::token_signature,
                              "token signature does not verify with its cpk"};
  } else if (!identity.token_payload.contains("exp")) {
    return malformed("token has no exp claim");
  }
  if (auto expired = check_expiry(identity.token_payload, now)) return expired;
  return check_fingerprints(identity.detached, key.get(), fingerprints);
}

online_verdict verify_game_server_identity(std::string_view value,
                                           const std::vector<sdp_fingerprint>& fingerprints,
                                           std::int64_t now, const issuer_keys& keys) {
  online_verdict verdict;
  const auto refuse = [&verdict](std::string text) {
    verdict.outcome = online_outcome::refused;
    verdict.pumpkin_text = std::move(text);
    return verdict;
  };
  decoded_identity identity;
  if (auto problem = decode_identity(value, identity))
    return refuse("invalid identity JSON: " + problem->detail);
  const auto* protocol = string_member(identity.idp, "protocol");
  const auto* domain = string_member(identity.idp, "domain");
  if (!protocol || *protocol != "default" || !domain || domain->empty())
    return refuse("invalid identity provider");

  // The words after "invalid GameServerToken: " up to the kid are Pumpkin's; the later ones
  // are the fake's own (README, "Online mode").
  const std::string token_prefix = "invalid GameServerToken: ";
  const auto* kid = string_member(identity.token_header, "kid");
  if (!kid) return refuse(token_prefix + "Public key build failed: OIDC header missing kid");
  const auto found = keys.by_kid.find(std::string(*kid));
  if (found == keys.by_kid.end()) {
    verdict.outcome = online_outcome::unknown_kid;
    verdict.pumpkin_text = token_prefix + "Public key build failed: Key not found in JWKS: " + std::string(*kid);
    return verdict;
  }
  if (!header_says_rs256(identity.token_header)) return refuse(token_prefix + "token alg is not RS256");
  const auto signature = base64_decode(identity.token_signature_part, true);
  if (!signature || !rs256_verify(found->second.get(), identity.token_signing_input, *signature))
    return refuse(token_prefix + "token signature does not verify with the issuer's key");
  if (!identity.token_payload.contains("exp")) return refuse(token_prefix + "token has no exp claim");
  if (auto problem = check_expiry(identity.token_payload, now))
    return refuse(token_prefix + (problem->kind == identity_failure::expired ? "token has expired"
                                                                             : problem->detail));
  const auto* iss = string_member(identity.token_payload, "iss");
  if (!iss || std::find(keys.issuers.begin(), keys.issuers.end(), std::string_view(*iss)) == keys.issuers.end())
    return refuse(token_prefix + "token iss is not the configured issuer");
  // The token names the player's key as a base64 DER string, the only form the services write.
  pkey_ptr key;
  if (auto problem = read_cpk(identity.token_payload, cpk_forms::der_only, key))
    return refuse("invalid identity public key: " + problem->detail);
  if (auto problem = check_fingerprints(identity.detached, key.get(), fingerprints))
    return refuse(problem->detail);
  verdict.outcome = online_outcome::verified;
  if (const auto* xname = string_member(identity.token_payload, "xname")) verdict.xname = std::string(*xname);
  if (const auto* xid = string_member(identity.token_payload, "xid")) verdict.xid = std::string(*xid);
  return verdict;
}

online_view read_for_online(std::string_view value) {
  online_view view;
  const auto outer_text = base64_decode(value, false);
  const auto outer = outer_text ? parse_object(*outer_text) : std::nullopt;
  if (!outer) return view;
  const auto* idp = outer->if_contains("idp");
  const auto* assertion_text = string_member(*outer, "assertion");
  if (!idp || !idp->is_object() || !assertion_text) return view;
  const auto assertion = parse_object(*assertion_text);
  const auto* token = assertion ? string_member(*assertion, "token") : nullptr;
  if (!token) return view;
  view.decodes = true;
  const auto* protocol = string_member(idp->get_object(), "protocol");
  const auto* domain = string_member(idp->get_object(), "domain");
  view.provider_ok = protocol && *protocol == "default" && domain && !domain->empty();
  const auto header = decode_json_part(split_dots(*token).front());
  if (const auto* kid = header ? string_member(*header, "kid") : nullptr) view.kid = std::string(*kid);
  return view;
}

std::string make_identity(EVP_PKEY* key, const std::vector<sdp_fingerprint>& fingerprints, std::int64_t now,
                          cpk_form form) {
  const std::string spki = public_key_der(key);
  json::value cpk;
  if (form == cpk_form::der) {
    cpk = base64_encode(spki, false);
  } else {
    const auto [x, y] = public_key_xy(key);
    cpk = json::object{
        {"crv", "P-384"}, {"kty", "EC"}, {"x", base64_encode(x, true)}, {"y", base64_encode(y, true)}};
  }
  // Keys are inserted in sorted order because that is how the BDS capture lists them.
  const std::string header =
      json::serialize(json::object{{"alg", "ES384"}, {"x5u", base64_encode(spki, false)}});
  const std::string payload = json::serialize(json::object{{"cpk", cpk}, {"exp", now + 60}, {"iat", now}});
  const std::string signing_input = base64_encode(header, true) + "." + base64_encode(payload, true);
  const std::string token = signing_input + "." + base64_encode(es384_sign(key, signing_input), true);

  const std::string covered =
      fingerprints_header + "." + base64_encode(canonical_fingerprints(fingerprints), true);
  const std::string detached = fingerprints_header + ".." + base64_encode(es384_sign(key, covered), true);

  const std::string assertion = json::serialize(json::object{{"fingerprints", detached}, {"token", token}});
  const std::string outer = json::serialize(json::object{
      {"assertion", assertion}, {"idp", json::object{{"domain", "self"}, {"protocol", "default"}}}});
  return base64_encode(outer, false);
}

}  // namespace fake_target
