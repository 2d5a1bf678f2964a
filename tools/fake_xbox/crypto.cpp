#include "crypto.hpp"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <openssl/x509.h>

#include <array>
#include <stdexcept>

namespace fake_xbox {

namespace {

constexpr std::string_view std_alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view url_alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

[[noreturn]] void fail(const char* what) { throw std::runtime_error(std::string("OpenSSL: ") + what); }

struct bn_free {
  void operator()(BIGNUM* b) const { BN_free(b); }
};
using bignum = std::unique_ptr<BIGNUM, bn_free>;

struct openssl_buffer_free {
  void operator()(unsigned char* p) const { OPENSSL_free(p); }
};

std::string bn_bytes(const BIGNUM* b) {
  std::string out(static_cast<std::size_t>(BN_num_bytes(b)), '\0');
  BN_bn2bin(b, reinterpret_cast<unsigned char*>(out.data()));
  return out;
}

}  // namespace

std::string to_base64(std::string_view bytes, bool url) {
  const auto alphabet = url ? url_alphabet : std_alphabet;
  std::string out;
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                       (static_cast<unsigned char>(bytes[i + 1]) << 8) | static_cast<unsigned char>(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += alphabet[(v >> shift) & 63];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (rest == 2) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    if (rest == 2) out += alphabet[(v >> 6) & 63];
    if (!url) out.append(3 - rest, '=');
  }
  return out;
}

std::optional<std::string> from_base64(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  std::string out;
  unsigned acc = 0;
  int bits = 0;
  for (char c : text) {
    const int v = sextet(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  if (bits >= 6) return std::nullopt;  // a lone trailing character carries no whole byte
  return out;
}

std::string digest(std::string_view bytes, bool sha1) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), out.data(), &length, sha1 ? EVP_sha1() : EVP_sha256(), nullptr) != 1)
    fail("digest");
  return std::string(reinterpret_cast<const char*>(out.data()), length);
}

std::string upper_hex(std::string_view bytes) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string random_bytes(std::size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) fail("RAND_bytes");
  return out;
}

std::string random_token(std::string_view prefix, std::size_t n) {
  return std::string(prefix) + to_base64(random_bytes(n), true);
}

pkey p256_from_jwk(std::string_view x_b64url, std::string_view y_b64url) {
  const auto x = from_base64(x_b64url);
  const auto y = from_base64(y_b64url);
  if (!x || !y || x->size() != 32 || y->size() != 32) return nullptr;
  std::string point = "\x04" + *x + *y;
  std::unique_ptr<OSSL_PARAM_BLD, decltype(&OSSL_PARAM_BLD_free)> build(OSSL_PARAM_BLD_new(), OSSL_PARAM_BLD_free);
  if (!build ||
      !OSSL_PARAM_BLD_push_utf8_string(build.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) ||
      !OSSL_PARAM_BLD_push_octet_string(build.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size()))
    return nullptr;
  std::unique_ptr<OSSL_PARAM, decltype(&OSSL_PARAM_free)> params(OSSL_PARAM_BLD_to_param(build.get()),
                                                                 OSSL_PARAM_free);
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr),
                                                                  EVP_PKEY_CTX_free);
  EVP_PKEY* raw = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params.get()) != 1)
    return nullptr;
  pkey key(raw);
  // fromdata does not check that the point lies on the curve; a public-key check does.
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> check(EVP_PKEY_CTX_new(key.get(), nullptr),
                                                                    EVP_PKEY_CTX_free);
  if (!check || EVP_PKEY_public_check(check.get()) != 1) return nullptr;
  return key;
}

