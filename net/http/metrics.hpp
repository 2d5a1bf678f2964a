// Prometheus text for GET /metrics: request counters and latencies kept by the edge, the
// process's telemetry (probes, cache, quotas, store), gauges from the actors.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/telemetry.hpp"

namespace netherscope::net::http {

/// The routes counted apart; everything else is "other".
constexpr std::array<std::string_view, 10> metric_routes{
  "/api/info", "/api/offer", "/api/check", "/api/status", "/api/account", "/api/account/key",
  "/auth/github/login", "/auth/github/callback", "/badge", "other"};

/// Status classes counted apart.
constexpr std::array<std::string_view, 4> metric_classes{"2xx", "3xx", "4xx", "5xx"};

/// Upper bounds of the latency histogram's buckets, in microseconds (+Inf is implied). From
/// a cached answer (well under a millisecond) to a target that uses its whole answer
/// deadline (20 s by default).
constexpr std::array<std::uint64_t, 14> latency_bounds_us{
  500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000, 1000000, 2500000,
  5000000, 20000000};

/// Request counters and latencies, updated by sessions as responses leave.
class request_counters {
public:
  /// Counts one response and how long it took from the request being read to its write.
  /// Relaxed atomic adds only: no lock, no allocation.
  void count(std::string_view route, unsigned status,
             std::chrono::steady_clock::duration elapsed) noexcept;

  /// The count for one route and status class.
  std::uint64_t get(std::size_t route, std::size_t status_class) const noexcept {
    return counts_[route * metric_classes.size() + status_class].load(std::memory_order_relaxed);
  }

  /// Responses of one route that fell in one bucket (not cumulative; the last is +Inf).
  std::uint64_t bucket(std::size_t route, std::size_t bucket) const noexcept {
    return buckets_[route * bucket_count + bucket].load(std::memory_order_relaxed);
  }

  /// The sum of one route's latencies, in microseconds.
  std::uint64_t sum_us(std::size_t route) const noexcept {
    return sums_us_[route].load(std::memory_order_relaxed);
  }

  /// Buckets per route, +Inf included.
  static constexpr std::size_t bucket_count = latency_bounds_us.size() + 1;

private:
  std::array<std::atomic<std::uint64_t>, metric_routes.size() * metric_classes.size()> counts_{};
  std::array<std::atomic<std::uint64_t>, metric_routes.size() * bucket_count> buckets_{};
  std::array<std::atomic<std::uint64_t>, metric_routes.size()> sums_us_{};
};

/// Everything /metrics shows, read at one moment.
struct metrics_snapshot {
  const request_counters* requests = nullptr;
  std::uint64_t connections = 0;
  std::uint64_t in_flight = 0;
  std::uint64_t probes = 0;
  std::uint64_t cache_entries = 0;
  /// The process's counters (process_telemetry() in the service); none leaves them out.
  const core::telemetry* counters = nullptr;
};

/// Renders the Prometheus text exposition format (version 0.0.4).
std::string render_metrics(const metrics_snapshot& m);

} // namespace netherscope::net::http
