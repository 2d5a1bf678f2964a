// The outcomes the front actor's flows (front_actor, check_flow, status_flow) answer calls
// with when something failed, and the quota headers they carry.
#pragma once

#include <caf/error.hpp>

#include "core/call.hpp"

namespace netherscope::actors {


/// An outcome that is only error.
core::api_outcome failed(core::failure error);

/// outcome, showing where the caller stands.
core::api_outcome with_quota(core::api_outcome outcome, const core::quota_verdict& verdict);

/// A request the actors lost (an actor gone, a deadline missed): the caller learns only that
/// it failed, as an internal error; the cause goes to the log.
core::failure lost(const caf::error& err);

/// The same as a whole outcome.
core::api_outcome lost_reply(const caf::error& err);

} // namespace netherscope::actors
