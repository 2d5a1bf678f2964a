// TLS to Redis (rediss://) for hiredis 0.14, Debian bookworm's, which has no TLS of its own.
//
// The tunnel makes the TLS connection with OpenSSL and hands hiredis one end of a socketpair;
// a thread of its own moves bytes between the other end and the TLS stream. hiredis still
// speaks the protocol; the tunnel only carries it. Measured reason for keeping it: bookworm
// has no hiredis with TLS (hiredis_ssl came with 1.0), and the issue asks for rediss://.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <sys/time.h>

namespace netherscope::storage {

/// ms as the timeval that hiredis and setsockopt take.
inline timeval to_timeval(std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

/// Where and how to reach Redis over TLS.
struct redis_tls_settings {
  std::string host;
  std::uint16_t port = 6380;
  /// PEM file of the CAs that may sign Redis's certificate; empty for the system's store.
  std::string ca_file;
  /// Limit of the connect and of the handshake.
  std::chrono::milliseconds timeout{1000};
};

/// One TLS connection to Redis and the thread that carries it.
class redis_tls_tunnel {
public:
  /// Connects, completes the handshake (the certificate must chain to a trusted CA and name
  /// host, as a DNS name or an IP address) and starts carrying bytes; null and which step
  /// failed, in problem, otherwise.
  static std::unique_ptr<redis_tls_tunnel> open(const redis_tls_settings& cfg,
                                                std::string& problem);

  /// Stops the thread and closes the TLS connection.
  ~redis_tls_tunnel();

  redis_tls_tunnel(const redis_tls_tunnel&) = delete;
  redis_tls_tunnel& operator=(const redis_tls_tunnel&) = delete;

  /// The plain end for redisConnectFd; hiredis owns and closes it. Taken once.
  int take_client_fd() noexcept;

  struct impl;

private:
  explicit redis_tls_tunnel(std::unique_ptr<impl> x);
  std::unique_ptr<impl> impl_;
};

} // namespace netherscope::storage
