#include "base/crypto.hpp"

#include <climits>

#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/params.h>
#include <openssl/rand.h>

namespace netherscope::base {

namespace {

// -- base64 over OpenSSL's block functions --

// OpenSSL's block functions take int lengths; longer inputs go through in slices this big
// (multiples of 3 bytes in and 4 characters out, so the slices join without padding between).
constexpr std::size_t encode_slice = 3 * (std::size_t{1} << 20);
constexpr std::size_t decode_slice = 4 * (std::size_t{1} << 20);

// Padded standard base64 of data, through EVP_EncodeBlock.
std::string encode_std(std::string_view data) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  for (std::size_t at = 0; at < data.size(); at += encode_slice) {
    auto slice = data.substr(at, encode_slice);
    auto begin = out.size();
    // EVP_EncodeBlock writes a terminating NUL after the characters; leave room for it.
    out.resize(begin + (slice.size() + 2) / 3 * 4 + 1);
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data() + begin),
                            reinterpret_cast<const unsigned char*>(slice.data()),
                            static_cast<int>(slice.size()));
    out.resize(begin + static_cast<std::size_t>(n));
  }
  return out;
}

// Decodes padded standard base64 strictly. EVP_DecodeBlock alone is lenient: it skips leading
// and trailing whitespace, reads "=" anywhere as zero bits, ignores the bits the last
// character carries beyond the data, and counts padding as zero bytes. So the text is taken
// only when it is exactly the encoding of what it decodes to, which refuses every one of those
// (and a bad length or character, which EVP_DecodeBlock already refuses).
std::optional<std::string> decode_std(std::string_view text) {
  if (text.size() % 4 != 0)
    return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t at = 0; at < text.size(); at += decode_slice) {
    auto slice = text.substr(at, decode_slice);
    auto begin = out.size();
    out.resize(begin + slice.size() / 4 * 3);
    int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data() + begin),
                            reinterpret_cast<const unsigned char*>(slice.data()),
                            static_cast<int>(slice.size()));
    if (n < 0)
      return std::nullopt;
    out.resize(begin + static_cast<std::size_t>(n));
  }
  // At most two "=" can be padding; the check below refuses a third.
  std::size_t pad = 0;
  while (pad < 2 && pad < text.size() && text[text.size() - 1 - pad] == '=')
    ++pad;
  if (out.size() < pad)
    return std::nullopt;
  out.resize(out.size() - pad);
  if (encode_std(out) != text)
    return std::nullopt;
  return out;
}

const unsigned char* bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

unsigned char* bytes(std::string& s) {
  return reinterpret_cast<unsigned char*>(s.data());
}

// OpenSSL's short name for each curve, as EVP_PKEY_get_group_name reports it.
const char* group_name(ec_curve curve) {
  return curve == ec_curve::p384 ? "secp384r1" : "prime256v1";
}

int field_bytes(ec_curve curve) {
  return curve == ec_curve::p384 ? 48 : 32;
}

const EVP_MD* digest_for(ec_curve curve) {
  return curve == ec_curve::p384 ? EVP_sha384() : EVP_sha256();
}

} // namespace

// -- randomness, encodings, digests --

std::optional<std::string> random_bytes(std::size_t n) {
  error_queue_mark mark;
  if (n > static_cast<std::size_t>(INT_MAX))
    return std::nullopt;
  std::string out(n, '\0');
  if (n > 0 && RAND_bytes(bytes(out), static_cast<int>(n)) != 1)
    return std::nullopt;
  return out;
}

std::string base64_encode(std::string_view data) {
  return encode_std(data);
}

std::optional<std::string> base64_decode(std::string_view text) {
  return decode_std(text);
}

// base64url is the standard alphabet with "-" for "+" and "_" for "/" (RFC 4648 §5); JOSE
// leaves the padding off.
std::string base64url_encode(std::string_view data) {
  auto out = encode_std(data);
  for (auto& c : out)
    c = c == '+' ? '-' : c == '/' ? '_' : c;
  while (!out.empty() && out.back() == '=')
    out.pop_back();
  return out;
}

std::optional<std::string> base64url_decode(std::string_view text) {
  std::string std_text;
  std_text.reserve(text.size() + 2);
  for (char c : text) {
    // "+" and "/" belong to the other alphabet; "!" is in neither, so decode_std refuses it.
    std_text += c == '-' ? '+' : c == '_' ? '/' : c == '+' || c == '/' ? '!' : c;
  }
  // Padding is optional, but padding that is there must be complete.
  if (std_text.size() % 4 != 0) {
    if (!std_text.empty() && std_text.back() == '=')
      return std::nullopt;
    std_text.append(4 - std_text.size() % 4, '=');
  }
  return decode_std(std_text);
}

bool same_secret(std::string_view a, std::string_view b) {
  return a.size() == b.size() && !a.empty() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string sha256(std::string_view data) {
  error_queue_mark mark;
  std::string out(EVP_MAX_MD_SIZE, '\0');
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), bytes(out), &len, EVP_sha256(), nullptr) != 1)
    return {};
  out.resize(len);
  return out;
}

