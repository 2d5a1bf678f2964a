// Which target addresses the service may connect to.
//
// The service opens connections to addresses strangers give it, so by default it refuses every
// address that is not public unicast: loopback, private, link-local, CGNAT, multicast,
// unspecified, documentation, benchmarking and reserved ranges, and the IPv4-mapped,
// NAT64 and 6to4 forms of these. The ranges and the words its reasons use are the table in
// base/address_scope, so the policy and the scopes the API reports never disagree.
// Operators add allowed or denied CIDRs with options.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/address.hpp>

#include "base/cidr.hpp"

namespace netherscope::net::upstream {

/// The verdict of the policy for one address.
struct policy_verdict {
  bool allowed = false;
  /// Why it was refused, naming the range, e.g. "127.0.0.1 is loopback (127.0.0.0/8)".
  std::string reason;
};

/// The address policy: explicit denies first, then explicit allows, then the default ranges.
class address_policy {
public:
  /// A policy with only the default refusals.
  address_policy() = default;

  /// A policy where `deny` always refuses and `allow` permits addresses the defaults refuse.
  address_policy(std::vector<base::cidr> allow, std::vector<base::cidr> deny);

  /// Checks one address. IPv4-mapped IPv6 (::ffff:a.b.c.d) is judged as its IPv4 address; the
  /// NAT64 (64:ff9b::/96) and 6to4 (2002::/16) forms are judged by their IPv4 address against
  /// the denies and the defaults, but an IPv4 allow does not cover them (they reach a gateway).
  policy_verdict check(const boost::asio::ip::address& addr) const;

  /// Judges a normalized host that needs no lookup: an IP literal, or a localhost name
  /// (RFC 6761 6.3), which the resolver answers as 127.0.0.1 and ::1 and a fetch then
  /// refuses only when the policy refuses both. Nullopt for any other name: only its lookup,
  /// at each call, can judge it, since its addresses may change.
  std::optional<policy_verdict> check_without_lookup(std::string_view host) const;

private:
  std::vector<base::cidr> allow_;
  std::vector<base::cidr> deny_;
};

} // namespace netherscope::net::upstream
