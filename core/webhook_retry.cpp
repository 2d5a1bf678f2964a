#include "core/webhook_retry.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/crypto.hpp"

namespace netherscope::core {

std::int64_t retry_delay(const retry_policy& policy, unsigned retry, double draw) {
  auto delay = std::max<std::int64_t>(policy.first_delay, 1);
  for (unsigned i = 1; i < retry && delay < policy.longest_delay; ++i)
    delay *= std::max<std::int64_t>(policy.growth, 1);
  delay = std::min(delay, std::max<std::int64_t>(policy.longest_delay, 1));
  auto unit = std::clamp(draw, 0.0, 1.0);
  auto share = std::clamp(policy.jitter, 0.0, 1.0);
  auto cut = static_cast<std::int64_t>(std::floor(static_cast<double>(delay) * share * unit));
  return std::max<std::int64_t>(delay - cut, 1);
}

std::optional<std::int64_t> next_retry(const retry_policy& policy, std::int64_t first_try,
                                       std::int64_t failed_at, unsigned failures, double draw) {
  auto at = failed_at + retry_delay(policy, std::max(failures, 1u), draw);
  if (at > first_try + policy.retry_for)
    return std::nullopt;
  return at;
}

double jitter_draw(std::string_view delivery_id, unsigned retry) {
  auto digest = base::sha256(std::string{delivery_id} + "#" + std::to_string(retry));
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < 8 && i < digest.size(); ++i)
    bits = (bits << 8) | static_cast<unsigned char>(digest[i]);
  // The top 53 bits, as a double in [0, 1).
  return static_cast<double>(bits >> 11) / 9007199254740992.0;
}

} // namespace netherscope::core
