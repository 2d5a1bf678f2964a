// tests/support/missing_part: a case that lacks a part warns and passes outside CI, and fails
// under CI=1. The case that lacks one is hidden ([.]); this binary runs it as a child.
#include <catch2/catch.hpp>

#include <unistd.h>

#include "support/missing_part.hpp"
#include "support/process.hpp"

using namespace std::chrono_literals;

TEST_CASE("missing part: a case that needs a part not here", "[.missing_part_probe]") {
  netherscope::test::missing_part("the probe's part is not installed");
}

TEST_CASE("missing part: a warning outside CI, a failure under CI=1", "[missing_part]") {
  // This binary, through env(1), so that CI is the one given whatever this run's is.
  char self[4096] = {};
  auto n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  REQUIRE(n > 0);
  auto run = [&](const std::string& ci) {
    netherscope::test::child_process probe{
      {"/usr/bin/env", "CI=" + ci, std::string(self, static_cast<std::size_t>(n)),
       "[.missing_part_probe]"}};
    return probe.wait(20s);
  };
  CHECK(run("0") == 0);
  CHECK(run("1") == 1);
}
