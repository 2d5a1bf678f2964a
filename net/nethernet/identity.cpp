#include "net/nethernet/identity.hpp"

#include <climits>
#include <exception>
#include <limits>
#include <utility>

#include <boost/json.hpp>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/x509.h>

namespace netherscope::net {

namespace json = boost::json;

namespace {

// -- constants --

/// The JOSE algorithm of every signature we make or accept.
constexpr std::string_view jose_alg = "ES384";

/// How long our self-signed token is valid, as BDS does it (PROTOCOL.md §2.3).
constexpr std::int64_t token_lifetime = 60;

/// Certificate validity around the moment it is made.
constexpr long cert_backdate_seconds = 24L * 60 * 60;
constexpr long cert_lifetime_seconds = 365L * 24 * 60 * 60;

// -- OpenSSL helpers --

// Drops what OpenSSL pushes onto this thread's error queue while it lives (see crypto.cpp).
class error_queue_mark {
public:
  error_queue_mark() noexcept { ERR_set_mark(); }
  ~error_queue_mark() { ERR_pop_to_mark(); }
  error_queue_mark(const error_queue_mark&) = delete;
  error_queue_mark& operator=(const error_queue_mark&) = delete;
};

std::optional<std::string> cert_der(const X509& cert) {
  int len = i2d_X509(&cert, nullptr);
  if (len <= 0)
    return std::nullopt;
  std::string out(static_cast<std::size_t>(len), '\0');
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  if (i2d_X509(&cert, &p) != len)
    return std::nullopt;
  return out;
}

x509_ptr cert_from_der(std::string_view der) {
  if (der.empty() || der.size() > static_cast<std::size_t>(LONG_MAX))
    return nullptr;
  const auto* begin = reinterpret_cast<const unsigned char*>(der.data());
  const auto* p = begin;
  x509_ptr cert{d2i_X509(nullptr, &p, static_cast<long>(der.size()))};
  if (!cert || p != begin + der.size())
    return nullptr;
  return cert;
}

std::optional<std::string> cert_fingerprint(const X509& cert) {
  auto der = cert_der(cert);
  if (!der)
    return std::nullopt;
  auto digest = sha256(*der);
  if (digest.empty())
    return std::nullopt;
  return hex_colon(digest);
}

// A self-signed certificate for key: CN netherscope, 128-bit random serial, SHA-256.
x509_ptr make_dtls_cert(EVP_PKEY& key) {
  x509_ptr cert{X509_new()};
  if (!cert || X509_set_version(cert.get(), X509_VERSION_3) != 1)
    return nullptr;
  auto serial = random_bytes(16);
  if (!serial)
    return nullptr;
  // Positive, non-zero and always 16 bytes long (RFC 5280 §4.1.2.2 allows up to 20).
  (*serial)[0] = static_cast<char>((static_cast<unsigned char>((*serial)[0]) & 0x7F) | 0x40);
  bignum_ptr serial_bn{BN_bin2bn(reinterpret_cast<const unsigned char*>(serial->data()),
                                 static_cast<int>(serial->size()), nullptr)};
  if (!serial_bn || !BN_to_ASN1_INTEGER(serial_bn.get(), X509_get_serialNumber(cert.get())))
    return nullptr;
  if (!X509_gmtime_adj(X509_getm_notBefore(cert.get()), -cert_backdate_seconds)
      || !X509_gmtime_adj(X509_getm_notAfter(cert.get()), cert_lifetime_seconds))
    return nullptr;
  X509_NAME* name = X509_get_subject_name(cert.get());
  static constexpr unsigned char common_name[] = "netherscope";
  if (!name
      || X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, common_name, -1, -1, 0) != 1
      || X509_set_issuer_name(cert.get(), name) != 1)
    return nullptr;
  if (X509_set_pubkey(cert.get(), &key) != 1 || X509_sign(cert.get(), &key, EVP_sha256()) <= 0)
    return nullptr;
  return cert;
}

// -- JSON helpers (never throwing on a wrong kind) --

std::optional<json::object> parse_object(std::string_view text) {
  json::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object())
    return std::nullopt;
  return std::move(v.get_object());
}

