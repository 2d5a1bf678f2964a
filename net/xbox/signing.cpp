#include "net/xbox/signing.hpp"

#include <boost/endian/conversion.hpp>

#include "base/text.hpp"

namespace netherscope::net::xbox {

namespace {

// 100-ns ticks between 1601-01-01 and 1970-01-01.
constexpr std::int64_t filetime_unix_epoch = 116'444'736'000'000'000;

template <class UInt>
void put_be(std::string& out, UInt value) {
  unsigned char raw[sizeof(UInt)];
  boost::endian::endian_store<UInt, sizeof(UInt), boost::endian::order::big>(raw, value);
  out.append(reinterpret_cast<const char*>(raw), sizeof(UInt));
}

} // namespace

std::int64_t windows_filetime(std::int64_t unix_ms) {
  return unix_ms * 10'000 + filetime_unix_epoch;
}

std::string signature_input(std::int64_t filetime, std::string_view method,
                            std::string_view path_and_query, std::string_view authorization,
                            std::string_view body) {
  std::string in;
  in.reserve(32 + method.size() + path_and_query.size() + authorization.size() + body.size());
  put_be(in, signature_policy_version);
  in.push_back('\0');
  put_be(in, static_cast<std::uint64_t>(filetime));
  in.push_back('\0');
  for (auto part : {method, path_and_query, authorization, body}) {
    in += part;
    in.push_back('\0');
  }
  return in;
}

std::optional<std::string> signature_header(EVP_PKEY& key, std::int64_t filetime,
                                            std::string_view method,
                                            std::string_view path_and_query,
                                            std::string_view authorization,
                                            std::string_view body) {
  if (base::key_curve(key) != base::ec_curve::p256)
    return std::nullopt;
  // ecdsa_sign_p1363 hashes with SHA-256 for a P-256 key, which is the digest Xbox signs.
  auto sig = base::ecdsa_sign_p1363(
    key, signature_input(filetime, method, path_and_query, authorization, body));
  if (!sig || sig->size() != 64)
    return std::nullopt;
  std::string raw;
  put_be(raw, signature_policy_version);
  put_be(raw, static_cast<std::uint64_t>(filetime));
  raw += *sig;
  return base::base64_encode(raw);
}

bool sign_call(http_call& call, EVP_PKEY& key, std::int64_t unix_ms) {
  auto path = path_of(call.url);
  if (path.empty())
    return false;
  auto value = signature_header(key, windows_filetime(unix_ms), call.method, path,
                                call.header_value("Authorization"), call.body);
  if (!value)
    return false;
  call.headers.emplace_back("Signature", std::move(*value));
  return true;
}

std::optional<boost::json::object> proof_key(const EVP_PKEY& key) {
  if (base::key_curve(key) != base::ec_curve::p256)
    return std::nullopt;
  auto xy = base::ec_public_xy(key);
  if (!xy)
    return std::nullopt;
  return boost::json::object{{"kty", "EC"},
                             {"alg", "ES256"},
                             {"crv", "P-256"},
                             {"use", "sig"},
                             {"x", base::base64url_encode(xy->first)},
                             {"y", base::base64url_encode(xy->second)}};
}

std::string make_device_id() {
  auto raw = base::random_bytes(16);
  if (!raw)
    return {};
  auto& b = *raw;
  b[6] = static_cast<char>((static_cast<unsigned char>(b[6]) & 0x0F) | 0x40); // version 4
  b[8] = static_cast<char>((static_cast<unsigned char>(b[8]) & 0x3F) | 0x80); // RFC 4122 variant
  auto hex = base::hex_lower(b);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-"
         + hex.substr(16, 4) + "-" + hex.substr(20);
}

} // namespace netherscope::net::xbox
