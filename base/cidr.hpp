// Networks written as address/prefix, and whether an address lies inside one. Parsing and
// matching are Boost.Asio's network_v4 and network_v6, with our stricter rules on top.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/ip/address.hpp>

namespace netherscope::base {

/// A network written as address/prefix, e.g. 127.0.0.0/8 or ::1/128.
struct cidr {
  boost::asio::ip::address network;
  unsigned prefix = 0;
};

/// Parses "address/prefix" (or a bare address, meaning a single host); nullopt when malformed.
/// The address bits beyond the prefix must be zero ("10.0.0.1/8" is refused as ambiguous).
std::optional<cidr> parse_cidr(std::string_view text);

/// Renders a cidr as "address/prefix".
std::string to_string(const cidr& x);

/// Whether addr lies inside net. IPv4 and IPv6 never match each other.
bool contains(const cidr& net, const boost::asio::ip::address& addr);

} // namespace netherscope::base
