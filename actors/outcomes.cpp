#include "actors/outcomes.hpp"

#include <caf/all.hpp>

#include "base/log.hpp"

namespace netherscope::actors {


core::api_outcome failed(core::failure error) {
  core::api_outcome outcome;
  outcome.error = std::move(error);
  return outcome;
}

core::api_outcome with_quota(core::api_outcome outcome, const core::quota_verdict& verdict) {
  outcome.has_quota = true;
  outcome.quota = verdict;
  return outcome;
}

core::failure lost(const caf::error& err) {
  base::log::write(base::log::level::error, "actor_request_failed",
                   {{"error", caf::to_string(err)}});
  return core::make_failure(core::error_code::internal, "the request could not be completed");
}

core::api_outcome lost_reply(const caf::error& err) {
  return failed(lost(err));
}

} // namespace netherscope::actors
