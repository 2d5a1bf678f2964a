#include "net/api/host_port.hpp"

#include <algorithm>
#include <cctype>

#include <boost/asio/ip/address.hpp>
#include <boost/url/grammar/parse.hpp>
#include <boost/url/rfc/ipv4_address_rule.hpp>
#include <boost/url/rfc/ipv6_address_rule.hpp>

#include "net/base/text.hpp"

namespace netherscope::net {

namespace {

constexpr std::size_t max_host_length = 253;
constexpr std::size_t max_label_length = 63;

bool is_label_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
}

bool all_digits(std::string_view text) {
  return !text.empty()
         && std::all_of(text.begin(), text.end(),
                        [](char c) { return c >= '0' && c <= '9'; });
}

} // namespace

std::optional<std::string> normalize_host(std::string_view text, std::string& error) {
  if (text.empty()) {
    error = "host must not be empty";
    return std::nullopt;
  }
  if (text.size() > max_host_length + 2) {
    error = "host must be at most 253 characters";
    return std::nullopt;
  }
  // IPv6 literals arrive with or without brackets; Boost.URL's rule is RFC 3986's, which
  // rejects zone identifiers: a zone names an interface of this machine, never a target.
  auto v6_text = text;
  if (v6_text.size() >= 2 && v6_text.front() == '[' && v6_text.back() == ']')
    v6_text = v6_text.substr(1, v6_text.size() - 2);
  if (v6_text.find(':') != std::string_view::npos) {
    auto v6 = boost::urls::grammar::parse(v6_text, boost::urls::ipv6_address_rule);
    if (!v6) {
      error = "host '" + std::string{text} + "' is not a valid IPv6 address";
      return std::nullopt;
    }
    auto v6_address = boost::asio::ip::make_address_v6(v6->to_bytes());
    // An IPv4-mapped address is that IPv4 address: one spelling, one cache entry, one limit.
    if (v6_address.is_v4_mapped())
      return boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, v6_address).to_string();
    return v6_address.to_string();
  }
  if (auto v4 = boost::urls::grammar::parse(text, boost::urls::ipv4_address_rule))
    return boost::asio::ip::make_address_v4(v4->to_bytes()).to_string();

  // A DNS name. One trailing dot (the root) is allowed and dropped.
  auto name = text;
  if (name.back() == '.')
    name.remove_suffix(1);
  if (name.empty() || name.size() > max_host_length) {
    error = "host must be a DNS name of at most 253 characters, an IPv4 or an IPv6 address";
    return std::nullopt;
  }
  std::string_view last_label;
  std::size_t start = 0;
  while (start <= name.size()) {
    auto dot = name.find('.', start);
    auto label = name.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (label.empty() || label.size() > max_label_length
        || !std::all_of(label.begin(), label.end(), is_label_char)) {
      error = "host '" + std::string{text}
              + "' is not a valid DNS name (labels of 1 to 63 letters, digits, '-' or '_')";
      return std::nullopt;
    }
    last_label = label;
    if (dot == std::string_view::npos)
      break;
    start = dot + 1;
  }
  // No top-level domain is numeric, so "1.2.3" or "127.1" are malformed IPv4, and letting
  // the resolver read them in its legacy forms would only surprise the caller.
  if (all_digits(last_label)) {
    error = "host '" + std::string{text} + "' is not a valid IPv4 address";
    return std::nullopt;
  }
  return ascii_lower(name);
}

std::optional<std::uint16_t> parse_port_text(std::string_view text, std::string& error) {
  if (!all_digits(text) || text.size() > 5) {
    error = "port must be an integer from 1 to 65535";
    return std::nullopt;
  }
  unsigned value = 0;
  for (char c : text)
    value = value * 10 + static_cast<unsigned>(c - '0');
  if (value < 1 || value > 65535) {
    error = "port must be an integer from 1 to 65535";
    return std::nullopt;
  }
  return static_cast<std::uint16_t>(value);
}

std::optional<tls_mode> parse_tls_text(std::string_view text, std::string& error) {
  if (text == "true")
    return tls_mode::on;
  if (text == "false")
    return tls_mode::off;
  error = "tls must be 'true' or 'false' (omit it to auto-detect)";
  return std::nullopt;
}

std::string host_for_url(std::string_view host) {
  if (host.find(':') != std::string_view::npos)
    return "[" + std::string{host} + "]";
  return std::string{host};
}

bool is_ip_literal(std::string_view host) {
  boost::system::error_code ec;
  boost::asio::ip::make_address(std::string{host}, ec);
  return !ec;
}

} // namespace netherscope::net