bool p256_verify(EVP_PKEY* key, std::string_view message, std::string_view sig) {
  if (key == nullptr || sig.size() != 64) return false;
  const auto* raw = reinterpret_cast<const unsigned char*>(sig.data());
  bignum r(BN_bin2bn(raw, 32, nullptr));
  bignum s(BN_bin2bn(raw + 32, 32, nullptr));
  std::unique_ptr<ECDSA_SIG, decltype(&ECDSA_SIG_free)> ecdsa(ECDSA_SIG_new(), ECDSA_SIG_free);
  if (!r || !s || !ecdsa || ECDSA_SIG_set0(ecdsa.get(), r.get(), s.get()) != 1) return false;
  r.release();  // owned by the signature now
  s.release();
  unsigned char* der = nullptr;
  const int der_length = i2d_ECDSA_SIG(ecdsa.get(), &der);
  if (der_length <= 0) return false;
  std::unique_ptr<unsigned char, openssl_buffer_free> der_owner(der);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  return md && EVP_DigestVerifyInit(md.get(), nullptr, EVP_sha256(), nullptr, key) == 1 &&
         EVP_DigestVerify(md.get(), der, static_cast<std::size_t>(der_length),
                          reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
}

std::string ec_curve_of_spki(std::string_view der) {
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  pkey key(d2i_PUBKEY(nullptr, &p, static_cast<long>(der.size())));
  if (!key || p != reinterpret_cast<const unsigned char*>(der.data()) + der.size() ||
      EVP_PKEY_get_base_id(key.get()) != EVP_PKEY_EC)
    return {};
  char name[64] = {};
  std::size_t length = 0;
  if (EVP_PKEY_get_group_name(key.get(), name, sizeof name, &length) != 1) return {};
  return std::string(name, length);
}

issuer_key make_issuer_key() {
  issuer_key out;
  out.key.reset(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<std::size_t>(2048)));
  if (!out.key) fail("RSA key generation");

  std::unique_ptr<X509, decltype(&X509_free)> cert(X509_new(), X509_free);
  if (!cert || X509_set_version(cert.get(), X509_VERSION_3) != 1 ||
      ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1) != 1 ||
      !X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) ||
      !X509_gmtime_adj(X509_getm_notAfter(cert.get()), 7L * 24 * 3600))
    fail("certificate");
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("fake_xbox issuer"), -1, -1, 0);
  if (X509_set_issuer_name(cert.get(), name) != 1 || X509_set_pubkey(cert.get(), out.key.get()) != 1 ||
      X509_sign(cert.get(), out.key.get(), EVP_sha256()) <= 0)
    fail("certificate signature");
  std::array<unsigned char, EVP_MAX_MD_SIZE> thumb{};
  unsigned int thumb_length = 0;
  if (X509_digest(cert.get(), EVP_sha1(), thumb.data(), &thumb_length) != 1) fail("thumbprint");
  out.kid = upper_hex(std::string_view(reinterpret_cast<const char*>(thumb.data()), thumb_length));

  BIGNUM* n = nullptr;
  BIGNUM* e = nullptr;
  if (EVP_PKEY_get_bn_param(out.key.get(), OSSL_PKEY_PARAM_RSA_N, &n) != 1 ||
      EVP_PKEY_get_bn_param(out.key.get(), OSSL_PKEY_PARAM_RSA_E, &e) != 1)
    fail("RSA parameters");
  bignum n_owner(n), e_owner(e);
  out.n = to_base64(bn_bytes(n), true);
  out.e = to_base64(bn_bytes(e), true);
  return out;
}

std::string rs256_sign(EVP_PKEY* key, std::string_view signing_input) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  std::size_t length = 0;
  if (!md || EVP_DigestSignInit(md.get(), nullptr, EVP_sha256(), nullptr, key) != 1 ||
      EVP_DigestSign(md.get(), nullptr, &length, reinterpret_cast<const unsigned char*>(signing_input.data()),
                     signing_input.size()) != 1)
    fail("RS256");
  std::string sig(length, '\0');
  if (EVP_DigestSign(md.get(), reinterpret_cast<unsigned char*>(sig.data()), &length,
                     reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size()) != 1)
    fail("RS256");
  sig.resize(length);
  return to_base64(sig, true);
}

}  // namespace fake_xbox
