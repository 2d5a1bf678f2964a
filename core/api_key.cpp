#include "core/api_key.hpp"

#include "base/crypto.hpp"
#include "base/text.hpp"

namespace netherscope::core {

namespace {

constexpr std::string_view key_prefix = "nsk_";
constexpr std::size_t key_bytes = 32;

} // namespace

std::optional<std::string> make_api_key() {
  auto bytes = base::random_bytes(key_bytes);
  if (!bytes)
    return std::nullopt;
  return std::string{key_prefix} + base::base64url_encode(*bytes);
}

std::string hash_api_key(std::string_view key) {
  return base::sha256(key);
}

std::string key_from_headers(std::string_view x_api_key, std::string_view authorization) {
  if (auto key = base::trim(x_api_key); !key.empty())
    return std::string{key};
  auto auth = base::trim(authorization);
  constexpr std::string_view bearer = "bearer ";
  if (auth.size() > bearer.size() && base::istarts_with(auth, bearer))
    return std::string{base::trim(auth.substr(bearer.size()))};
  return {};
}

} // namespace netherscope::core