const json::object* object_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v ? v->if_object() : nullptr;
}

const json::string* string_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v ? v->if_string() : nullptr;
}

std::string_view view(const json::string& s) {
  return {s.data(), s.size()};
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    auto pos = text.find(sep, start);
    if (pos == std::string_view::npos) {
      parts.push_back(text.substr(start));
      return parts;
    }
    parts.push_back(text.substr(start, pos - start));
    start = pos + 1;
  }
}

// -- JWS --

// base64url(header) "." base64url(payload), the input of a JWS signature.
std::string signing_input(std::string_view header_b64, std::string_view payload) {
  std::string input{header_b64};
  input += '.';
  input += base64url_encode(payload);
  return input;
}

// A compact JWS: header.payload.signature.
std::optional<std::string> sign_compact(EVP_PKEY& key, std::string_view header,
                                        std::string_view payload) {
  auto input = signing_input(base64url_encode(header), payload);
  auto sig = ecdsa_sign_p1363(key, input);
  if (!sig)
    return std::nullopt;
  return input + "." + base64url_encode(*sig);
}

// A detached compact JWS: header..signature (RFC 7515 Appendix F).
std::optional<std::string> sign_detached(EVP_PKEY& key, std::string_view header,
                                         std::string_view payload) {
  auto header_b64 = base64url_encode(header);
  auto sig = ecdsa_sign_p1363(key, signing_input(header_b64, payload));
  if (!sig)
    return std::nullopt;
  return header_b64 + ".." + base64url_encode(*sig);
}

std::string jose_header_alg_only() {
  json::object header;
  header["alg"] = jose_alg;
  return json::serialize(header);
}

// -- making the attribute --

std::optional<std::string> make_attribute(EVP_PKEY& key, const std::vector<std::string>& digests,
                                          std::int64_t now) {
  if (key_curve(key) != ec_curve::p384 || digests.empty()
      || now > std::numeric_limits<std::int64_t>::max() - token_lifetime)
    return std::nullopt;
  auto spki = public_key_der(key);
  auto xy = ec_public_xy(key);
  if (!spki || !xy)
    return std::nullopt;

  // Every object is built with its keys inserted in sorted order, which json::object keeps.
  json::object header;
  header["alg"] = jose_alg;
  header["x5u"] = base64_encode(*spki);

  json::object cpk;
  cpk["crv"] = "P-384";
  cpk["kty"] = "EC";
  cpk["x"] = base64url_encode(xy->first);
  cpk["y"] = base64url_encode(xy->second);

  json::object claims;
  claims["cpk"] = std::move(cpk);
  claims["exp"] = now + token_lifetime;
  claims["iat"] = now;

  auto token = sign_compact(key, json::serialize(header), json::serialize(claims));
  auto fingerprints =
    sign_detached(key, jose_header_alg_only(), canonical_fingerprint_payload(digests));
  if (!token || !fingerprints)
    return std::nullopt;

  json::object assertion;
  assertion["fingerprints"] = *fingerprints;
  assertion["token"] = *token;

  json::object idp;
  idp["domain"] = "self";
  idp["protocol"] = "default";

  json::object outer;
  outer["assertion"] = json::serialize(assertion);
  outer["idp"] = std::move(idp);
  return base64_encode(json::serialize(outer));
}

// -- checking the attribute --

identity_check fail(std::string reason) {
  return {false, std::move(reason)};
}

