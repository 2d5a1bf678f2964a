// OpenSSL 3 helpers for the fake target. Everything goes through EVP, OSSL_PARAM and X509
// APIs; none of the EC_KEY-era calls that OpenSSL 3 deprecates are used.
#include "crypto.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <array>
#include <stdexcept>

namespace fake_target {

namespace {

constexpr std::size_t p384_coordinate_size = 48;

constexpr char standard_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char url_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// Small owning wrappers so that every early return frees what OpenSSL allocated.
template <class T, void (*Free)(T*)>
struct openssl_deleter {
  void operator()(T* p) const { Free(p); }
};
template <class T, void (*Free)(T*)>
using owned = std::unique_ptr<T, openssl_deleter<T, Free>>;

using x509_ptr = owned<X509, X509_free>;
using bio_ptr = owned<BIO, BIO_free_all>;
using bn_ptr = owned<BIGNUM, BN_free>;
using md_ctx_ptr = owned<EVP_MD_CTX, EVP_MD_CTX_free>;
using pkey_ctx_ptr = owned<EVP_PKEY_CTX, EVP_PKEY_CTX_free>;
using ecdsa_sig_ptr = owned<ECDSA_SIG, ECDSA_SIG_free>;
using param_bld_ptr = owned<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free>;
using param_ptr = owned<OSSL_PARAM, OSSL_PARAM_free>;
using extension_ptr = owned<X509_EXTENSION, X509_EXTENSION_free>;

[[noreturn]] void fail(const char* what) {
  throw std::runtime_error(std::string("OpenSSL: ") + what + " failed");
}

const unsigned char* bytes_of(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

std::string drain_bio(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(size));
}

void add_extension(X509* cert, int nid, const char* value, X509* issuer = nullptr) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer ? issuer : cert, cert, nullptr, nullptr, 0);
  extension_ptr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) fail("X509_add_ext");
}

pkey_ptr generate_ec_key(const char* curve) {
  pkey_ptr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", curve));
  if (!key) fail("EC key generation");
  return key;
}

// JWS carries ECDSA signatures as fixed-width r||s, OpenSSL speaks DER ECDSA-Sig-Value;
// these two functions are the bridge in each direction.
std::string der_to_raw(std::string_view der) {
  const unsigned char* p = bytes_of(der);
  ecdsa_sig_ptr sig(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size())));
  if (!sig) fail("d2i_ECDSA_SIG");
  const BIGNUM* r = nullptr;
  const BIGNUM* s = nullptr;
  ECDSA_SIG_get0(sig.get(), &r, &s);
  std::string raw(2 * p384_coordinate_size, '\0');
  auto* out = reinterpret_cast<unsigned char*>(raw.data());
  if (BN_bn2binpad(r, out, p384_coordinate_size) < 0 ||
      BN_bn2binpad(s, out + p384_coordinate_size, p384_coordinate_size) < 0)
    fail("BN_bn2binpad");
  return raw;
}

std::optional<std::string> raw_to_der(std::string_view raw) {
  if (raw.size() != 2 * p384_coordinate_size) return std::nullopt;
  bn_ptr r(BN_bin2bn(bytes_of(raw), p384_coordinate_size, nullptr));
  bn_ptr s(BN_bin2bn(bytes_of(raw) + p384_coordinate_size, p384_coordinate_size, nullptr));
  ecdsa_sig_ptr sig(ECDSA_SIG_new());
  if (!r || !s || !sig || ECDSA_SIG_set0(sig.get(), r.get(), s.get()) != 1) return std::nullopt;
  // ECDSA_SIG_set0 took ownership of both numbers.
  r.release();
  s.release();
  unsigned char* der = nullptr;
  const int size = i2d_ECDSA_SIG(sig.get(), &der);
  if (size <= 0) return std::nullopt;
  std::string result(reinterpret_cast<char*>(der), static_cast<std::size_t>(size));
  OPENSSL_free(der);
  return result;
}

bool is_p384(EVP_PKEY* key) {
  if (!EVP_PKEY_is_a(key, "EC")) return false;
  char group[64] = {};
  if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group, nullptr) != 1)
    return false;
  const std::string_view name(group);
  return name == "secp384r1" || name == "P-384";
}

