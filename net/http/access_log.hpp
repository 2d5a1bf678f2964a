// The access log's pieces that need no socket: which routes it leaves out, the error code a
// response carried, and the request ids that tie a log line to the response a client holds.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace netherscope::net::http {

/// True for the routes that probes and scrapers call every few seconds (/healthz, /readyz,
/// /metrics): the access log leaves them out unless asked to, so that it shows people's
/// calls and does not grow by a line per probe. Their counts are in /metrics either way.
bool is_probe_route(std::string_view route);

/// The machine code of a JSON error body ({"ok":false,"code":"...",...}), or empty when the
/// body is not one. Reads untrusted bytes without throwing.
std::string error_code_of(std::string_view body);

/// Makes the ids sent as X-Request-Id and written in the access log: a random prefix drawn
/// once per process (so replicas and restarts do not repeat each other's ids) and a counter,
/// for example "3f9a0c41d2e7-1a". Thread-safe.
class request_ids {
public:
  /// Draws the prefix from OpenSSL's generator, or from the clock if that ever fails.
  request_ids();

  /// The next id.
  std::string next();

  /// The process's prefix, without the separator.
  const std::string& prefix() const noexcept {
    return prefix_;
  }

private:
  std::string prefix_;
  std::atomic<std::uint64_t> counter_{0};
};

} // namespace netherscope::net::http
