// Test support: waiting for a condition with a deadline, instead of sleeping and hoping.
#pragma once

#include <chrono>
#include <functional>

namespace netherscope::test {

/// Polls predicate until it returns true or timeout has passed; returns whether it did.
///
/// The predicate is asked once more at the deadline, so a slow poll never costs the last
/// chance. Use it as `REQUIRE(wait_until(...))` with an `INFO` naming the condition, so a
/// timeout fails the test with a clear message instead of hanging or passing by luck.
bool wait_until(const std::function<bool()>& predicate, std::chrono::milliseconds timeout,
                std::chrono::milliseconds poll_interval = std::chrono::milliseconds(10));

} // namespace netherscope::test
