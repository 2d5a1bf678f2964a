#include "core/host_port.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include <boost/url/grammar/parse.hpp>
#include <boost/url/rfc/ipv6_address_rule.hpp>

#include "base/address_scope.hpp"
#include "base/ip_text.hpp"
#include "base/text.hpp"

namespace netherscope::core {

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

/// The dot-separated parts of a host, with one trailing empty part (a trailing dot) dropped
/// when there are others, as the URL Standard's IPv4 parser splits them.
std::vector<std::string_view> ipv4_parts(std::string_view text) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    auto dot = text.find('.', start);
    parts.push_back(text.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos)
      break;
    start = dot + 1;
  }
  if (parts.size() > 1 && parts.back().empty())
    parts.pop_back();
  return parts;
}

/// One part read as the URL Standard's "IPv4 number": decimal, hexadecimal after 0x or 0X
/// (an empty rest is 0), or octal after a leading 0. A value past 2^32 is still a number (the
/// host is an address, and an invalid one): it is held at 2^32 so that it cannot overflow.
std::optional<std::uint64_t> ipv4_number(std::string_view part) {
  if (part.empty())
    return std::nullopt;
  unsigned radix = 10;
  if (part.size() >= 2 && part[0] == '0' && (part[1] == 'x' || part[1] == 'X')) {
    radix = 16;
    part.remove_prefix(2);
  } else if (part.size() >= 2 && part[0] == '0') {
    radix = 8;
    part.remove_prefix(1);
  }
  std::uint64_t value = 0;
  for (char c : part) {
    auto digit = base::hex_digit(c);
    if (!digit || *digit >= radix)
      return std::nullopt;
    value = std::min<std::uint64_t>(value * radix + *digit, std::uint64_t{1} << 32);
  }
  return value;
}

} // namespace

bool ends_in_a_number(std::string_view host) {
  auto parts = ipv4_parts(host);
  if (parts.size() == 1 && parts.front().empty())
    return false;
  auto last = parts.back();
  return all_digits(last) || ipv4_number(last).has_value();
}

std::optional<std::uint32_t> parse_url_ipv4(std::string_view host) {
  auto parts = ipv4_parts(host);
  if (parts.size() > 4)
    return std::nullopt;
  std::uint64_t address = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    auto number = ipv4_number(parts[i]);
    if (!number)
      return std::nullopt;
    if (i + 1 < parts.size()) {
      // Every part but the last is one byte.
      if (*number > 255)
        return std::nullopt;
      address |= *number << (8 * (3 - i));
    } else {
      // The last part fills the bytes the others left.
      auto bytes_left = 4 - (parts.size() - 1);
      if (*number >= (std::uint64_t{1} << (8 * bytes_left)))
        return std::nullopt;
      address |= *number;
    }
  }
  return static_cast<std::uint32_t>(address);
}

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
    // An IPv4-mapped address is that IPv4 address: one spelling, one cache entry, one limit.
    return base::ipv6_text(v6->to_bytes());
  }
  // A host whose last label is a number is an IPv4 address as browsers and curl read it
  // (the URL Standard's IPv4 parser: hex, octal, one to four parts, a trailing dot), so it is
  // named and checked as the address it denotes before anything could resolve it; one that
  // does not parse as such is neither an address nor a DNS name.
  if (ends_in_a_number(text)) {
    if (auto v4 = parse_url_ipv4(text))
      return base::ipv4_text(*v4);
    error = "host '" + std::string{text}
            + "' is not a valid IPv4 address (its last label is a number)";
    return std::nullopt;
  }

  // A DNS name. One trailing dot (the root) is allowed and dropped.
  auto name = text;
  if (name.back() == '.')
    name.remove_suffix(1);
  if (name.empty() || name.size() > max_host_length) {
    error = "host must be a DNS name of at most 253 characters, an IPv4 or an IPv6 address";
    return std::nullopt;
  }
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
    if (dot == std::string_view::npos)
      break;
    start = dot + 1;
  }
  return base::ascii_lower(name);
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

std::optional<target> parse_server_address(std::string_view text, std::string& error) {
  auto split = base::split_host_port(text);
  if (!split) {
    error = text.find(']') == std::string_view::npos
              ? "an IPv6 address in brackets needs its closing ]"
              : "after an IPv6 address in brackets only :port may follow";
    return std::nullopt;
  }
  // normalize_host reads the brackets itself, and refuses a name written inside them.
  auto host_text = split->bracketed ? text.substr(0, split->host.size() + 2) : split->host;
  auto port_text = split->port;
  bool has_port = split->has_port;
  if (host_text.empty()) {
    error = std::string{host_required};
    return std::nullopt;
  }
  auto host = normalize_host(host_text, error);
  if (!host)
    return std::nullopt;
  target where;
  where.host = std::move(*host);
  if (has_port) {
    auto port = parse_port_text(port_text, error);
    if (!port)
      return std::nullopt;
    where.port = *port;
  }
  return where;
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
  return base::classify_address(host).family != base::ip_family::none;
}

} // namespace netherscope::core
