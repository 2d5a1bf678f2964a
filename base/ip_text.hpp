// IP addresses as text: the canonical spelling of an address given as bytes, and the bytes of
// an IPv4 literal. The rules (core/) name addresses through these, so that they need no
// networking library of their own.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace netherscope::base {

/// The dotted-decimal text of an IPv4 address given as a number in host order.
std::string ipv4_text(std::uint32_t address);

/// The canonical text of an IPv6 address given as its 16 bytes in network order (RFC 5952).
/// An IPv4-mapped address (::ffff:a.b.c.d) is that IPv4 address, and is written as one.
std::string ipv6_text(const std::array<unsigned char, 16>& bytes);

/// The four bytes of a dotted-decimal IPv4 literal, or nullopt for any other text.
std::optional<std::array<unsigned char, 4>> ipv4_bytes(std::string_view text);

} // namespace netherscope::base