// The P-384 key a cpk claim names, or null with why set.
pkey_ptr key_from_cpk(const json::value& cpk, std::string& why) {
  if (const auto* jwk = cpk.if_object()) {
    const auto* kty = string_at(*jwk, "kty");
    const auto* crv = string_at(*jwk, "crv");
    if (!kty || *kty != "EC" || !crv || *crv != "P-384") {
      why = "The cpk JWK is not an EC P-384 key.";
      return nullptr;
    }
    const auto* x = string_at(*jwk, "x");
    const auto* y = string_at(*jwk, "y");
    auto xs = x ? base64url_decode(view(*x)) : std::nullopt;
    auto ys = y ? base64url_decode(view(*y)) : std::nullopt;
    if (!xs || !ys || xs->size() != 48 || ys->size() != 48) {
      why = "The cpk JWK coordinates are not 48-byte base64url values.";
      return nullptr;
    }
    auto key = ec_public_from_xy(ec_curve::p384, *xs, *ys);
    if (!key)
      why = "The cpk JWK point is not on the P-384 curve.";
    return key;
  }
  if (const auto* text = cpk.if_string()) {
    auto der = base64_decode(view(*text));
    auto key = der ? public_key_from_der(*der) : nullptr;
    if (!key) {
      why = "The cpk string is not a base64 DER public key.";
      return nullptr;
    }
    if (key_curve(*key) != ec_curve::p384) {
      why = "The cpk key is not an EC P-384 key.";
      return nullptr;
    }
    return key;
  }
  why = "The cpk claim is neither a JWK object nor a base64 string.";
  return nullptr;
}

// Whether a NumericDate claim lies before now; nullopt when it is not a number.
std::optional<bool> before(const json::value& date, std::int64_t now) {
  if (const auto* i = date.if_int64())
    return *i < now;
  if (date.if_uint64())
    return false; // beyond every int64 now
  if (const auto* d = date.if_double())
    return *d < static_cast<double>(now);
  return std::nullopt;
}

identity_check check_attribute(std::string_view value, const std::vector<std::string>& digests,
                               std::int64_t now) {
  if (digests.empty())
    return fail("There are no fingerprint digests to check.");
  auto decoded = base64_decode(value);
  if (!decoded)
    return fail("The identity is not valid base64.");
  auto outer = parse_object(*decoded);
  if (!outer)
    return fail("The identity is not a JSON object.");

  const auto* idp = object_at(*outer, "idp");
  if (!idp)
    return fail("The identity has no idp object.");
  const auto* protocol = string_at(*idp, "protocol");
  if (!protocol || *protocol != "default")
    return fail("The idp protocol is not \"default\".");
  if (!string_at(*idp, "domain"))
    return fail("The idp domain is not a string.");

  const auto* assertion_text = string_at(*outer, "assertion");
  if (!assertion_text)
    return fail("The assertion is not a string.");
  auto assertion = parse_object(view(*assertion_text));
  if (!assertion)
    return fail("The assertion is not a JSON object.");
  const auto* token = string_at(*assertion, "token");
  if (!token)
    return fail("The assertion has no token string.");
  const auto* fingerprints = string_at(*assertion, "fingerprints");
  if (!fingerprints)
    return fail("The assertion has no fingerprints string.");

  // The token: a compact JWS signed by the key in its own cpk claim.
  auto parts = split(view(*token), '.');
  if (parts.size() != 3 || parts[0].empty() || parts[1].empty() || parts[2].empty())
    return fail("The token is not a compact JWS.");
  auto header_json = base64url_decode(parts[0]);
  auto header = header_json ? parse_object(*header_json) : std::nullopt;
  if (!header)
    return fail("The token header is not base64url JSON.");
  const auto* alg = string_at(*header, "alg");
  if (!alg)
    return fail("The token header has no alg.");
  if (*alg != jose_alg)
    return fail("The token alg " + std::string{view(*alg)} + " is not ES384.");
  auto claims_json = base64url_decode(parts[1]);
  auto claims = claims_json ? parse_object(*claims_json) : std::nullopt;
  if (!claims)
    return fail("The token payload is not base64url JSON.");
  const auto* cpk = claims->if_contains("cpk");
  if (!cpk)
    return fail("The token has no cpk claim.");
  std::string why;
  auto key = key_from_cpk(*cpk, why);
  if (!key)
    return fail(why);
  if (const auto* x5u = header->if_contains("x5u")) {
    const auto* text = x5u->if_string();
    auto der = text ? base64_decode(view(*text)) : std::nullopt;
    auto named = der ? public_key_from_der(*der) : nullptr;
    if (!named)
      return fail("The token x5u is not a base64 DER public key.");
    if (EVP_PKEY_eq(named.get(), key.get()) != 1)
      return fail("The token x5u does not match cpk.");
  }
  auto token_sig = base64url_decode(parts[2]);
  std::string token_input{parts[0]};
  token_input += '.';
  token_input += parts[1];
  if (!token_sig || !ecdsa_verify_p1363(*key, token_input, *token_sig))
    return fail("The token signature does not verify with cpk.");
  if (const auto* exp = claims->if_contains("exp")) {
    auto expired = before(*exp, now);
    if (!expired)
      return fail("The token exp is not a number.");
    if (*expired)
      return fail("The token has expired.");
  }

  // The fingerprints: a detached JWS over the canonical payload of the digests.
  auto fp_parts = split(view(*fingerprints), '.');
  if (fp_parts.size() != 3 || fp_parts[0].empty() || !fp_parts[1].empty() || fp_parts[2].empty())
    return fail("The fingerprints value is not a detached JWS.");
  auto fp_header_json = base64url_decode(fp_parts[0]);
  auto fp_header = fp_header_json ? parse_object(*fp_header_json) : std::nullopt;
  if (!fp_header)
    return fail("The fingerprints header is not base64url JSON.");
  const auto* fp_alg = string_at(*fp_header, "alg");
  if (!fp_alg || *fp_alg != jose_alg)
    return fail("The fingerprints alg is not ES384.");
  auto fp_sig = base64url_decode(fp_parts[2]);
  auto fp_input = signing_input(fp_parts[0], canonical_fingerprint_payload(digests));
  if (!fp_sig || !ecdsa_verify_p1363(*key, fp_input, *fp_sig))
    return fail("The fingerprints signature does not match the digests.");
  return {true, {}};
}

} // namespace

