// Where an address an ICE candidate names can be reached from: the Internet, one network, one
// host, or nowhere. The ranges are IANA's special-purpose registries (RFC 6890 and updates).
//
// The table of those ranges here is the only one in the service: classify_address describes
// addresses to people with it, and net/upstream/address_policy refuses to connect to every
// range in it whose scope is not public, naming the range in its reason.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/address.hpp>

#include "base/cidr.hpp"

namespace netherscope::base {

/// What kind of address a candidate names, as the API reports it.
enum class address_scope {
  /// Global unicast that none of the other rows names: reachable from the Internet.
  public_address,
  /// RFC 1918 (10/8, 172.16/12, 192.168/16) and IPv6 unique-local fc00::/7.
  private_address,
  /// RFC 6598 shared address space 100.64/10, used by carrier-grade NAT.
  cgnat,
  /// 127/8 and ::1.
  loopback,
  /// 169.254/16 and fe80::/10.
  link_local,
  /// 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32 and 3fff::/20 (RFC 5737, 3849,
  /// 9637): examples only, never assigned to a real host.
  documentation,
  /// A multicast DNS name ("<uuid>.local"), which browsers write to hide local addresses.
  mdns,
  /// 0/8 and ::, "this host": not an address anyone can send to.
  unspecified,
  /// 224/4 and ff00::/8: group addresses, never a peer.
  multicast,
  /// Every other special-purpose range: 240/4 and broadcast, benchmarking 198.18/15, IETF
  /// assignments (192.0.0/24, 2001::/23), 6to4 relay anycast, IPv4-compatible ::/96, discard
  /// 100::/64, local-use NAT64, deprecated site-local fec0::/10, and IPv6 outside 2000::/3.
  reserved,
  /// A DNS name that is not an mDNS name: a player's client would have to resolve it first.
  hostname,
};

/// Which IP version an address is, as far as a player's connection is concerned.
enum class ip_family {
  /// A name, not a literal.
  none,
  /// IPv4, including an IPv4-mapped IPv6 literal (a dual-stack socket reaches it over IPv4).
  v4,
  v6,
};

/// What classify_address found.
struct address_class {
  address_scope scope = address_scope::hostname;
  ip_family family = ip_family::none;
};

/// The API's name of a scope: "public", "private", "cgnat", "loopback", "link-local",
/// "documentation", "mdns", "unspecified", "multicast", "reserved" or "hostname".
std::string_view to_string(address_scope scope);

/// One row of the special-purpose address table.
struct special_range {
  /// The range, e.g. 127.0.0.0/8.
  cidr net;
  /// The scope of every address in the range that no earlier row names.
  address_scope scope = address_scope::reserved;
  /// What an address in the range is, in the words that follow "<address> is " in a refusal,
  /// naming the range: "loopback (127.0.0.0/8)", "not global unicast (outside 2000::/3)".
  std::string reason;
};

/// The special-purpose ranges, IPv4 rows then IPv6 rows. The first row that contains an address
/// is its row, so a narrower range comes before a wider one. Each family ends with a row that
/// covers all of it (0.0.0.0/0 public, ::/0 reserved), so every address has a row.
const std::vector<special_range>& special_ranges();

/// The first row of special_ranges() that contains addr. An IPv4-mapped IPv6 address is
/// matched as IPv6 (it falls in the reserved remainder): callers that mean its IPv4 address
/// unwrap it first, as classify_address does.
const special_range& find_special_range(const boost::asio::ip::address& addr);

/// The scope of an IPv4 or IPv6 literal or a host name as written in a candidate. An IPv6
/// literal may carry a %zone; an IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged as its
/// IPv4 address. A name ending in ".local" (any case, optional final dot) is mdns; any other
/// text that is not an address is hostname.
address_class classify_address(std::string_view address);

} // namespace netherscope::base
