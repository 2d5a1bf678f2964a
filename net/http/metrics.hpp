// Prometheus text for GET /metrics: request counters kept by the edge, gauges from the actors.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace netherscope::net {

/// The routes counted apart; everything else is "other".
constexpr std::array<std::string_view, 9> metric_routes{
  "/api/info", "/api/offer", "/api/check", "/api/account", "/api/account/key",
  "/auth/github/login", "/auth/github/callback", "/badge", "other"};

/// Status classes counted apart.
constexpr std::array<std::string_view, 4> metric_classes{"2xx", "3xx", "4xx", "5xx"};

/// Request counters, updated by sessions as responses leave.
class request_counters {
public:
  /// Counts one response.
  void count(std::string_view route, unsigned status) noexcept;

  /// The count for one route and status class.
  std::uint64_t get(std::size_t route, std::size_t status_class) const noexcept {
    return counts_[route * metric_classes.size() + status_class].load(std::memory_order_relaxed);
  }

private:
  std::array<std::atomic<std::uint64_t>, metric_routes.size() * metric_classes.size()> counts_{};
};

/// Everything /metrics shows, read at one moment.
struct metrics_snapshot {
  const request_counters* requests = nullptr;
  std::uint64_t connections = 0;
  std::uint64_t in_flight = 0;
  std::uint64_t probes = 0;
  std::uint64_t cache_entries = 0;
};

/// Renders the Prometheus text exposition format (version 0.0.4).
std::string render_metrics(const metrics_snapshot& m);

} // namespace netherscope::net
