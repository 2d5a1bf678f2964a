// Who is calling: the client address that quotas count and logs show.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/address.hpp>

#include "base/cidr.hpp"

namespace netherscope::net::http {

/// The client of one request.
struct client_identity {
  /// The client's address: the socket peer, or a forwarded address from a trusted proxy.
  boost::asio::ip::address address;
  /// What quotas count: an IPv4 address, or an IPv6 /64 prefix such as "2001:db8:1:2::/64".
  std::string subject;
};

/// Finds the client. X-Forwarded-For (all of its values, joined by commas) is believed only
/// when the peer is a trusted proxy, and then only up to the right-most hop that is not a
/// trusted proxy itself: everything left of it was written by the client and proves nothing.
client_identity identify_client(const boost::asio::ip::address& peer,
                                std::string_view forwarded_for,
                                const std::vector<base::cidr>& trusted_proxies);

/// The quota subject of an address: IPv4 (also IPv4-mapped IPv6) as is, IPv6 as its /64.
std::string quota_subject(const boost::asio::ip::address& address);

} // namespace netherscope::net::http
