#include "net/upstream/address_policy.hpp"

#include <array>
#include <cstdlib>
#include <utility>

namespace netherscope::net {

namespace {

using boost::asio::ip::address;
using boost::asio::ip::address_v4;
using boost::asio::ip::address_v6;

// -- the default ranges --

/// One row of the default refusals: what the range is and where it lies.
struct range_row {
  /// Reads after "<address> is ", e.g. "loopback".
  std::string_view what;
  std::string_view cidr;
};

// First match wins, so a narrower range comes before a wider one that contains it.
constexpr std::array<range_row, 16> v4_rows{{
  {"unspecified", "0.0.0.0/8"},
  {"private", "10.0.0.0/8"},
  {"CGNAT shared address space", "100.64.0.0/10"},
  {"loopback", "127.0.0.0/8"},
  {"link-local", "169.254.0.0/16"},
  {"private", "172.16.0.0/12"},
  {"reserved for IETF protocol assignments", "192.0.0.0/24"},
  {"documentation", "192.0.2.0/24"},
  {"6to4 relay anycast", "192.88.99.0/24"},
  {"private", "192.168.0.0/16"},
  {"benchmarking", "198.18.0.0/15"},
  {"documentation", "198.51.100.0/24"},
  {"documentation", "203.0.113.0/24"},
  {"multicast", "224.0.0.0/4"},
  {"broadcast", "255.255.255.255/32"},
  {"reserved", "240.0.0.0/4"},
}};

// Everything outside 2000::/3 is refused anyway; the rows outside it are here only to give a
// more precise reason. The IPv4-mapped, NAT64 and 6to4 forms never reach this table: they are
// judged by the IPv4 address they carry.
constexpr std::array<range_row, 12> v6_rows{{
  {"unspecified", "::/128"},
  {"loopback", "::1/128"},
  {"deprecated IPv4-compatible", "::/96"},
  {"discard-only", "100::/64"},
  {"local-use NAT64", "64:ff9b:1::/48"},
  {"private unique-local", "fc00::/7"},
  {"deprecated site-local", "fec0::/10"},
  {"link-local", "fe80::/10"},
  {"multicast", "ff00::/8"},
  {"reserved for IETF protocol assignments", "2001::/23"},
  {"documentation", "2001:db8::/32"},
  {"documentation", "3fff::/20"},
}};

// Only global unicast may be reached over IPv6; anything the rows above do not name is refused
// when it lies outside this range.
constexpr std::string_view global_unicast = "2000::/3";

/// A default row with its cidr parsed.
struct parsed_row {
  std::string_view what;
  std::string_view text;
  cidr net;
};

/// Parses a CIDR written in this file.
cidr parse_constant(std::string_view text) {
  auto net = parse_cidr(text);
  // The tables are constants of this file; one that does not parse is a bug, not input.
  if (!net)
    std::abort();
  return *net;
}

template <std::size_t N>
std::vector<parsed_row> parse_rows(const std::array<range_row, N>& rows) {
  std::vector<parsed_row> result;
  result.reserve(N);
  for (const auto& row : rows)
    result.push_back(parsed_row{row.what, row.cidr, parse_constant(row.cidr)});
  return result;
}

// Parsed once, on first use; static initialization of locals is thread-safe.
const std::vector<parsed_row>& v4_defaults() {
  static const std::vector<parsed_row> rows = parse_rows(v4_rows);
  return rows;
}

const std::vector<parsed_row>& v6_defaults() {
  static const std::vector<parsed_row> rows = parse_rows(v6_rows);
  return rows;
}

const cidr& global_unicast_net() {
  static const cidr net = parse_constant(global_unicast);
  return net;
}

// -- helpers --

/// How an IPv6 address carries an IPv4 address, if it does.
enum class embedding { mapped, nat64, six_to_four };

/// An IPv4 address found inside an IPv6 address.
struct embedded_v4 {
  address_v4 v4;
  embedding how;
};

/// The IPv4 address inside an IPv4-mapped (::ffff:0:0/96), NAT64 well-known prefix
/// (64:ff9b::/96) or 6to4 (2002::/16) address.
std::optional<embedded_v4> find_embedded_v4(const address& addr) {
  if (!addr.is_v6())
    return std::nullopt;
  const auto b = addr.to_v6().to_bytes();
  auto v4_at = [&b](std::size_t i) {
    return address_v4{address_v4::bytes_type{{b[i], b[i + 1], b[i + 2], b[i + 3]}}};
  };
  auto zero_until = [&b](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i)
      if (b[i] != 0)
        return false;
    return true;
  };
  if (zero_until(0, 10) && b[10] == 0xFF && b[11] == 0xFF)
    return embedded_v4{v4_at(12), embedding::mapped};
  if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B && zero_until(4, 12))
    return embedded_v4{v4_at(12), embedding::nat64};
  if (b[0] == 0x20 && b[1] == 0x02)
    return embedded_v4{v4_at(2), embedding::six_to_four};
  return std::nullopt;
}

