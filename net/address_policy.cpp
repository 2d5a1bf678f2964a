#include "net/address_policy.hpp"

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

/// Whether the first `prefix` bits of a and b are equal.
template <std::size_t N>
bool prefix_equal(const std::array<unsigned char, N>& a, const std::array<unsigned char, N>& b,
                  unsigned prefix) {
  for (std::size_t i = 0; i < N && prefix > 0; ++i) {
    const unsigned bits = prefix < 8 ? prefix : 8;
    const auto mask = static_cast<unsigned char>(0xFFu << (8 - bits));
    if ((a[i] & mask) != (b[i] & mask))
      return false;
    prefix -= bits;
  }
  return true;
}

/// Whether every bit of bytes past the first `prefix` bits is zero.
template <std::size_t N>
bool host_bits_zero(const std::array<unsigned char, N>& bytes, unsigned prefix) {
  for (std::size_t i = 0; i < N; ++i) {
    const unsigned start = static_cast<unsigned>(i) * 8;
    const unsigned kept = prefix > start ? prefix - start : 0;
    if (kept >= 8)
      continue;
    const auto host_mask = static_cast<unsigned char>(0xFFu >> kept);
    if ((bytes[i] & host_mask) != 0)
      return false;
  }
  return true;
}

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

/// Parses a prefix length of 1 to 3 plain digits, at most max.
std::optional<unsigned> parse_prefix(std::string_view text, unsigned max) {
  if (text.empty() || text.size() > 3)
    return std::nullopt;
  unsigned value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value > max)
    return std::nullopt;
  return value;
}

/// Whether text holds only characters of an IPv4 or IPv6 literal.
bool literal_chars_only(std::string_view text) {
  for (char c : text) {
    const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
                    || c == '.' || c == ':';
    if (!ok)
      return false;
  }
  return true;
}

} // namespace

std::optional<cidr> parse_cidr(std::string_view text) {
  std::string_view addr_text = text;
  std::optional<std::string_view> prefix_text;
  if (const auto slash = text.find('/'); slash != std::string_view::npos) {
    addr_text = text.substr(0, slash);
    prefix_text = text.substr(slash + 1);
  }
  // Brackets are how IPv6 literals are written next to a port; accept them so operators can
  // paste either form. They are checked to be IPv6 below.
  bool bracketed = false;
  if (!addr_text.empty() && addr_text.front() == '[') {
    if (addr_text.size() < 2 || addr_text.back() != ']')
      return std::nullopt;
    addr_text = addr_text.substr(1, addr_text.size() - 2);
    bracketed = true;
  }
  // Asio would also accept a scope id ("fe80::1%eth0"), which means nothing in a network, and
  // this check rejects whitespace and any other stray character before parsing.
  if (addr_text.empty() || !literal_chars_only(addr_text))
    return std::nullopt;
  boost::system::error_code ec;
  const auto network = boost::asio::ip::make_address(std::string{addr_text}, ec);
  if (ec || (bracketed && !network.is_v6()))
    return std::nullopt;
  const unsigned max = network.is_v4() ? 32 : 128;
  unsigned prefix = max;
  if (prefix_text) {
    const auto parsed = parse_prefix(*prefix_text, max);
    if (!parsed)
      return std::nullopt;
    prefix = *parsed;
  }
  const bool exact = network.is_v4() ? host_bits_zero(network.to_v4().to_bytes(), prefix)
                                     : host_bits_zero(network.to_v6().to_bytes(), prefix);
  if (!exact)
    return std::nullopt;
  return cidr{network, prefix};
}

std::string to_string(const cidr& x) {
  return x.network.to_string() + "/" + std::to_string(x.prefix);
}

bool contains(const cidr& net, const boost::asio::ip::address& addr) {
  // A hand-built cidr with a prefix longer than the address is malformed and matches nothing.
  if (net.network.is_v4() && addr.is_v4())
    return net.prefix <= 32
           && prefix_equal(net.network.to_v4().to_bytes(), addr.to_v4().to_bytes(), net.prefix);
  if (net.network.is_v6() && addr.is_v6())
    return net.prefix <= 128
           && prefix_equal(net.network.to_v6().to_bytes(), addr.to_v6().to_bytes(), net.prefix);
  return false;
}

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
