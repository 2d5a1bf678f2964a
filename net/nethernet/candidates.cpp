#include "net/nethernet/candidates.hpp"

#include <algorithm>
#include <string>
#include <string_view>

namespace netherscope::net::nethernet {

namespace {

/// How many non-public addresses the udp_not_public warning names before it only counts.
constexpr std::size_t named_addresses = 4;

bool is_udp(const ice_candidate& c) {
  return c.transport == "udp";
}

bool is_data_channel_udp(const ice_candidate& c) {
  return is_udp(c) && c.component == 1;
}

/// A scope in a sentence: "a private address", "an mDNS name", ...
std::string_view scope_phrase(base::address_scope scope) {
  switch (scope) {
    case base::address_scope::public_address:
      return "a public address";
    case base::address_scope::private_address:
      return "a private address";
    case base::address_scope::cgnat:
      return "a carrier-grade NAT address";
    case base::address_scope::loopback:
      return "a loopback address";
    case base::address_scope::link_local:
      return "a link-local address";
    case base::address_scope::documentation:
      return "a documentation address";
    case base::address_scope::mdns:
      return "an mDNS name";
    case base::address_scope::unspecified:
      return "the unspecified address";
    case base::address_scope::multicast:
      return "a multicast address";
    case base::address_scope::reserved:
      return "a reserved address";
    case base::address_scope::hostname:
      return "a host name";
  }
  return "a reserved address";
}

/// "172.17.0.2 is a private address, 127.0.0.1 is a loopback address and 2 more": the first
/// named_addresses distinct addresses with their scopes.
std::string describe_addresses(const std::vector<const ice_candidate*>& candidates) {
  std::vector<std::string_view> addresses;
  for (const auto* c : candidates) {
    bool repeated = false;
    for (auto a : addresses)
      repeated = repeated || a == c->address;
    if (!repeated)
      addresses.push_back(c->address);
  }
  std::size_t shown = std::min(addresses.size(), named_addresses);
  std::size_t more = addresses.size() - shown;
  std::string out;
  for (std::size_t i = 0; i < shown; ++i) {
    if (i > 0)
      out += ", ";
    out += std::string{addresses[i]} + " is "
           + std::string{scope_phrase(base::classify_address(addresses[i]).scope)};
  }
  if (more > 0)
    out += ", and " + std::to_string(more) + " more";
  return out;
}

} // namespace

candidate_assessment assess_candidate(const ice_candidate& candidate) {
  candidate_assessment out;
  out.where = base::classify_address(candidate.address);
  out.used_by_data_channels = candidate.component == 1;
  out.usable_by_players = is_data_channel_udp(candidate)
                          && out.where.scope == base::address_scope::public_address;
  return out;
}

std::vector<answer_warning> candidate_warnings(const parsed_answer& parsed,
                                               std::uint16_t signalling_port) {
  std::vector<answer_warning> out;
  if (parsed.candidate_lines == 0) {
    out.push_back({"no_candidates",
                   "The server answered without any candidate, so players cannot connect. A "
                   "NetherNet server answers so when every UDP port it may give a session is "
                   "taken (its port pool is drained)."});
    return out;
  }
  // Lines that were all malformed are reported line by line already.
  if (parsed.candidates.empty())
    return out;

  std::vector<const ice_candidate*> udp;
  bool any_udp = false;
  bool all_tcp = true;
  bool any_public = false;
  bool any_v4 = false;
  bool any_v6 = false;
  std::size_t other_components = 0;
  bool reused_port = false;
  for (const auto& c : parsed.candidates) {
    any_udp = any_udp || is_udp(c);
    all_tcp = all_tcp && c.transport == "tcp";
    if (c.component != 1)
      ++other_components;
    if (is_udp(c) && signalling_port != 0 && c.port == signalling_port)
      reused_port = true;
    if (!is_data_channel_udp(c))
      continue;
    udp.push_back(&c);
    auto where = base::classify_address(c.address);
    any_public = any_public || where.scope == base::address_scope::public_address;
    any_v4 = any_v4 || where.family == base::ip_family::v4;
    any_v6 = any_v6 || where.family == base::ip_family::v6;
  }

  if (udp.empty()) {
    std::string what = all_tcp ? "The server offers only TCP candidates"
                       : any_udp
                         ? "The server's UDP candidates are all for component 2 or above, which "
                           "data channels never use"
                         : "The server offers no UDP candidate";
    out.push_back({"no_udp_candidates",
                   what + ", but Minecraft clients connect over UDP only: players cannot connect."});
  } else if (!any_public) {
    out.push_back({"udp_not_public",
                   "Players outside this network cannot connect: no UDP candidate has a public "
                   "address (" + describe_addresses(udp)
                     + "). Publish the server's UDP ports on the public address."});
  }
  if (any_v6 && !any_v4)
    out.push_back({"ipv6_only",
                   "Every UDP candidate is IPv6: players whose network has no IPv6 cannot "
                   "connect. Advertise an IPv4 address as well."});
  if (reused_port) {
    auto port = std::to_string(signalling_port);
    out.push_back({"signalling_port_reused",
                   "A UDP candidate uses port " + port
                     + ", the same number as the signalling port: the server must receive UDP on "
                     + port + " as well as TCP, so open and forward both protocols on that port."});
  }
  if (other_components > 0)
    out.push_back({"component_not_used",
                   std::to_string(other_components)
                     + (other_components == 1 ? " candidate is" : " candidates are")
                     + " for component 2 or above, which data channels never use (some stacks, "
                       "pion among them, list every candidate twice). Players connect through the "
                       "component-1 candidates only."});
  return out;
}

} // namespace netherscope::net::nethernet
