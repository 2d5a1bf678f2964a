// The outbound HTTP client that talks to target servers (Beast + OpenSSL).
//
// One call is one fetch on a new connection: resolve once, keep only the addresses the
// address policy allows, connect to one of those, then HTTPS (with SNI and certificate
// checks) or plain HTTP, or HTTPS first and plain HTTP on the same port when the peer does
// not speak TLS. Redirects are never followed, bodies are capped, and every step runs under
// the connect deadline and the total deadline. Beast stays inside the .cpp files.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "net/api/failure.hpp"
#include "net/api/target.hpp"
#include "net/upstream/address_policy.hpp"
#include "net/upstream/dns.hpp"
#include "net/upstream/offer_limiter.hpp"

namespace boost::asio {
class io_context;
} // namespace boost::asio

namespace netherscope::net {

/// One request to a target.
struct fetch_request {
  target where;
  /// "GET" or "POST".
  std::string method = "GET";
  std::string path = "/v1/join";
  /// Sent with the body when the body is not empty.
  std::string content_type;
  std::string body;
  /// Extra request headers (Accept, Authorization); never logged.
  std::vector<std::pair<std::string, std::string>> headers;
  std::size_t body_limit = 64 * 1024;
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds total_timeout{10000};
  /// For offers: the per-server limit, checked against the resolved addresses before
  /// connecting; a refusal is quota_exhausted with retry_after.
  std::shared_ptr<offer_limiter> limiter;
};

/// What the target answered, or why it did not.
struct fetch_result {
  /// upstream_failure, upstream_timeout or forbidden_target; none when a response arrived.
  failure error;
  std::uint16_t status = 0;
  /// Whether the response came over TLS.
  bool tls = false;
  std::string body;
  std::string content_type;
};

/// Settings shared by every fetch.
struct client_settings {
  address_policy policy;
  /// PEM file with extra trusted CAs; empty for the system store only.
  std::string ca_file;
  std::string user_agent = "libhttpclient/1.0.0.0";
  /// How names are looked up (c-ares on the io_context; no thread waits for a name server).
  dns_settings dns;
};

/// Makes fetches on an io_context; thread-safe, cheap to share.
class http_client {
public:
  /// Creates a client; returns null and sets error when the TLS setup fails (bad CA file)
  /// or the resolver cannot start.
  static std::shared_ptr<http_client> make(boost::asio::io_context& ioc,
                                           client_settings settings, std::string& error);

  /// Starts a fetch; done runs exactly once, on an io thread, and must not block.
  void fetch(fetch_request request, std::function<void(fetch_result&&)> done);

  /// Stops the resolver (closes its sockets, drops pending lookups); call after the
  /// io_context stopped and before it is destroyed.
  void stop();

  struct state;

private:
  explicit http_client(std::shared_ptr<state> st) : state_(std::move(st)) {
    // nop
  }

  std::shared_ptr<state> state_;
};

} // namespace netherscope::net
