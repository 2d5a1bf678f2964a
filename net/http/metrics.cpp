#include "net/http/metrics.hpp"

namespace netherscope::net {

void request_counters::count(std::string_view route, unsigned status) noexcept {
  std::size_t r = metric_routes.size() - 1;
  for (std::size_t i = 0; i + 1 < metric_routes.size(); ++i)
    if (metric_routes[i] == route)
      r = i;
  std::size_t c = status < 300 ? 0 : status < 400 ? 1 : status < 500 ? 2 : 3;
  counts_[r * metric_classes.size() + c].fetch_add(1, std::memory_order_relaxed);
}

std::string render_metrics(const metrics_snapshot& m) {
  std::string out;
  out += "# HELP netherscope_requests_total Responses sent, by route and status class.\n"
         "# TYPE netherscope_requests_total counter\n";
  for (std::size_t r = 0; r < metric_routes.size(); ++r) {
    for (std::size_t c = 0; c < metric_classes.size(); ++c) {
      out += "netherscope_requests_total{route=\"";
      out += metric_routes[r];
      out += "\",status=\"";
      out += metric_classes[c];
      out += "\"} ";
      out += std::to_string(m.requests ? m.requests->get(r, c) : 0);
      out += "\n";
    }
  }
  auto gauge = [&](std::string_view name, std::string_view help, std::uint64_t value) {
    out += "# HELP netherscope_";
    out += name;
    out += " ";
    out += help;
    out += "\n# TYPE netherscope_";
    out += name;
    out += " gauge\nnetherscope_";
    out += name;
    out += " ";
    out += std::to_string(value);
    out += "\n";
  };
  gauge("connections", "Open client connections.", m.connections);
  gauge("in_flight", "Calls with the actors, not yet answered.", m.in_flight);
  gauge("probes", "Probe actors alive, one per target recently asked.", m.probes);
  gauge("offer_cache_entries", "Offer results in the cache.", m.cache_entries);
  return out;
}

} // namespace netherscope::net
