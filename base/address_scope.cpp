#include "base/address_scope.hpp"

#include <array>
#include <cstdlib>
#include <string>
#include <vector>

#include <boost/asio/ip/address.hpp>
#include <boost/system/error_code.hpp>

#include "base/cidr.hpp"
#include "base/text.hpp"

namespace netherscope::base {

namespace {

namespace ip = boost::asio::ip;

/// One row of the table as written here.
struct row_text {
  address_scope scope;
  std::string_view cidr;
  /// What the range is, as the address policy's refusal says it: "loopback". These words are
  /// finer than the scope ("benchmarking", "broadcast" are both reserved) because an operator
  /// reading a refusal wants to know which range it was.
  std::string_view what;
  /// How the refusal names the range, where not by its cidr.
  std::string_view named = {};
};

// First match wins, so a narrower range comes before a wider one that contains it. The
// refusals' words are in the address policy's tests and operators' logs; keep them as they are.
constexpr std::array<row_text, 17> v4_rows{{
  {address_scope::unspecified, "0.0.0.0/8", "unspecified"},
  {address_scope::private_address, "10.0.0.0/8", "private"},
  {address_scope::cgnat, "100.64.0.0/10", "CGNAT shared address space"},
  {address_scope::loopback, "127.0.0.0/8", "loopback"},
  {address_scope::link_local, "169.254.0.0/16", "link-local"},
  {address_scope::private_address, "172.16.0.0/12", "private"},
  {address_scope::reserved, "192.0.0.0/24", "reserved for IETF protocol assignments"},
  {address_scope::documentation, "192.0.2.0/24", "documentation"},
  {address_scope::reserved, "192.88.99.0/24", "6to4 relay anycast"},
  {address_scope::private_address, "192.168.0.0/16", "private"},
  {address_scope::reserved, "198.18.0.0/15", "benchmarking"},
  {address_scope::documentation, "198.51.100.0/24", "documentation"},
  {address_scope::documentation, "203.0.113.0/24", "documentation"},
  {address_scope::multicast, "224.0.0.0/4", "multicast"},
  // Inside 240/4, but named on its own so a refusal says what it is.
  {address_scope::reserved, "255.255.255.255/32", "broadcast"},
  {address_scope::reserved, "240.0.0.0/4", "reserved"},
  {address_scope::public_address, "0.0.0.0/0", "public"},
}};

// The IPv4-mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96) and 6to4 (2002::/16) forms have no
// rows of their own: whoever cares judges them by the IPv4 address they carry.
constexpr std::array<row_text, 14> v6_rows{{
  {address_scope::unspecified, "::/128", "unspecified"},
  {address_scope::loopback, "::1/128", "loopback"},
  {address_scope::reserved, "::/96", "deprecated IPv4-compatible"},
  {address_scope::reserved, "100::/64", "discard-only"},
  {address_scope::reserved, "64:ff9b:1::/48", "local-use NAT64"},
  {address_scope::private_address, "fc00::/7", "private unique-local"},
  {address_scope::reserved, "fec0::/10", "deprecated site-local"},
  {address_scope::link_local, "fe80::/10", "link-local"},
  {address_scope::multicast, "ff00::/8", "multicast"},
  {address_scope::reserved, "2001::/23", "reserved for IETF protocol assignments"},
  {address_scope::documentation, "2001:db8::/32", "documentation"},
  {address_scope::documentation, "3fff::/20", "documentation"},
  {address_scope::public_address, "2000::/3", "global unicast"},
  // Only global unicast is public; whatever no row above names is not.
  {address_scope::reserved, "::/0", "not global unicast", "outside 2000::/3"},
}};

/// Parses rows written here onto out, each with its reason words put together.
template <std::size_t N>
void append_rows(std::vector<special_range>& out, const std::array<row_text, N>& rows) {
  for (const auto& row : rows) {
    auto net = parse_cidr(row.cidr);
    // The tables are constants of this file; one that does not parse is a bug, not input.
    if (!net)
      std::abort();
    const auto named = row.named.empty() ? row.cidr : row.named;
    out.push_back(special_range{*net, row.scope,
                                std::string{row.what} + " (" + std::string{named} + ")"});
  }
}

/// The whole table, IPv4 rows then IPv6 rows.
std::vector<special_range> parse_rows() {
  std::vector<special_range> out;
  out.reserve(v4_rows.size() + v6_rows.size());
  append_rows(out, v4_rows);
  append_rows(out, v6_rows);
  return out;
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

const std::vector<special_range>& special_ranges() {
  // Parsed once, on first use; static initialization of locals is thread-safe.
  static const std::vector<special_range> rows = parse_rows();
  return rows;
}

const special_range& find_special_range(const ip::address& addr) {
  for (const auto& row : special_ranges())
    if (contains(row.net, addr))
      return row;
  // Each family ends with a /0 row, so no address gets here.
  std::abort();
}

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
      return {find_special_range(parsed).scope, ip_family::v4};
    if (!ec && parsed.is_v6()) {
      auto v6 = parsed.to_v6();
      if (v6.is_v4_mapped())
        return {find_special_range(ip::make_address_v4(ip::v4_mapped, v6)).scope, ip_family::v4};
      return {find_special_range(parsed).scope, ip_family::v6};
    }
  }
  if (is_mdns_name(address))
    return {address_scope::mdns, ip_family::none};
  return {address_scope::hostname, ip_family::none};
}

} // namespace netherscope::base
