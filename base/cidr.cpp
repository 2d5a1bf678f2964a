#include "base/cidr.hpp"

#include <boost/asio/ip/network_v4.hpp>
#include <boost/asio/ip/network_v6.hpp>
#include <boost/system/error_code.hpp>

namespace netherscope::base {

namespace {

namespace ip = boost::asio::ip;

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

/// Whether text is a prefix length Asio may read: one to three plain digits.
bool short_digits(std::string_view text) {
  if (text.empty() || text.size() > 3)
    return false;
  for (char c : text)
    if (c < '0' || c > '9')
      return false;
  return true;
}

/// The cidr of a network Asio parsed; nullopt when it refused the text or bits past the prefix
/// are set.
template <class Network>
std::optional<cidr> exact(const Network& parsed, const boost::system::error_code& ec) {
  // "10.0.0.1/8" names a host and a network at once; we refuse to guess which was meant.
  if (ec || parsed != parsed.canonical())
    return std::nullopt;
  return cidr{ip::address{parsed.address()}, parsed.prefix_length()};
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
  // paste either form. Asio knows no brackets, so they come off here, and only IPv6 may wear them.
  bool bracketed = false;
  if (!addr_text.empty() && addr_text.front() == '[') {
    if (addr_text.size() < 2 || addr_text.back() != ']')
      return std::nullopt;
    addr_text = addr_text.substr(1, addr_text.size() - 2);
    bracketed = true;
  }
  // Asio accepts a scope id ("fe80::1%eth0"), which means nothing in a network, and hands the
  // text to inet_pton as a C string, so a NUL would end it early: only literal characters pass.
  if (addr_text.empty() || !literal_chars_only(addr_text))
    return std::nullopt;
  const bool v6 = addr_text.find(':') != std::string_view::npos;
  if (bracketed && !v6)
    return std::nullopt;
  // Asio checks only that the prefix is digits and reads it with atoi, so "/0008" passes and a
  // long run of digits overflows int; a prefix length has at most three digits. A bare address
  // means a single host, which Asio's network parser does not accept, so we write its length.
  if (prefix_text && !short_digits(*prefix_text))
    return std::nullopt;
  std::string full{addr_text};
  full += '/';
  full += prefix_text ? std::string{*prefix_text} : std::string{v6 ? "128" : "32"};
  boost::system::error_code ec;
  if (v6) {
    const auto parsed = ip::make_network_v6(full, ec);
    return exact(parsed, ec);
  }
  const auto parsed = ip::make_network_v4(full, ec);
  return exact(parsed, ec);
}

std::string to_string(const cidr& x) {
  return x.network.to_string() + "/" + std::to_string(x.prefix);
}

bool contains(const cidr& net, const boost::asio::ip::address& addr) {
  // A hand-built cidr with a prefix longer than the address is malformed and matches nothing
  // (Asio's network constructors would throw std::out_of_range for it).
  if (net.network.is_v4() && addr.is_v4()) {
    if (net.prefix > 32)
      return false;
    const auto prefix = static_cast<unsigned short>(net.prefix);
    return ip::network_v4{addr.to_v4(), prefix}.network()
           == ip::network_v4{net.network.to_v4(), prefix}.network();
  }
  if (net.network.is_v6() && addr.is_v6()) {
    if (net.prefix > 128)
      return false;
    const auto prefix = static_cast<unsigned short>(net.prefix);
    // network() keeps the address's scope id and address_v6 compares it, so the bytes are
    // compared: a scope id ("fe80::1%1") must not take an address out of its network.
    return ip::network_v6{addr.to_v6(), prefix}.network().to_bytes()
           == ip::network_v6{net.network.to_v6(), prefix}.network().to_bytes();
  }
  return false;
}

} // namespace netherscope::base
