#include "support/wait.hpp"

#include <algorithm>
#include <thread>

namespace netherscope::test {

bool wait_until(const std::function<bool()>& predicate, std::chrono::milliseconds timeout,
                std::chrono::milliseconds poll_interval) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (predicate())
      return true;
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline)
      return false;
    // The pause only spaces out the polls; what the caller waits for is the predicate.
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
      poll_interval, deadline - now));
  }
}

} // namespace netherscope::test
