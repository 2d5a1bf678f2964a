// Webhooks as every room sees them: what a caller asks for, a webhook as the API shows it
// (never its secret), the outcome of one delivery, and the limits (docs/WATCHES.md,
// "Alerts").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/failure.hpp"
#include "core/webhook_body.hpp"

namespace netherscope::core {

/// The most webhooks one watch may have.
inline constexpr std::size_t max_webhooks_per_watch = 5;

/// The longest reason a webhook's last failure keeps, in bytes.
inline constexpr std::size_t longest_failure_reason = 200;

/// A webhook to add, as POST /api/watch/{id}/webhooks names it.
struct webhook_spec {
  /// The URL as given; check_webhook_url judges it.
  std::string url;
  webhook_format format = webhook_format::json;
};

/// One webhook as the API shows it.
struct webhook_view {
  /// 16 URL-safe characters, like a watch id.
  std::string id;
  std::string url;
  webhook_format format = webhook_format::json;
  /// Unix seconds.
  std::int64_t created = 0;
  /// Whether deliveries are failing: a delivery gave up after its retries, and none has
  /// succeeded since.
  bool failing = false;
  /// When it started failing (Unix seconds); 0 while it is not.
  std::int64_t failing_since = 0;
  /// When a delivery last gave up (Unix seconds), and why; 0 and empty when none ever did.
  /// Kept after the webhook recovers.
  std::int64_t last_failure_at = 0;
  std::string last_failure;
};

/// What one delivery's try came to.
struct webhook_delivery {
  /// Why no response came (upstream_failure, upstream_timeout, forbidden_target), or none.
  failure error;
  /// The receiver's status when a response came; 0 otherwise.
  std::uint16_t status = 0;
  /// For a discord_live webhook (core/discord_live.hpp): the message the next delivery edits,
  /// once this one is delivered; whether the message it edited was gone, so the same delivery
  /// posts a new one; and how long Discord asked to wait before the next try (a 429), in
  /// milliseconds.
  std::string live_message;
  bool live_gone = false;
  std::uint32_t wait_ms = 0;

  /// Whether the receiver took it: a 2xx. A redirect is no success, since none is followed.
  bool delivered() const noexcept {
    return error.ok() && status >= 200 && status <= 299;
  }
};

} // namespace netherscope::core