// A key decoded from untrusted input is only used after OpenSSL agrees the point is valid.
bool public_key_checks_out(EVP_PKEY* key) {
  pkey_ctx_ptr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, key, nullptr));
  return ctx && EVP_PKEY_public_check(ctx.get()) == 1;
}

}  // namespace

std::string base64_encode(std::string_view data, bool url) {
  const char* alphabet = url ? url_alphabet : standard_alphabet;
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    const unsigned n = (static_cast<unsigned char>(data[i]) << 16) |
                       (static_cast<unsigned char>(data[i + 1]) << 8) |
                       static_cast<unsigned char>(data[i + 2]);
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += alphabet[(n >> 6) & 63];
    out += alphabet[n & 63];
  }
  const std::size_t rest = data.size() - i;
  if (rest > 0) {
    unsigned n = static_cast<unsigned char>(data[i]) << 16;
    if (rest == 2) n |= static_cast<unsigned char>(data[i + 1]) << 8;
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    if (rest == 2) out += alphabet[(n >> 6) & 63];
    if (!url) out.append(rest == 1 ? "==" : "=");
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text, bool url) {
  const std::string_view alphabet = url ? url_alphabet : standard_alphabet;
  std::size_t padding = 0;
  while (!text.empty() && text.back() == '=') {
    text.remove_suffix(1);
    ++padding;
  }
  // Padding, when present, has to complete the last quantum exactly.
  if (text.size() % 4 == 1 || (padding > 0 && (padding > 2 || (text.size() + padding) % 4 != 0)))
    return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  unsigned accumulator = 0;
  int bits = 0;
  for (const char c : text) {
    const auto value = alphabet.find(c);
    if (value == std::string_view::npos) return std::nullopt;
    accumulator = (accumulator << 6) | static_cast<unsigned>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((accumulator >> bits) & 0xff);
    }
  }
  return out;
}

namespace {

// What one generated certificate says.
struct certificate_spec {
  std::string common_name = "localhost";
  std::string subject_alt_names = "IP:127.0.0.1,IP:::1,DNS:localhost";
  // Validity relative to now, in seconds.
  long valid_from = -3600;
  long valid_until = 86400;
  bool is_ca = false;
};

// Issues a certificate for key, signed by issuer_key under issuer_cert's name, or
// self-signed when there is no issuer.
x509_ptr issue(const certificate_spec& spec, EVP_PKEY* key, X509* issuer_cert, EVP_PKEY* issuer_key) {
  x509_ptr cert(X509_new());
  if (!cert) fail("X509_new");
  if (X509_set_version(cert.get(), X509_VERSION_3) != 1) fail("X509_set_version");

  // A random 63-bit serial: positive, and distinct between runs so that clients caching
  // certificates by issuer and serial never confuse two instances.
  bn_ptr serial(BN_new());
  if (!serial || BN_rand(serial.get(), 63, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
      !BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())))
    fail("serial number");

  if (!X509_gmtime_adj(X509_getm_notBefore(cert.get()), spec.valid_from) ||
      !X509_gmtime_adj(X509_getm_notAfter(cert.get()), spec.valid_until))
    fail("validity");
  if (X509_set_pubkey(cert.get(), key) != 1) fail("X509_set_pubkey");

  X509_NAME* name = X509_get_subject_name(cert.get());
  if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                 reinterpret_cast<const unsigned char*>(spec.common_name.c_str()), -1, -1,
                                 0) != 1 ||
      X509_set_issuer_name(cert.get(), issuer_cert ? X509_get_subject_name(issuer_cert) : name) != 1)
    fail("subject name");

  if (spec.is_ca) {
    add_extension(cert.get(), NID_basic_constraints, "critical,CA:TRUE");
    add_extension(cert.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
    add_extension(cert.get(), NID_subject_key_identifier, "hash");
  } else {
    // No keyUsage extension: one without keyCertSign would stop OpenSSL from treating a
    // self-signed certificate as self-issued, and clients load it as their only trust anchor.
    add_extension(cert.get(), NID_basic_constraints, "critical,CA:FALSE");
    add_extension(cert.get(), NID_subject_key_identifier, "hash");
    if (issuer_cert) add_extension(cert.get(), NID_authority_key_identifier, "keyid", issuer_cert);
    add_extension(cert.get(), NID_ext_key_usage, "serverAuth");
    add_extension(cert.get(), NID_subject_alt_name, spec.subject_alt_names.c_str());
  }
  if (X509_sign(cert.get(), issuer_key ? issuer_key : key, EVP_sha256()) <= 0) fail("X509_sign");
  return cert;
}

