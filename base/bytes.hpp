// Fixed-width little-endian integers in byte strings, the form every stored record uses
// (docs/ARCHITECTURE.md, "Storage"). Boost.Endian does the byte order; these two helpers only
// append to a std::string and consume from the front of a std::string_view.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include <boost/endian/conversion.hpp>

namespace netherscope::base {

/// Appends value to out as sizeof(UInt) little-endian bytes.
template <class UInt>
void put_le(std::string& out, UInt value) {
  static_assert(std::is_integral_v<UInt> && std::is_unsigned_v<UInt>);
  unsigned char raw[sizeof(UInt)];
  boost::endian::endian_store<UInt, sizeof(UInt), boost::endian::order::little>(raw, value);
  out.append(reinterpret_cast<const char*>(raw), sizeof(UInt));
}

/// Reads sizeof(UInt) little-endian bytes from the front of in into value and drops them from
/// in; false (in and value untouched) when in is too short.
template <class UInt>
bool take_le(std::string_view& in, UInt& value) {
  static_assert(std::is_integral_v<UInt> && std::is_unsigned_v<UInt>);
  if (in.size() < sizeof(UInt))
    return false;
  value = boost::endian::endian_load<UInt, sizeof(UInt), boost::endian::order::little>(
    reinterpret_cast<const unsigned char*>(in.data()));
  in.remove_prefix(sizeof(UInt));
  return true;
}

/// Drops the version byte at the front of in when it is version; false (in untouched) when in
/// is empty or starts with another version.
inline bool take_version(std::string_view& in, std::uint8_t version) {
  if (in.empty() || static_cast<std::uint8_t>(in[0]) != version)
    return false;
  in.remove_prefix(1);
  return true;
}

} // namespace netherscope::base
