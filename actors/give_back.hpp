// Calls counted and then not made: the flows that charge before they know (check, join) give
// them back to the counter that charged them, as POST /api/offer does for the per-target
// limit (PRODUCT.md "Quotas").
#pragma once

#include "actors/front_actor.hpp"

namespace netherscope::actors {


/// Gives back `calls` counted calls of `what`, then replies with outcome. With show_after the
/// reply shows the quota as it stands after the refunds (when the store could be written).
void give_back(front_actor::pointer self, const front_peers& peers,
               const front_settings& settings, core::endpoint what, const core::api_call& call,
               const core::quota_verdict& charged, core::api_outcome outcome, bool show_after,
               unsigned calls = 1);

} // namespace netherscope::actors
