#include "net/base/cidr.hpp"

#include <array>

#include <boost/system/error_code.hpp>

namespace netherscope::net {

namespace {

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

} // namespace netherscope::net
