#include "actors/outcomes.hpp"

#include <caf/all.hpp>

#include "net/base/log.hpp"

namespace netherscope::actors {

namespace base = net::base;

api::api_outcome failed(api::failure error) {
  api::api_outcome outcome;
  outcome.error = std::move(error);
  return outcome;
}

api::api_outcome with_quota(api::api_outcome outcome, const api::quota_verdict& verdict) {
  outcome.has_quota = true;
  outcome.quota = verdict;
  return outcome;
}

api::failure lost(const caf::error& err) {
  base::log::write(base::log::level::error, "actor_request_failed",
                   {{"error", caf::to_string(err)}});
  return api::make_failure(api::error_code::internal, "the request could not be completed");
}

api::api_outcome lost_reply(const caf::error& err) {
  return failed(lost(err));
}

} // namespace netherscope::actors
