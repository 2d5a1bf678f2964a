#include "net/base/address_scope.hpp"

#include <array>
#include <cstdlib>
#include <string>
#include <vector>

#include <boost/asio/ip/address.hpp>
#include <boost/system/error_code.hpp>

#include "net/base/cidr.hpp"
#include "net/base/text.hpp"

namespace netherscope::net {

namespace {

namespace ip = boost::asio::ip;

/// One special-purpose range and the scope of the addresses in it.
struct range_row {
  address_scope scope;
  std::string_view cidr;
};

// First match wins, so a narrower range comes before a wider one that contains it.
constexpr std::array<range_row, 15> v4_rows{{
  {address_scope::unspecified, "0.0.0.0/8"},
  {address_scope::private_address, "10.0.0.0/8"},
  {address_scope::cgnat, "100.64.0.0/10"},
  {address_scope::loopback, "127.0.0.0/8"},
  {address_scope::link_local, "169.254.0.0/16"},
  {address_scope::private_address, "172.16.0.0/12"},
  {address_scope::reserved, "192.0.0.0/24"},
  {address_scope::documentation, "192.0.2.0/24"},
  {address_scope::reserved, "192.88.99.0/24"},
  {address_scope::private_address, "192.168.0.0/16"},
  {address_scope::reserved, "198.18.0.0/15"},
  {address_scope::documentation, "198.51.100.0/24"},
  {address_scope::documentation, "203.0.113.0/24"},
  {address_scope::multicast, "224.0.0.0/4"},
  // The broadcast address 255.255.255.255 lies in here too.
  {address_scope::reserved, "240.0.0.0/4"},
}};

// IPv6 outside 2000::/3 that no row names is reserved (below).
constexpr std::array<range_row, 13> v6_rows{{
  {address_scope::unspecified, "::/128"},
  {address_scope::loopback, "::1/128"},
  {address_scope::reserved, "::/96"},
  {address_scope::reserved, "64:ff9b:1::/48"},
  {address_scope::reserved, "100::/64"},
  {address_scope::private_address, "fc00::/7"},
  {address_scope::reserved, "fec0::/10"},
  {address_scope::link_local, "fe80::/10"},
  {address_scope::multicast, "ff00::/8"},
  {address_scope::documentation, "2001:db8::/32"},
  {address_scope::reserved, "2001::/23"},
  {address_scope::documentation, "3fff::/20"},
  {address_scope::public_address, "2000::/3"},
}};

/// A row with its cidr parsed.
struct parsed_row {
  address_scope scope;
  cidr net;
};

template <std::size_t N>
std::vector<parsed_row> parse_rows(const std::array<range_row, N>& rows) {
  std::vector<parsed_row> out;
  out.reserve(N);
  for (const auto& row : rows) {
    auto net = parse_cidr(row.cidr);
    // The tables are constants of this file; one that does not parse is a bug, not input.
    if (!net)
      std::abort();
    out.push_back(parsed_row{row.scope, *net});
  }
  return out;
}

address_scope scope_in(const std::vector<parsed_row>& rows, const ip::address& addr,
                       address_scope otherwise) {
  for (const auto& row : rows)
    if (contains(row.net, addr))
      return row.scope;
  return otherwise;
}

address_scope v4_scope(const ip::address_v4& addr) {
  // Parsed once, on first use; static initialization of locals is thread-safe.
  static const std::vector<parsed_row> rows = parse_rows(v4_rows);
  return scope_in(rows, ip::address{addr}, address_scope::public_address);
}

address_scope v6_scope(const ip::address_v6& addr) {
  static const std::vector<parsed_row> rows = parse_rows(v6_rows);
  // 2000::/3 is the last row: whatever lies outside every row is not global unicast.
  return scope_in(rows, ip::address{addr}, address_scope::reserved);
}

/// Whether a name is an mDNS name: its last label is "local" (RFC 6762), in any case.
bool is_mdns_name(std::string_view name) {
  if (!name.empty() && name.back() == '.')
    name.remove_suffix(1);
  constexpr std::string_view suffix = ".local";
  return name.size() > suffix.size()
         && iequals(name.substr(name.size() - suffix.size()), suffix);
}

} // namespace

std::string_view to_string(address_scope scope) {
  switch (scope) {
    case address_scope::public_address:
      return "public";
    case address_scope::private_address:
      return "private";
    case address_scope::cgnat:
      return "cgnat";
    case address_scope::loopback:
      return "loopback";
    case address_scope::link_local:
      return "link-local";
    case address_scope::documentation:
      return "documentation";
    case address_scope::mdns:
      return "mdns";
    case address_scope::unspecified:
      return "unspecified";
    case address_scope::multicast:
      return "multicast";
    case address_scope::reserved:
      return "reserved";
    case address_scope::hostname:
      return "hostname";
  }
  return "reserved";
}

address_class classify_address(std::string_view address) {
  // A zone ("fe80::1%eth0") says which interface, not where the address lies; Asio would look
  // the interface name up in the kernel, so it comes off first.
  auto literal = address;
  if (auto percent = literal.find('%'); percent != std::string_view::npos)
    literal = literal.substr(0, percent);
  // Only the characters of an IP literal go to the parser: a name never does, and a NUL or a
  // longer text would only be refused after a copy.
  bool literal_chars = !literal.empty() && literal.size() <= 45;
  for (char c : literal)
    literal_chars = literal_chars
                    && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
                        || c == '.' || c == ':');
  if (literal_chars) {
    boost::system::error_code ec;
    auto parsed = ip::make_address(std::string{literal}, ec);
    if (!ec && parsed.is_v4())
      return {v4_scope(parsed.to_v4()), ip_family::v4};
    if (!ec && parsed.is_v6()) {
      auto v6 = parsed.to_v6();
      if (v6.is_v4_mapped())
        return {v4_scope(ip::make_address_v4(ip::v4_mapped, v6)), ip_family::v4};
      return {v6_scope(v6), ip_family::v6};
    }
  }
  if (is_mdns_name(address))
    return {address_scope::mdns, ip_family::none};
  return {address_scope::hostname, ip_family::none};
}

} // namespace netherscope::net
