// Which URLs a webhook may be given (docs/WATCHES.md, "Webhook URLs"): the form alone.
// Whether the address behind the host may be reached is the address policy's question, asked
// by the HTTP client at each delivery, since a name can point elsewhere by then.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace netherscope::core {

/// The longest webhook URL accepted, in bytes.
inline constexpr std::size_t longest_webhook_url = 2048;

/// Where a delivery goes, read from an accepted URL.
struct webhook_target {
  /// HTTPS, or plain HTTP (only to loopback, with allow_loopback).
  bool tls = true;
  /// The host, normalized as targets are (core/host_port normalize_host).
  std::string host;
  std::uint16_t port = 443;
  /// The request target: the path ("/" when empty) and the query, as written.
  std::string target;
};

/// What checking a URL found: the target, or why not in a sentence.
struct webhook_url_check {
  std::optional<webhook_target> target;
  std::string error;
};

/// Checks a webhook URL: at most longest_webhook_url bytes; an absolute http(s) URL with a
/// host (a DNS name, IPv4 or IPv6 literal) and no user information or fragment; a port, if
/// given, 1 to 65535; https, or http only when allow_loopback is set and the host is a
/// loopback address or localhost.
webhook_url_check check_webhook_url(std::string_view url, bool allow_loopback);

} // namespace netherscope::core
