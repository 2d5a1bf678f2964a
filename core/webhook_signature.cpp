#include "core/webhook_signature.hpp"

#include <charconv>
#include <vector>

#include "base/crypto.hpp"
#include "base/text.hpp"

namespace netherscope::core {

std::optional<std::string> make_webhook_secret() {
  auto raw = base::random_bytes(32);
  if (!raw)
    return std::nullopt;
  return "whsec_" + base::base64url_encode(*raw);
}

std::string signature_digest(std::string_view secret, std::int64_t t, std::string_view body) {
  auto signed_text = std::to_string(t);
  signed_text += '.';
  signed_text += body;
  return base::hex_lower(base::hmac_sha256(secret, signed_text));
}

std::string signature_value(std::string_view secret, std::int64_t t, std::string_view body) {
  return "t=" + std::to_string(t) + ",v1=" + signature_digest(secret, t, body);
}

signature_check verify_signature(std::string_view header_value, std::string_view secret,
                                 std::string_view body, std::int64_t now,
                                 std::int64_t tolerance) {
  std::optional<std::int64_t> t;
  std::vector<std::string_view> digests;
  for (auto part : base::split(header_value, ',')) {
    part = base::trim(part);
    auto eq = part.find('=');
    if (eq == std::string_view::npos)
      continue;
    auto key = part.substr(0, eq);
    auto value = part.substr(eq + 1);
    if (key == "t") {
      std::int64_t parsed = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
      if (t || value.empty() || value[0] == '-' || ec != std::errc{}
          || end != value.data() + value.size())
        return signature_check::malformed;
      t = parsed;
    } else if (key == "v1") {
      digests.push_back(value);
    }
  }
  if (!t || digests.empty())
    return signature_check::malformed;
  if (*t > now + tolerance || *t < now - tolerance)
    return signature_check::stale;
  auto expected = signature_digest(secret, *t, body);
  bool matched = false;
  // Every digest is compared, so the time taken does not say which one matched.
  for (auto digest : digests)
    matched = base::same_secret(expected, digest) || matched;
  return matched ? signature_check::valid : signature_check::mismatch;
}

} // namespace netherscope::core