certificate encode_certificate(X509* cert, EVP_PKEY* key) {
  certificate out;
  bio_ptr cert_bio(BIO_new(BIO_s_mem()));
  bio_ptr key_bio(BIO_new(BIO_s_mem()));
  if (!cert_bio || !key_bio || PEM_write_bio_X509(cert_bio.get(), cert) != 1 ||
      PEM_write_bio_PrivateKey(key_bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1)
    fail("PEM encoding");
  out.cert_pem = drain_bio(cert_bio.get());
  out.key_pem = drain_bio(key_bio.get());

  unsigned char* der = nullptr;
  const int der_size = i2d_X509(cert, &der);
  if (der_size <= 0) fail("i2d_X509");
  out.cert_der.assign(reinterpret_cast<char*>(der), static_cast<std::size_t>(der_size));
  OPENSSL_free(der);
  return out;
}

certificate make_certificate(const certificate_spec& spec) {
  const pkey_ptr key = generate_ec_key("P-256");
  const x509_ptr cert = issue(spec, key.get(), nullptr, nullptr);
  return encode_certificate(cert.get(), key.get());
}

}  // namespace

certificate make_self_signed_certificate() {
  return make_certificate(certificate_spec{});
}

tls_certificate_set make_tls_certificate(cert_kind kind) {
  certificate_spec spec;
  switch (kind) {
    case cert_kind::good:
      break;
    case cert_kind::expired:
      spec.valid_from = -2 * 86400;
      spec.valid_until = -86400;
      break;
    case cert_kind::wrong_name:
      spec.common_name = "wrong.example";
      spec.subject_alt_names = "DNS:wrong.example";
      break;
    case cert_kind::unknown_issuer: {
      certificate_spec ca_spec;
      ca_spec.common_name = "fake_target test CA";
      ca_spec.is_ca = true;
      const pkey_ptr ca_key = generate_ec_key("P-256");
      const x509_ptr ca = issue(ca_spec, ca_key.get(), nullptr, nullptr);
      const pkey_ptr key = generate_ec_key("P-256");
      const x509_ptr leaf = issue(spec, key.get(), ca.get(), ca_key.get());
      // The server presents the leaf alone, so a client that does not hold the CA cannot
      // build a chain: "unable to get local issuer certificate".
      tls_certificate_set out{encode_certificate(leaf.get(), key.get()), {}};
      out.trust_pem = encode_certificate(ca.get(), ca_key.get()).cert_pem;
      return out;
    }
  }
  tls_certificate_set out{make_certificate(spec), {}};
  out.trust_pem = out.served.cert_pem;
  return out;
}

std::string sha256_fingerprint(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), digest.data(), &size, EVP_sha256(), nullptr) != 1)
    fail("EVP_Digest");
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned int i = 0; i < size; ++i) {
    if (i) out += ':';
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

pkey_ptr make_p384_key() {
  return generate_ec_key("P-384");
}

std::string public_key_der(EVP_PKEY* key) {
  unsigned char* der = nullptr;
  const int size = i2d_PUBKEY(key, &der);
  if (size <= 0) fail("i2d_PUBKEY");
  std::string out(reinterpret_cast<char*>(der), static_cast<std::size_t>(size));
  OPENSSL_free(der);
  return out;
}

std::pair<std::string, std::string> public_key_xy(EVP_PKEY* key) {
  BIGNUM* x = nullptr;
  BIGNUM* y = nullptr;
  if (EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_PUB_X, &x) != 1) fail("public x");
  bn_ptr owned_x(x);
  if (EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_PUB_Y, &y) != 1) fail("public y");
  bn_ptr owned_y(y);
  std::string xs(p384_coordinate_size, '\0');
  std::string ys(p384_coordinate_size, '\0');
  if (BN_bn2binpad(x, reinterpret_cast<unsigned char*>(xs.data()), p384_coordinate_size) < 0 ||
      BN_bn2binpad(y, reinterpret_cast<unsigned char*>(ys.data()), p384_coordinate_size) < 0)
    fail("BN_bn2binpad");
  return {xs, ys};
}