// -- our identity --

std::optional<local_identity> make_local_identity() {
  try {
    error_queue_mark mark;
    local_identity id;
    id.dtls_key = generate_ec_key(ec_curve::p256);
    id.identity_key = generate_ec_key(ec_curve::p384);
    if (!id.dtls_key || !id.identity_key)
      return std::nullopt;
    id.dtls_cert = make_dtls_cert(*id.dtls_key);
    if (!id.dtls_cert)
      return std::nullopt;
    auto fingerprint = cert_fingerprint(*id.dtls_cert);
    if (!fingerprint)
      return std::nullopt;
    id.fingerprint = std::move(*fingerprint);
    return id;
  } catch (const std::exception&) {
    // Only allocation can throw here; report it as a failure like any other.
    return std::nullopt;
  }
}

identity_blob to_blob(const local_identity& id) {
  identity_blob blob;
  try {
    error_queue_mark mark;
    if (id.dtls_key)
      blob.dtls_key_der = private_key_der(*id.dtls_key).value_or(std::string{});
    if (id.dtls_cert)
      blob.dtls_cert_der = cert_der(*id.dtls_cert).value_or(std::string{});
    if (id.identity_key)
      blob.identity_key_der = private_key_der(*id.identity_key).value_or(std::string{});
  } catch (const std::exception&) {
    // Only allocation can throw here; an incomplete blob is refused by from_blob.
  }
  return blob;
}