namespace {

/// HMAC with the named digest; empty when OpenSSL fails.
std::string hmac(const char* digest, std::string_view key, std::string_view data) {
  error_queue_mark mark;
  // EVP_Q_mac dereferences the key; an empty key (no ice-pwd) still needs a valid pointer.
  static const unsigned char no_key = 0;
  const void* key_bytes = key.empty() ? &no_key : static_cast<const void*>(key.data());
  std::string out(EVP_MAX_MD_SIZE, '\0');
  std::size_t len = 0;
  if (EVP_Q_mac(nullptr, "HMAC", nullptr, digest, nullptr, key_bytes, key.size(), bytes(data),
                data.size(), bytes(out), out.size(), &len)
      == nullptr)
    return {};
  out.resize(len);
  return out;
}

} // namespace

std::string hmac_sha1(std::string_view key, std::string_view data) {
  return hmac("SHA1", key, data);
}

std::string hmac_sha256(std::string_view key, std::string_view data) {
  return hmac("SHA256", key, data);
}

std::string hex_colon(std::string_view raw) {
  error_queue_mark mark;
  if (raw.size() > static_cast<std::size_t>(LONG_MAX))
    return {};
  // OPENSSL_buf2hexstr writes exactly the SDP fingerprint form: uppercase pairs joined by ':'.
  std::unique_ptr<char, openssl_free> text{
    OPENSSL_buf2hexstr(bytes(raw), static_cast<long>(raw.size()))};
  return text ? std::string{text.get()} : std::string{};
}

// -- keys --

pkey_ptr generate_ec_key(ec_curve curve) {
  error_queue_mark mark;
  // EVP_PKEY_Q_keygen is variadic: the EC form takes the curve name as a char*.
  return pkey_ptr{
    EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", curve == ec_curve::p384 ? "P-384" : "P-256")};
}

std::optional<ec_curve> key_curve(const EVP_PKEY& key) {
  error_queue_mark mark;
  if (EVP_PKEY_is_a(&key, "EC") != 1)
    return std::nullopt;
  char name[64] = {};
  std::size_t len = 0;
  if (EVP_PKEY_get_group_name(&key, name, sizeof(name), &len) != 1)
    return std::nullopt;
  int nid = OBJ_sn2nid(name);
  if (nid == NID_undef)
    nid = EC_curve_nist2nid(name);
  if (nid == NID_X9_62_prime256v1)
    return ec_curve::p256;
  if (nid == NID_secp384r1)
    return ec_curve::p384;
  return std::nullopt;
}

std::optional<std::string> public_key_der(const EVP_PKEY& key) {
  error_queue_mark mark;
  int len = i2d_PUBKEY(&key, nullptr);
  if (len <= 0)
    return std::nullopt;
  std::string out(static_cast<std::size_t>(len), '\0');
  auto* p = bytes(out);
  if (i2d_PUBKEY(&key, &p) != len)
    return std::nullopt;
  return out;
}

pkey_ptr public_key_from_der(std::string_view der) {
  error_queue_mark mark;
  if (der.empty() || der.size() > static_cast<std::size_t>(LONG_MAX))
    return nullptr;
  const auto* p = bytes(der);
  pkey_ptr key{d2i_PUBKEY(nullptr, &p, static_cast<long>(der.size()))};
  if (!key || p != bytes(der) + der.size())
    return nullptr;
  return key;
}

std::optional<std::string> private_key_der(const EVP_PKEY& key) {
  error_queue_mark mark;
  pkcs8_ptr info{EVP_PKEY2PKCS8(&key)};
  if (!info)
    return std::nullopt;
  int len = i2d_PKCS8_PRIV_KEY_INFO(info.get(), nullptr);
  if (len <= 0)
    return std::nullopt;
  std::string out(static_cast<std::size_t>(len), '\0');
  auto* p = bytes(out);
  if (i2d_PKCS8_PRIV_KEY_INFO(info.get(), &p) != len)
    return std::nullopt;
  return out;
}

pkey_ptr private_key_from_der(std::string_view der) {
  error_queue_mark mark;
  if (der.empty() || der.size() > static_cast<std::size_t>(LONG_MAX))
    return nullptr;
  const auto* p = bytes(der);
  pkcs8_ptr info{d2i_PKCS8_PRIV_KEY_INFO(nullptr, &p, static_cast<long>(der.size()))};
  if (!info || p != bytes(der) + der.size())
    return nullptr;
  return pkey_ptr{EVP_PKCS82PKEY(info.get())};
}

std::optional<std::pair<std::string, std::string>> ec_public_xy(const EVP_PKEY& key) {
  error_queue_mark mark;
  auto curve = key_curve(key);
  if (!curve)
    return std::nullopt;
  BIGNUM* raw_x = nullptr;
  BIGNUM* raw_y = nullptr;
  EVP_PKEY_get_bn_param(&key, OSSL_PKEY_PARAM_EC_PUB_X, &raw_x);
  EVP_PKEY_get_bn_param(&key, OSSL_PKEY_PARAM_EC_PUB_Y, &raw_y);
  bignum_ptr x{raw_x};
  bignum_ptr y{raw_y};
  if (!x || !y)
    return std::nullopt;
  int width = field_bytes(*curve);
  std::string xs(static_cast<std::size_t>(width), '\0');
  std::string ys(static_cast<std::size_t>(width), '\0');
  if (BN_bn2binpad(x.get(), bytes(xs), width) != width
      || BN_bn2binpad(y.get(), bytes(ys), width) != width)
    return std::nullopt;
  return std::make_pair(std::move(xs), std::move(ys));
}

pkey_ptr ec_public_from_xy(ec_curve curve, std::string_view x, std::string_view y) {
  error_queue_mark mark;
  auto width = static_cast<std::size_t>(field_bytes(curve));
  if (x.size() != width || y.size() != width)
    return nullptr;
  std::string point;
  point.reserve(1 + 2 * width);
  point += '\x04'; // uncompressed point: 04 || x || y
  point.append(x);
  point.append(y);
  std::string group = group_name(curve);
  OSSL_PARAM params[] = {
    OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group.data(), 0),
    OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size()),
    OSSL_PARAM_construct_end(),
  };
  pkey_ctx_ptr ctx{EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr)};
  if (!ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1)
    return nullptr;
  EVP_PKEY* raw = nullptr;
  if (EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params) != 1)
    return nullptr;
  pkey_ptr key{raw};
  // fromdata already refuses points off the curve; check explicitly all the same, because
  // the coordinates come from strangers.
  pkey_ctx_ptr check{EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr)};
  if (!check || EVP_PKEY_public_check(check.get()) != 1)
    return nullptr;
  return key;
}

