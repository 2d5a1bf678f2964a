// Validation of the target a caller names: host, port and TLS mode (PRODUCT.md "Input").
//
// Pure functions; each returns a sentence naming the field and the rule when it refuses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "net/api/target.hpp"

namespace netherscope::net {

/// Validates a host: a DNS name (labels of letters, digits, '-' and '_', at most 253
/// characters), an IPv4 literal, or an IPv6 literal with or without brackets. Returns the
/// normalized form (lower case, IPv6 canonical without brackets) or nullopt with error set.
std::optional<std::string> normalize_host(std::string_view text, std::string& error);

/// Validates a port given as decimal text: 1..65535.
std::optional<std::uint16_t> parse_port_text(std::string_view text, std::string& error);

/// Validates the tls query value: exactly "true" or "false".
std::optional<tls_mode> parse_tls_text(std::string_view text, std::string& error);

/// The host as it appears in a URL or Host header: IPv6 literals in brackets.
std::string host_for_url(std::string_view host);

/// Whether a normalized host is an IP literal rather than a DNS name.
bool is_ip_literal(std::string_view host);

} // namespace netherscope::net
