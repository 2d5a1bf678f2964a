// The outcome of an offer call, built one way for both of its paths: the front actor's (the
// charge, then the cache actor) and the edge bridge's (the io thread's hit board, then only
// the charge). Building it only moves values, so it may run on whichever thread finished the
// call; the body is read and rewritten once, by the edge, on the io thread that renders it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/call.hpp"
#include "core/failure.hpp"
#include "core/quota.hpp"

namespace netherscope::core {

/// The outcome of an offer call whose charge has its verdict: the verdict's refusal, or what
/// was served (error, or body and its age in seconds, -1 for a fresh answer) with the UDP
/// ports the caller expects. Only moves values.
api_outcome offer_outcome(quota_verdict&& verdict, failure&& error,
                          std::shared_ptr<const std::string>&& body, std::int64_t age,
                          std::vector<std::uint16_t>&& expected_ports);

/// Finishes an outcome on the io thread that renders it: an offer body gets the warning for
/// expected ports its candidates do not use, and a hit the edge bridge served is counted.
void finish_offer(api_outcome& outcome);

} // namespace netherscope::core
