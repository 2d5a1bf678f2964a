// How long the parts of sign-in live. The edge sets cookie lifetimes from these and the
// actors and the store expire records by them, so each is written once, here.
#pragma once

#include <cstdint>

namespace netherscope::core {

/// How long a sign-in may take from start to callback: the state's lifetime and the binding
/// cookie's Max-Age.
constexpr std::int64_t signin_state_lifetime_seconds = 600;

/// How long an account page session lasts: the session record's lifetime and the session
/// cookie's Max-Age. An hour is plenty to look at usage or get a new key, and short enough
/// that a forgotten session on a shared computer soon stops working.
constexpr std::int64_t session_lifetime_seconds = 3600;

} // namespace netherscope::core
