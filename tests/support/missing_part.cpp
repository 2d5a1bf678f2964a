#include "support/missing_part.hpp"

#include <cstdlib>
#include <cstring>

#include <catch2/catch.hpp>

namespace netherscope::test {

void missing_part(const std::string& why) {
  const char* ci = std::getenv("CI");
  if (ci != nullptr && std::strcmp(ci, "1") == 0)
    FAIL(why << " (under CI=1 every part must be installed: WITH_TESTS=1 tools/setup.sh)");
  WARN(why);
}

} // namespace netherscope::test
