// Test support: big-endian integers, as RakNet writes them, for building datagrams by hand.
#pragma once

#include <cstdint>
#include <string>

namespace netherscope::test {

/// v as eight big-endian bytes.
inline std::string be64(std::uint64_t v) {
  std::string out;
  for (int shift = 56; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xff));
  return out;
}

} // namespace netherscope::test
