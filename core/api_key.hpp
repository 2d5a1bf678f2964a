// API keys: "nsk_" + 32 random bytes in base64url, shown once; only their SHA-256 is kept.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace netherscope::core {

/// A new key from OpenSSL's generator; nullopt only if the generator fails.
std::optional<std::string> make_api_key();

/// The raw SHA-256 of a key: what storage keeps and looks keys up by.
std::string hash_api_key(std::string_view key);

/// Reads the key from X-API-Key, or from "Authorization: Bearer <key>". Empty when neither.
std::string key_from_headers(std::string_view x_api_key, std::string_view authorization);

} // namespace netherscope::core
