// The outbound HTTP client that talks to target servers (Beast + OpenSSL).
//
// One call is one fetch on a new connection: resolve once, keep only the addresses the
// address policy allows, connect to one of those, then HTTPS (with SNI and certificate
// checks) or plain HTTP, or HTTPS first and plain HTTP on the same port when the peer does
// not speak TLS. Redirects are never followed, bodies are capped, and every step runs under
// the connect deadline and the total deadline. Beast stays inside the .cpp files.
//
// Detecting TLS has a deadline of its own, much shorter than the connect deadline, because
// some targets stay silent on a ClientHello instead of refusing it; and a caller that knows
// which scheme a target answered with last time can skip the detection altogether.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/failure.hpp"
#include "core/target.hpp"
#include "net/upstream/address_policy.hpp"
#include "net/upstream/dns.hpp"
#include "net/upstream/offer_limiter.hpp"

namespace boost::asio {
class io_context;
} // namespace boost::asio

namespace netherscope::net::upstream {

/// The scheme a target answered with on an earlier call, as the caller remembers it.
enum class scheme_hint : std::uint8_t {
  /// Nothing known: detect (TLS within the detection deadline, then plain HTTP).
  unknown,
  /// It spoke TLS: the handshake gets the whole connect deadline; plain HTTP still follows
  /// when it fails.
  tls,
  /// It spoke plain HTTP: no TLS attempt at all.
  plain,
};

/// The certificate a TLS target presented, and whether the service trusts it.
struct tls_certificate {
  /// Whether the chain verified against the trusted CAs and names the target.
  bool trusted = false;
  /// The first verification failure as OpenSSL's X509_V_ERR_* code; 0 (X509_V_OK) when
  /// trusted.
  long verify_code = 0;
  /// OpenSSL's words for verify_code ("self-signed certificate"); empty when trusted.
  std::string error;
  /// The leaf's subject and issuer in RFC 2253 form, non-ASCII bytes escaped.
  std::string subject;
  std::string issuer;
  /// The leaf's validity, in Unix seconds.
  std::int64_t not_before = 0;
  std::int64_t not_after = 0;
  /// Lowercase hex SHA-256 of the leaf's DER, as certificate pins are written.
  std::string sha256;
};

/// One request to a target.
struct fetch_request {
  core::target where;
  /// "GET" or "POST".
  std::string method = "GET";
  std::string path = "/v1/join";
  /// Sent with the body when the body is not empty.
  std::string content_type;
  std::string body;
  /// Extra request headers (Accept, Authorization); never logged.
  std::vector<std::pair<std::string, std::string>> headers;
  /// Response headers to hand back in fetch_result::headers (names compared without letter
  /// case), for callers that read more than the body; empty for none.
  std::vector<std::string> response_headers;
  std::size_t body_limit = 64 * 1024;
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds total_timeout{10000};
  /// With tls auto-detected: how long the TLS handshake may take before the target counts as
  /// plain HTTP, when nothing is remembered. Bounded by connect_timeout.
  std::chrono::milliseconds tls_detect_timeout{1500};
  /// With tls auto-detected: what the caller remembers of the target's scheme.
  scheme_hint remembered = scheme_hint::unknown;
  /// Whether an untrusted certificate is reported in the result (the exchange goes on) rather
  /// than refused before anything is sent. Only for requests that carry nothing secret, such
  /// as a probe's status check or offer; never for requests with credentials.
  bool accept_untrusted_certificate = false;
  /// For offers: counts against the client's per-server offer limit, checked against the
  /// resolved addresses before connecting; a refusal is target_rate_limited with retry_after.
  bool limited = false;
  /// For a limited fetch: how many offers to the server may be in flight with this one, itself
  /// included (the players of a join; 1 for an offer).
  unsigned in_flight_limit = 1;
};

/// What the target answered, or why it did not.
struct fetch_result {
  /// upstream_failure, upstream_timeout or forbidden_target; none when a response arrived.
  core::failure error;
  std::uint16_t status = 0;
  /// Whether the response came over TLS.
  bool tls = false;
  std::string body;
  std::string content_type;
  /// The response headers the request named in response_headers that were present, each
  /// with its first value.
  std::vector<std::pair<std::string, std::string>> headers;
  /// The certificate the target presented, when the response came over TLS.
  std::optional<tls_certificate> certificate;
};

/// Settings shared by every fetch.
struct client_settings {
  address_policy policy;
  /// PEM file with extra trusted CAs; empty for the system store only.
  std::string ca_file;
  std::string user_agent = "libhttpclient/1.0.0.0";
  /// How names are looked up (c-ares on the io_context; no thread waits for a name server).
  dns_settings dns;
  /// The per-server limit on the fetches marked limited (offers): at most this many per
  /// minute to one resolved address and port, and one at a time.
  unsigned offers_per_minute = 6;
};

/// Makes fetches on an io_context; thread-safe, cheap to share. Every fetch runs on the
/// client's one strand, which also owns the per-server offer limit.
class http_client {
public:
  /// Creates a client; returns null and sets error when the TLS setup fails (bad CA file)
  /// or the resolver cannot start.
  static std::shared_ptr<http_client> make(boost::asio::io_context& ioc,
                                           client_settings settings, std::string& error);

  /// Starts a fetch; done runs exactly once, on an io thread, and must not block.
  void fetch(fetch_request request, std::function<void(fetch_result&&)> done);

  /// Lets a shared gate (the limit replicas on one store share) have the last word on limited
  /// fetches after this client's own limit. Call it once, before the first fetch.
  void share_offer_gate(shared_offer_gate gate);

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

} // namespace netherscope::net::upstream
