// Test support: a small HTTP client over loopback, and the service and fake target as processes.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "support/process.hpp"

namespace netherscope::test {

/// A response, or the error that prevented one.
struct http_reply {
  int status = 0;
  /// Header names in lower case; of a repeated header, the last one.
  std::map<std::string, std::string> headers;
  /// Every Set-Cookie header, in order (a response may set several cookies).
  std::vector<std::string> set_cookies;
  std::string body;
  /// Empty when a response arrived.
  std::string error;

  /// The header's value, or "".
  std::string header(const std::string& lower_name) const;
  /// The body parsed as JSON (null when it is not JSON).
  boost::json::value json() const;
  /// The machine `code` of an error body (SPEC 2.4), or "" when the body has none.
  std::string code() const;
};

using header_list = std::vector<std::pair<std::string, std::string>>;

/// Sends one request to 127.0.0.1:port on a new connection. With tls, no certificate check.
http_reply http_request(unsigned port, const std::string& method, const std::string& target,
                        const header_list& headers = {}, const std::string& body = {},
                        std::chrono::milliseconds timeout = std::chrono::seconds(30),
                        bool tls = false);

/// Writes raw bytes to 127.0.0.1:port and reads until the peer closes or the timeout.
std::string raw_exchange(unsigned port, const std::string& bytes,
                         std::chrono::milliseconds timeout);

/// The netherscope binary running on a free loopback port with a fresh data dir.
class service_process {
public:
  /// Starts it with --allow-loopback unless told otherwise, on data_dir if given (else a
  /// fresh temp dir).
  explicit service_process(std::vector<std::string> extra_args = {},
                           std::vector<std::string> env = {}, bool allow_loopback = true,
                           std::string data_dir = {});
  unsigned port() const noexcept {
    return port_;
  }
  child_process& process() {
    return *proc_;
  }
  const std::string& data_dir() const {
    return data_dir_;
  }

private:
  temp_dir data_;
  std::string data_dir_;
  std::unique_ptr<child_process> proc_;
  unsigned port_ = 0;
};

/// The fake NetherNet target (tools/fake_target) on a free loopback port.
class fake_target_process {
public:
  explicit fake_target_process(std::vector<std::string> args = {});
  unsigned port() const noexcept {
    return port_;
  }
  /// The port GET /_fake/stats answers on: the game port, or with --raknet only a port of its
  /// own (the game port has no TCP listener then).
  unsigned stats_port() const noexcept {
    return stats_port_ != 0 ? stats_port_ : port_;
  }
  child_process& process() {
    return *proc_;
  }
  /// GET /_fake/stats as JSON (over TLS when the target runs with --tls on).
  boost::json::object stats(bool tls = false);

private:
  std::unique_ptr<child_process> proc_;
  unsigned port_ = 0;
  unsigned stats_port_ = 0;
};

/// Runs `netherscope admin --data-dir dir args...`; returns its stdout, or throws on failure.
std::string run_admin(const std::string& data_dir, std::vector<std::string> args);

/// GET /api/info on the service with a query string.
http_reply get_info(const service_process& svc, const std::string& query,
                    std::chrono::milliseconds timeout = std::chrono::seconds(30));

/// POST /api/offer for the target 127.0.0.1:target_port, with extra request headers.
http_reply offer_call(const service_process& svc, unsigned target_port,
                      const header_list& extra_headers = {});

/// POST /api/offer for 127.0.0.1:target_port; extra_fields (e.g. `,"tls":false`) go into the
/// body after the port.
http_reply post_offer(const service_process& svc, unsigned target_port,
                      const std::string& extra_fields = {});

/// The reply's body as a JSON object; empty when it is not one.
boost::json::object body_of(const http_reply& reply);

/// The `error` sentence of an error body, or "" when there is none.
std::string error_text(const http_reply& reply);

/// X-RateLimit-Remaining as a number, or -1 when it is absent or not a number.
long long remaining(const http_reply& reply);

/// The reply for a test's message: the transport error, or the body with a long SDP answer
/// shortened and the whole cut at 3,000 characters.
std::string shown(const http_reply& reply);

/// The value of the fake target's counter name (on its TLS listener with tls).
std::int64_t stat(fake_target_process& fake, const char* name, bool tls = false);

/// A TCP port on 127.0.0.1 that nothing listened on a moment ago.
unsigned unused_port();

/// Whether an offer reply says it came from the cache ("cached": true).
bool served_from_cache(const http_reply& reply);

/// The value of one series in the service's GET /metrics, named as it is written there, e.g.
/// `netherscope_requests_total{route="/api/info",status="2xx"}`; nullopt when the series is
/// absent or the metrics cannot be read.
std::optional<std::int64_t> metric(const service_process& svc, const std::string& series);

} // namespace netherscope::test
