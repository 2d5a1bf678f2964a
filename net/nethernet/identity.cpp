#include "net/nethernet/identity.hpp"

#include <climits>
#include <limits>
#include <utility>

#include <boost/json.hpp>
#include <openssl/x509.h>

#include "base/bytes.hpp"
#include "base/jose.hpp"

namespace netherscope::net::nethernet {

namespace json = boost::json;

namespace {

// -- constants --

/// How long our self-signed token is valid, as BDS does it (PROTOCOL.md §2.3).
constexpr std::int64_t token_lifetime = 60;

/// Certificate validity around the moment it is made.
constexpr long cert_backdate_seconds = 24L * 60 * 60;
constexpr long cert_lifetime_seconds = 365L * 24 * 60 * 60;

// -- the DTLS certificate --

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

base::x509_ptr cert_from_der(std::string_view der) {
  if (der.empty() || der.size() > static_cast<std::size_t>(LONG_MAX))
    return nullptr;
  const auto* begin = reinterpret_cast<const unsigned char*>(der.data());
  const auto* p = begin;
  base::x509_ptr cert{d2i_X509(nullptr, &p, static_cast<long>(der.size()))};
  if (!cert || p != begin + der.size())
    return nullptr;
  return cert;
}

} // namespace

std::optional<std::string> certificate_fingerprint(const X509& cert) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (X509_digest(&cert, EVP_sha256(), digest, &len) != 1 || len != 32)
    return std::nullopt;
  auto text = base::hex_colon({reinterpret_cast<const char*>(digest), len});
  if (text.empty())
    return std::nullopt;
  return text;
}