pkey_ptr p384_key_from_xy(std::string_view x, std::string_view y) {
  if (x.size() != p384_coordinate_size || y.size() != p384_coordinate_size) return nullptr;
  // OSSL_PKEY_PARAM_PUB_KEY takes the uncompressed SEC1 point: 0x04 || x || y.
  std::string point = "\x04";
  point.append(x).append(y);
  param_bld_ptr builder(OSSL_PARAM_BLD_new());
  if (!builder) return nullptr;
  if (OSSL_PARAM_BLD_push_utf8_string(builder.get(), OSSL_PKEY_PARAM_GROUP_NAME, "P-384", 0) != 1)
    return nullptr;
  const int pushed =
      OSSL_PARAM_BLD_push_octet_string(builder.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size());
  if (pushed != 1) return nullptr;
  param_ptr params(OSSL_PARAM_BLD_to_param(builder.get()));
  pkey_ctx_ptr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
  EVP_PKEY* key = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &key, EVP_PKEY_PUBLIC_KEY, params.get()) != 1)
    return nullptr;
  pkey_ptr result(key);
  if (!public_key_checks_out(result.get())) return nullptr;
  return result;
}

pkey_ptr p384_key_from_der(std::string_view der) {
  const unsigned char* p = bytes_of(der);
  pkey_ptr key(d2i_PUBKEY(nullptr, &p, static_cast<long>(der.size())));
  // Trailing bytes after the SubjectPublicKeyInfo mean the claim is not what it says.
  if (!key || p != bytes_of(der) + der.size() || !is_p384(key.get()) || !public_key_checks_out(key.get()))
    return nullptr;
  return key;
}

std::string es384_sign(EVP_PKEY* key, std::string_view input) {
  md_ctx_ptr ctx(EVP_MD_CTX_new());
  std::size_t size = 0;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha384(), nullptr, key) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &size, bytes_of(input), input.size()) != 1)
    fail("EVP_DigestSign");
  std::string der(size, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(der.data()), &size, bytes_of(input),
                     input.size()) != 1)
    fail("EVP_DigestSign");
  der.resize(size);
  return der_to_raw(der);
}

bool es384_verify(EVP_PKEY* key, std::string_view input, std::string_view raw_signature) {
  if (!is_p384(key)) return false;
  const auto der = raw_to_der(raw_signature);
  if (!der) return false;
  md_ctx_ptr ctx(EVP_MD_CTX_new());
  return ctx && EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha384(), nullptr, key) == 1 &&
         EVP_DigestVerify(ctx.get(), bytes_of(*der), der->size(), bytes_of(input), input.size()) == 1;
}

}  // namespace fake_target

namespace fake_target {

pkey_ptr rsa_public_key(std::string_view n, std::string_view e) {
  bn_ptr modulus(BN_bin2bn(bytes_of(n), static_cast<int>(n.size()), nullptr));
  bn_ptr exponent(BN_bin2bn(bytes_of(e), static_cast<int>(e.size()), nullptr));
  param_bld_ptr builder(OSSL_PARAM_BLD_new());
  if (!modulus || !exponent || !builder) return nullptr;
  if (OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_N, modulus.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_E, exponent.get()) != 1)
    return nullptr;
  param_ptr params(OSSL_PARAM_BLD_to_param(builder.get()));
  pkey_ctx_ptr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr));
  EVP_PKEY* key = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &key, EVP_PKEY_PUBLIC_KEY, params.get()) != 1)
    return nullptr;
  return pkey_ptr(key);
}

bool rs256_verify(EVP_PKEY* key, std::string_view input, std::string_view signature) {
  if (EVP_PKEY_get_base_id(key) != EVP_PKEY_RSA) return false;
  md_ctx_ptr ctx(EVP_MD_CTX_new());
  return ctx && EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key) == 1 &&
         EVP_DigestVerify(ctx.get(), bytes_of(signature), signature.size(), bytes_of(input), input.size()) == 1;
}

}  // namespace fake_target
