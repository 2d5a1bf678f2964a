// A target server as the caller names it: host, port and how to speak to it.
//
// Part of the API vocabulary every layer shares; it depends on nothing of ours.
#pragma once

#include <cstdint>
#include <string>

namespace netherscope::core {

/// How to speak to a target: detect TLS, or force it on or off.
enum class tls_mode : std::uint8_t { auto_detect, on, off };

/// A target server as the caller named it, after validation.
struct target {
  /// Lower-cased DNS name or IP literal, without IPv6 brackets.
  std::string host;
  std::uint16_t port = 19132;
  tls_mode tls = tls_mode::auto_detect;
};

inline bool operator==(const target& x, const target& y) {
  return x.host == y.host && x.port == y.port && x.tls == y.tls;
}

inline bool operator<(const target& x, const target& y) {
  if (x.host != y.host)
    return x.host < y.host;
  if (x.port != y.port)
    return x.port < y.port;
  return x.tls < y.tls;
}

} // namespace netherscope::core
