#include "core/offer_outcome.hpp"

#include "core/api_json.hpp"
#include "core/telemetry.hpp"

namespace netherscope::core {

api_outcome offer_outcome(quota_verdict&& verdict, failure&& error,
                          std::shared_ptr<const std::string>&& body, std::int64_t age,
                          std::vector<std::uint16_t>&& expected_ports) {
  api_outcome outcome;
  if (!verdict.error.ok()) {
    // Refused by its quota (or the store failed): nothing was served.
    outcome.error = verdict.error;
  } else {
    outcome.error = std::move(error);
    if (outcome.error.ok()) {
      outcome.shared_body = std::move(body);
      outcome.age = age;
      outcome.expect_ports = std::move(expected_ports);
    }
  }
  outcome.has_quota = true;
  outcome.quota = std::move(verdict);
  return outcome;
}

void finish_offer(api_outcome& outcome) {
  if (!outcome.error.ok())
    return;
  if (outcome.board_hit)
    process_telemetry().count_cache_hit();
  // Read only when ports are expected: the warning needs the candidates parsed.
  if (!outcome.expect_ports.empty() && outcome.shared_body) {
    outcome.body = core::with_expected_ports(*outcome.shared_body, outcome.expect_ports);
    outcome.shared_body.reset();
  }
}

} // namespace netherscope::core
