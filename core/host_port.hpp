// Validation of the target a caller names: host, port and TLS mode (PRODUCT.md "Input").
//
// Pure functions; each returns a sentence naming the field and the rule when it refuses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/target.hpp"

namespace netherscope::core {

/// Validates a host: a DNS name (labels of letters, digits, '-' and '_', at most 253
/// characters), an IPv4 address in any form the URL Standard reads (see parse_url_ipv4), or
/// an IPv6 literal with or without brackets. Returns the normalized form (lower case, IPv4
/// dotted decimal, IPv6 canonical without brackets) or nullopt with error set.
std::optional<std::string> normalize_host(std::string_view text, std::string& error);

/// Whether the URL Standard reads host as an IPv4 address: its last dot-separated label
/// (after one trailing dot) is decimal digits or a valid hexadecimal or octal number.
bool ends_in_a_number(std::string_view host);

/// The URL Standard's IPv4 parser: one to four dot-separated parts (one trailing dot
/// allowed), each decimal, hexadecimal (0x) or octal (leading 0); every part but the last is
/// one byte and the last fills the rest ("127.1", "0x7f000001", "2130706433" and
/// "0177.0.0.1" are all 127.0.0.1). Returns the address in host order, or nullopt.
std::optional<std::uint32_t> parse_url_ipv4(std::string_view host);

/// The sentence of every refusal of a call that names no host.
inline constexpr std::string_view host_required =
  "host is required: the target server's DNS name or IP address";

/// Validates a port given as decimal text: 1..65535.
std::optional<std::uint16_t> parse_port_text(std::string_view text, std::string& error);

/// Validates the tls query value: exactly "true" or "false".
std::optional<tls_mode> parse_tls_text(std::string_view text, std::string& error);

/// The host as it appears in a URL or Host header: IPv6 literals in brackets.
std::string host_for_url(std::string_view host);

/// Reads a server's address as one piece of text, as a server page's path names it: "host",
/// "host:port", "[IPv6]" or "[IPv6]:port", and a bare IPv6 literal (two colons or more and no
/// brackets) as a host alone. The host is validated and normalized as normalize_host does;
/// the port defaults to 19132. Returns nullopt with error set.
std::optional<target> parse_server_address(std::string_view text, std::string& error);

/// Whether a normalized host is an IP literal rather than a DNS name.
bool is_ip_literal(std::string_view host);

} // namespace netherscope::core
