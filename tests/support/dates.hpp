// Test support: fixed instants the tests share, so that two tests speak of the same day.
#pragma once

#include <cstdint>

namespace netherscope::test {

/// 2026-11-22T12:00:00Z: "now" in the quota and record tests.
inline constexpr std::int64_t nov_22 = 1795348800;

/// 2026-12-01T00:00:00Z: the next month's first second after nov_22.
inline constexpr std::int64_t dec_1 = 1796083200;

/// 2025-10-09T09:00:00Z: an hour's start (and a 15-minute cell's) in the history tests.
inline constexpr std::int64_t h0 = 1760000400;

} // namespace netherscope::test
