// Errors as values: one protocol-independent code and a public message.
//
// core/error_table maps each code to its HTTP status; nothing here knows HTTP.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace netherscope::core {

/// What went wrong, independent of any protocol; net/error_table maps it to HTTP.
enum class error_code : std::uint8_t {
  none,
  invalid_input,
  unauthorized,
  forbidden_target,
  /// The user cancelled or refused the sign-in at the provider (error=access_denied).
  signin_cancelled,
  /// A POST from the account page came from another site, or without its page's token.
  csrf_rejected,
  not_found,
  /// GET /api/explain/{code} for a code nothing explains.
  unknown_code,
  /// DELETE /api/watch/{id} for a watch that does not exist or is another account's.
  unknown_watch,
  /// POST /api/watch for a server the account already watches.
  watch_exists,
  /// POST /api/watch past the account's limit of watches (--watch-max-per-account).
  watch_limit_reached,
  /// A webhook route naming a webhook the watch does not have.
  unknown_webhook,
  /// POST /api/watch/{id}/webhooks past max_webhooks_per_watch.
  webhook_limit_reached,
  method_not_allowed,
  payload_too_large,
  unsupported_media_type,
  /// The request line is longer than the edge reads (HTTP 414).
  uri_too_long,
  /// The request header is larger than the edge reads (HTTP 431).
  headers_too_large,
  quota_exhausted,
  /// Too many sign-in attempts from this address this hour.
  signin_rate_limited,
  /// Too many new keys for this account this hour.
  rotation_limited,
  /// The per-target limit of fresh offers refused the call; retry_after says for how long.
  target_rate_limited,
  upstream_status,
  upstream_failure,
  /// The target answered an offer with a 2xx whose body is not a valid SDP answer.
  upstream_invalid_answer,
  upstream_timeout,
  unavailable,
  internal,
};

/// An error as a value: its code, a public message and, for upstream_status, what the target said.
struct failure {
  error_code code = error_code::none;
  /// A sentence for the caller; never contains secrets.
  std::string message;
  /// The target's HTTP status, for upstream_status.
  std::uint16_t http_status = 0;
  /// The first bytes of the target's body, for upstream_status.
  std::string body;
  /// A bare NetherNet error code found in the body, or -1.
  std::int32_t nethernet_error = -1;
  /// The name of nethernet_error, when known.
  std::string reason;
  /// Seconds the caller should wait before retrying, for the 429 codes (Retry-After).
  std::uint32_t retry_after = 0;

  bool ok() const noexcept {
    return code == error_code::none;
  }
};

/// Makes a failure with just a code and a message.
inline failure make_failure(error_code code, std::string message) {
  failure result;
  result.code = code;
  result.message = std::move(message);
  return result;
}

/// Makes an invalid_input failure: the caller's request is malformed, as message says.
inline failure invalid_input(std::string message) {
  return make_failure(error_code::invalid_input, std::move(message));
}

} // namespace netherscope::core
