// What every harness shares: a property check that stops the run with the property's name.
//
// libFuzzer treats an abort as a crash and keeps the input that caused it, so a broken
// property is reported and reproduced exactly like a sanitizer finding.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace netherscope::fuzz {

/// Aborts, naming the property, unless it holds.
inline void require(bool holds, const char* property) {
  if (holds)
    return;
  std::fprintf(stderr, "fuzz property broken: %s\n", property);
  std::abort();
}

} // namespace netherscope::fuzz
