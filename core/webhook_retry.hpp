// When a failed webhook delivery is tried again: delays growing threefold from 5 s up to a
// cap, each shortened by a deterministic jitter, until --webhook-retry-for seconds after the
// first try; then the delivery gives up and the webhook is marked failing until a delivery
// succeeds (docs/WATCHES.md, "Retries"). Pure: the jitter's draw comes from the caller.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace netherscope::core {

/// The retry schedule's settings.
struct retry_policy {
  /// The delay before the first retry, seconds.
  std::int64_t first_delay = 5;
  /// Each delay is this many times the one before...
  std::int64_t growth = 3;
  /// ...up to this, seconds.
  std::int64_t longest_delay = 300;
  /// How long after the first try retries may still start (--webhook-retry-for), seconds.
  std::int64_t retry_for = 600;
  /// The largest share of a delay the jitter takes off, so replicas and webhooks that failed
  /// together do not retry together.
  double jitter = 0.2;
};

/// The delay before retry number retry (1 for the first), seconds: first_delay x
/// growth^(retry-1), capped at longest_delay, less jitter x draw of it (draw in [0, 1),
/// clamped), never under 1.
std::int64_t retry_delay(const retry_policy& policy, unsigned retry, double draw);

/// When to try a delivery again after its failures-th failure (1 after the first try
/// failed) at failed_at, the first try having been at first_try (Unix seconds); nullopt when
/// that time would be past first_try + retry_for: the delivery gives up.
std::optional<std::int64_t> next_retry(const retry_policy& policy, std::int64_t first_try,
                                       std::int64_t failed_at, unsigned failures, double draw);

/// A draw in [0, 1) that depends only on its arguments (from SHA-256): the jitter every
/// replica computes alike for one delivery's retry, so a retry handed to another replica
/// keeps its time.
double jitter_draw(std::string_view delivery_id, unsigned retry);

} // namespace netherscope::core