namespace {

// A self-signed certificate for key: CN netherscope, 128-bit random serial, SHA-256.
base::x509_ptr make_dtls_cert(EVP_PKEY& key) {
  base::x509_ptr cert{X509_new()};
  if (!cert || X509_set_version(cert.get(), X509_VERSION_3) != 1)
    return nullptr;
  auto serial = base::random_bytes(16);
  if (!serial)
    return nullptr;
  // Positive, non-zero and always 16 bytes long (RFC 5280 §4.1.2.2 allows up to 20).
  (*serial)[0] = static_cast<char>((static_cast<unsigned char>((*serial)[0]) & 0x7F) | 0x40);
  base::bignum_ptr serial_bn{BN_bin2bn(reinterpret_cast<const unsigned char*>(serial->data()),
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

// -- the stored form --

constexpr std::uint8_t identity_version = 1;

bool take_field(std::string_view& in, std::string& out) {
  std::uint32_t length = 0;
  if (!base::take_le(in, length) || in.size() < length)
    return false;
  out.assign(in.substr(0, length));
  in.remove_prefix(length);
  return true;
}

} // namespace

// -- our identity --

std::optional<local_identity> make_local_identity() {
  base::error_queue_mark mark;
  local_identity id;
  id.dtls_key = base::generate_ec_key(base::ec_curve::p256);
  id.identity_key = generate_ec_key(base::ec_curve::p384);
  if (!id.dtls_key || !id.identity_key)
    return std::nullopt;
  id.dtls_cert = make_dtls_cert(*id.dtls_key);
  if (!id.dtls_cert)
    return std::nullopt;
  auto fingerprint = certificate_fingerprint(*id.dtls_cert);
  if (!fingerprint)
    return std::nullopt;
  id.fingerprint = std::move(*fingerprint);
  return id;
}

identity_blob to_blob(const local_identity& id) {
  base::error_queue_mark mark;
  identity_blob blob;
  if (id.dtls_key)
    blob.dtls_key_der = base::private_key_der(*id.dtls_key).value_or(std::string{});
  if (id.dtls_cert)
    blob.dtls_cert_der = cert_der(*id.dtls_cert).value_or(std::string{});
  if (id.identity_key)
    blob.identity_key_der = base::private_key_der(*id.identity_key).value_or(std::string{});
  return blob;
}

std::optional<local_identity> from_blob(const identity_blob& blob) {
  base::error_queue_mark mark;
  local_identity id;
  id.dtls_key = base::private_key_from_der(blob.dtls_key_der);
  if (!id.dtls_key || base::key_curve(*id.dtls_key) != base::ec_curve::p256)
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
  id.identity_key = base::private_key_from_der(blob.identity_key_der);
  if (!id.identity_key || base::key_curve(*id.identity_key) != base::ec_curve::p384)
    return std::nullopt;
  auto fingerprint = certificate_fingerprint(*id.dtls_cert);
  if (!fingerprint)
    return std::nullopt;
  id.fingerprint = std::move(*fingerprint);
  return id;
}

std::string encode_identity(const identity_blob& blob) {
  std::string out;
  out.push_back(static_cast<char>(identity_version));
  for (auto* field : {&blob.dtls_key_der, &blob.dtls_cert_der, &blob.identity_key_der}) {
    base::put_le(out, static_cast<std::uint32_t>(field->size()));
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

namespace {

// The envelope both forms share: the fingerprints JWS signed with identity_key over the
// digests, beside token, under idp {domain, "default"}; every object with its keys inserted in
// sorted order, which json::object keeps (the shape of the BDS capture, PROTOCOL.md §4.3).
std::optional<std::string> identity_envelope(EVP_PKEY& identity_key,
                                             const std::vector<std::string>& sha256_digests,
                                             std::string_view token, std::string_view domain) {
  const auto alg = base::jws_alg_name(base::jws_alg::es384);
  auto fingerprints = base::sign_jws_detached(identity_key, json::object{{"alg", alg}},
                                              canonical_fingerprint_payload(sha256_digests));
  if (!fingerprints)
    return std::nullopt;

  json::object assertion;
  assertion["fingerprints"] = *fingerprints;
  assertion["token"] = token;

  json::object idp;
  idp["domain"] = domain;
  idp["protocol"] = "default";

  json::object outer;
  outer["assertion"] = json::serialize(assertion);
  outer["idp"] = std::move(idp);
  return base::base64_encode(json::serialize(outer));
}

} // namespace

std::optional<std::string> make_identity_attribute(EVP_PKEY& identity_key,
                                                   const std::vector<std::string>& sha256_digests,
                                                   std::int64_t now_unix) {
  base::error_queue_mark mark;
  if (base::key_curve(identity_key) != base::ec_curve::p384 || sha256_digests.empty()
      || now_unix > std::numeric_limits<std::int64_t>::max() - token_lifetime)
    return std::nullopt;
  auto spki = base::public_key_der(identity_key);
  if (!spki)
    return std::nullopt;
  auto spki_b64 = base::base64_encode(*spki);
  const auto alg = base::jws_alg_name(base::jws_alg::es384);

  // Every object is built with its keys inserted in sorted order, which json::object keeps:
  // the shape of the BDS capture (PROTOCOL.md §4.3).
  json::object header;
  header["alg"] = alg;
  header["x5u"] = spki_b64;

  json::object claims;
  claims["cpk"] = spki_b64;
  claims["exp"] = now_unix + token_lifetime;
  claims["iat"] = now_unix;

  auto token = base::sign_jws(identity_key, header, json::serialize(claims));
  if (!token)
    return std::nullopt;
  return identity_envelope(identity_key, sha256_digests, *token, "self");
}

std::optional<std::string> make_signed_in_identity_attribute(
  EVP_PKEY& identity_key, const std::vector<std::string>& sha256_digests,
  const signed_in_identity& signed_in) {
  base::error_queue_mark mark;
  if (base::key_curve(identity_key) != base::ec_curve::p384 || sha256_digests.empty()
      || signed_in.game_server_token.empty() || signed_in.idp_domain.empty())
    return std::nullopt;
  return identity_envelope(identity_key, sha256_digests, signed_in.game_server_token,
                           signed_in.idp_domain);
}

} // namespace netherscope::net::nethernet
