// The outcomes the front actor's flows (front_actor, check_flow, status_flow) answer calls
// with when something failed, and the quota headers they carry.
#pragma once

#include <caf/error.hpp>

#include "net/api/call.hpp"

namespace netherscope::actors {

namespace api = net::api;

/// An outcome that is only error.
api::api_outcome failed(api::failure error);

/// outcome, showing where the caller stands.
api::api_outcome with_quota(api::api_outcome outcome, const api::quota_verdict& verdict);

/// A request the actors lost (an actor gone, a deadline missed): the caller learns only that
/// it failed, as an internal error; the cause goes to the log.
api::failure lost(const caf::error& err);

/// The same as a whole outcome.
api::api_outcome lost_reply(const caf::error& err);

} // namespace netherscope::actors
