// Where an address an ICE candidate names can be reached from: the Internet, one network, one
// host, or nowhere. The ranges are IANA's special-purpose registries (RFC 6890 and updates).
//
// This is for describing addresses to people; which addresses the service itself may connect
// to is net/upstream/address_policy's business.
#pragma once

#include <string_view>

namespace netherscope::net {

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

/// The scope of an IPv4 or IPv6 literal or a host name as written in a candidate. An IPv6
/// literal may carry a %zone; an IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged as its
/// IPv4 address. A name ending in ".local" (any case, optional final dot) is mdns; any other
/// text that is not an address is hostname.
address_class classify_address(std::string_view address);

} // namespace netherscope::net