std::optional<local_identity> from_blob(const identity_blob& blob) {
  try {
    error_queue_mark mark;
    local_identity id;
    id.dtls_key = private_key_from_der(blob.dtls_key_der);
    if (!id.dtls_key || key_curve(*id.dtls_key) != ec_curve::p256)
      return std::nullopt;
    id.dtls_cert = cert_from_der(blob.dtls_cert_der);
    if (!id.dtls_cert)
      return std::nullopt;
    // The certificate must carry our DTLS key and be signed by it, or the DTLS handshake
    // would not match the fingerprint we announce.
    const EVP_PKEY* cert_key = X509_get0_pubkey(id.dtls_cert.get());
    if (!cert_key || EVP_PKEY_eq(cert_key, id.dtls_key.get()) != 1
        || X509_verify(id.dtls_cert.get(), id.dtls_key.get()) != 1)
      return std::nullopt;
    id.identity_key = private_key_from_der(blob.identity_key_der);
    if (!id.identity_key || key_curve(*id.identity_key) != ec_curve::p384)
      return std::nullopt;
    auto fingerprint = cert_fingerprint(*id.dtls_cert);
    if (!fingerprint)
      return std::nullopt;
    id.fingerprint = std::move(*fingerprint);
    return id;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// -- the a=identity attribute --

std::string canonical_fingerprint_payload(const std::vector<std::string>& sha256_digests) {
  json::array list;
  list.reserve(sha256_digests.size());
  for (const auto& digest : sha256_digests) {
    json::object entry;
    entry["algorithm"] = "sha-256";
    entry["digest"] = digest;
    list.push_back(std::move(entry));
  }
  json::object payload;
  payload["fingerprint"] = std::move(list);
  return json::serialize(payload);
}

std::optional<std::string> make_identity_attribute(EVP_PKEY& identity_key,
                                                   const std::vector<std::string>& sha256_digests,
                                                   std::int64_t now_unix) {
  try {
    error_queue_mark mark;
    return make_attribute(identity_key, sha256_digests, now_unix);
  } catch (const std::exception&) {
    // Only allocation can throw here; report it as a failure like any other.
    return std::nullopt;
  }
}

identity_check verify_identity_attribute(std::string_view value,
                                         const std::vector<std::string>& sha256_digests,
                                         std::int64_t now_unix) {
  try {
    error_queue_mark mark;
    return check_attribute(value, sha256_digests, now_unix);
  } catch (const std::exception&) {
    // Only allocation can throw here (the JSON accessors used never throw on bad input).
    return fail("The identity could not be checked (out of memory).");
  }
}

// -- the stored form --

namespace {

constexpr std::uint8_t identity_version = 1;

void put_u32(std::string& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

bool take_field(std::string_view& in, std::string& out) {
  if (in.size() < 4)
    return false;
  std::uint32_t length = 0;
  for (int i = 0; i < 4; ++i)
    length |= static_cast<std::uint32_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  in.remove_prefix(4);
  if (in.size() < length)
    return false;
  out.assign(in.substr(0, length));
  in.remove_prefix(length);
  return true;
}

} // namespace

std::string encode_identity(const identity_blob& blob) {
  std::string out;
  out.push_back(static_cast<char>(identity_version));
  for (auto* field : {&blob.dtls_key_der, &blob.dtls_cert_der, &blob.identity_key_der}) {
    put_u32(out, static_cast<std::uint32_t>(field->size()));
    out += *field;
  }
  return out;
}

std::optional<identity_blob> decode_identity(std::string_view record) {
  if (record.empty() || static_cast<std::uint8_t>(record[0]) != identity_version)
    return std::nullopt;
  record.remove_prefix(1);
  identity_blob blob;
  if (!take_field(record, blob.dtls_key_der) || !take_field(record, blob.dtls_cert_der)
      || !take_field(record, blob.identity_key_der) || !record.empty())
    return std::nullopt;
  return blob;
}

bool certificate_expires_before(const local_identity& id, std::int64_t unix_time) {
  auto limit = static_cast<time_t>(unix_time);
  // X509_cmp_time returns -1 when notAfter is before limit, 0 on error.
  return X509_cmp_time(X509_get0_notAfter(id.dtls_cert.get()), &limit) <= 0;
}

} // namespace netherscope::net
