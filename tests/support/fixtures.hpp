// Test support: the files under tests/fixtures (captured answers, offers and pongs).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace netherscope::test {

/// The bytes of tests/fixtures/<name>; empty when the file cannot be read.
inline std::string read_fixture(const std::string& name) {
  std::ifstream in{std::string{FIXTURES_DIR} + "/" + name, std::ios::binary};
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

} // namespace netherscope::test