// -- ECDSA in the P1363 form --

std::optional<std::string> ecdsa_sign_p1363(EVP_PKEY& key, std::string_view data) {
  error_queue_mark mark;
  auto curve = key_curve(key);
  if (!curve)
    return std::nullopt;
  md_ctx_ptr ctx{EVP_MD_CTX_new()};
  if (!ctx
      || EVP_DigestSignInit(ctx.get(), nullptr, digest_for(*curve), nullptr, &key) != 1)
    return std::nullopt;
  std::size_t len = 0;
  if (EVP_DigestSign(ctx.get(), nullptr, &len, bytes(data), data.size()) != 1)
    return std::nullopt;
  std::string der(len, '\0');
  if (EVP_DigestSign(ctx.get(), bytes(der), &len, bytes(data), data.size()) != 1)
    return std::nullopt;
  der.resize(len);
  const auto* p = bytes(std::string_view{der});
  ecdsa_sig_ptr sig{d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size()))};
  if (!sig)
    return std::nullopt;
  const BIGNUM* r = nullptr;
  const BIGNUM* s = nullptr;
  ECDSA_SIG_get0(sig.get(), &r, &s);
  int width = field_bytes(*curve);
  std::string out(static_cast<std::size_t>(2 * width), '\0');
  if (BN_bn2binpad(r, bytes(out), width) != width
      || BN_bn2binpad(s, bytes(out) + width, width) != width)
    return std::nullopt;
  return out;
}

bool ecdsa_verify_p1363(EVP_PKEY& key, std::string_view data, std::string_view sig) {
  error_queue_mark mark;
  auto curve = key_curve(key);
  if (!curve)
    return false;
  auto width = static_cast<std::size_t>(field_bytes(*curve));
  if (sig.size() != 2 * width)
    return false;
  bignum_ptr r{BN_bin2bn(bytes(sig), static_cast<int>(width), nullptr)};
  bignum_ptr s{BN_bin2bn(bytes(sig) + width, static_cast<int>(width), nullptr)};
  ecdsa_sig_ptr es{ECDSA_SIG_new()};
  if (!r || !s || !es || ECDSA_SIG_set0(es.get(), r.get(), s.get()) != 1)
    return false;
  // ECDSA_SIG_set0 took ownership of r and s.
  static_cast<void>(r.release());
  static_cast<void>(s.release());
  int len = i2d_ECDSA_SIG(es.get(), nullptr);
  if (len <= 0)
    return false;
  std::string der(static_cast<std::size_t>(len), '\0');
  auto* p = bytes(der);
  if (i2d_ECDSA_SIG(es.get(), &p) != len)
    return false;
  md_ctx_ptr ctx{EVP_MD_CTX_new()};
  if (!ctx
      || EVP_DigestVerifyInit(ctx.get(), nullptr, digest_for(*curve), nullptr, &key) != 1)
    return false;
  return EVP_DigestVerify(ctx.get(), bytes(std::string_view{der}), der.size(), bytes(data),
                          data.size())
         == 1;
}

} // namespace netherscope::base