/// The address as reasons name it: NAT64 and 6to4 forms also show the IPv4 address they carry,
/// since their text alone does not (the mapped form prints as ::ffff:a.b.c.d already).
std::string describe(const address& addr, const std::optional<embedded_v4>& inner) {
  std::string text = addr.to_string();
  if (inner && inner->how == embedding::nat64)
    text += " (NAT64 for " + inner->v4.to_string() + ")";
  else if (inner && inner->how == embedding::six_to_four)
    text += " (6to4 for " + inner->v4.to_string() + ")";
  return text;
}

policy_verdict allow() {
  return policy_verdict{true, {}};
}

policy_verdict refuse(std::string reason) {
  return policy_verdict{false, std::move(reason)};
}

/// The first default row containing addr, if any.
const parsed_row* find_row(const std::vector<parsed_row>& rows, const address& addr) {
  for (const auto& row : rows)
    if (contains(row.net, addr))
      return &row;
  return nullptr;
}

/// The default verdict for an address, naming it as `name` in the reason.
policy_verdict check_defaults(const address& addr, const std::string& name) {
  if (addr.is_v4()) {
    if (const auto* row = find_row(v4_defaults(), addr))
      return refuse(name + " is " + std::string{row->what} + " (" + std::string{row->text} + ")");
    return allow();
  }
  if (const auto* row = find_row(v6_defaults(), addr))
    return refuse(name + " is " + std::string{row->what} + " (" + std::string{row->text} + ")");
  if (!contains(global_unicast_net(), addr))
    return refuse(name + " is not global unicast (outside " + std::string{global_unicast} + ")");
  return allow();
}

} // namespace

address_policy::address_policy(std::vector<cidr> allow, std::vector<cidr> deny)
  : allow_(std::move(allow)), deny_(std::move(deny)) {
  // nop
}

policy_verdict address_policy::check(const boost::asio::ip::address& addr) const {
  const auto inner = find_embedded_v4(addr);
  const address inner_addr = inner ? address{inner->v4} : address{};
  // A denied IPv4 network must not be reachable through any IPv6 form that leads to it.
  for (const auto& net : deny_)
    if (contains(net, addr) || (inner && contains(net, inner_addr)))
      return refuse(describe(addr, inner) + " is denied by --deny-cidr " + to_string(net));
  // An IPv4-mapped address is the IPv4 host itself, so an IPv4 allow covers it. NAT64 and
  // 6to4 addresses are not: they lead through a gateway, which is a different host.
  const bool mapped = inner && inner->how == embedding::mapped;
  for (const auto& net : allow_)
    if (contains(net, addr) || (mapped && contains(net, inner_addr)))
      return allow();
  if (inner)
    return check_defaults(inner_addr, describe(addr, inner));
  return check_defaults(addr, addr.to_string());
}

} // namespace netherscope::net
