#include "net/http/metrics.hpp"

#include <array>
#include <cstdio>

namespace netherscope::net::http {

namespace {

/// Milliseconds as seconds in the text format: "0.1", "2.5", "10".
std::string seconds_text(std::int64_t ms) {
  auto text = std::to_string(ms / 1000);
  if (auto rest = ms % 1000; rest != 0) {
    auto fraction = std::to_string(1000 + rest).substr(1);
    while (fraction.back() == '0')
      fraction.pop_back();
    text += "." + fraction;
  }
  return text;
}

std::size_t route_index(std::string_view route) noexcept {
  for (std::size_t i = 0; i + 1 < metric_routes.size(); ++i)
    if (metric_routes[i] == route)
      return i;
  return metric_routes.size() - 1;
}

// Microseconds as seconds with six decimals, as Prometheus wants durations in base units.
std::string seconds_of(std::uint64_t us) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%llu.%06llu", static_cast<unsigned long long>(us / 1000000),
                static_cast<unsigned long long>(us % 1000000));
  return buf;
}

/// Appends HELP and TYPE lines for one family.
void family(std::string& out, std::string_view name, std::string_view type,
            std::string_view help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

/// Appends one sample: name, labels as written (with their braces, or empty), value.
void sample(std::string& out, std::string_view name, std::string_view labels,
            std::string_view value) {
  out += name;
  out += labels;
  out += ' ';
  out += value;
  out += '\n';
}

/// A histogram kept in milliseconds, written in seconds: each bucket's count (not cumulative;
/// the last is above every bound) from count_in, and the sum.
template <std::size_t N, class CountIn>
void histogram_ms(std::string& out, std::string_view name, std::string_view help,
                  const std::array<std::int64_t, N>& bounds, CountIn count_in,
                  std::uint64_t sum_ms) {
  family(out, name, "histogram", help);
  std::string base{name};
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i <= N; ++i) {
    seen += count_in(i);
    auto le = i < N ? seconds_text(bounds[i]) : std::string{"+Inf"};
    sample(out, base + "_bucket", "{le=\"" + le + "\"}", std::to_string(seen));
  }
  sample(out, base + "_sum", "", seconds_text(static_cast<std::int64_t>(sum_ms)));
  sample(out, base + "_count", "", std::to_string(seen));
}

void latency_histogram(std::string& out, const request_counters& requests) {
  constexpr std::string_view name = "netherscope_http_request_duration_seconds";
  family(out, name, "histogram",
         "Time from a request being read to its response being written, by route.");
  for (std::size_t r = 0; r < metric_routes.size(); ++r) {
    std::string route{metric_routes[r]};
    std::uint64_t cumulative = 0;
    for (std::size_t b = 0; b < request_counters::bucket_count; ++b) {
      cumulative += requests.bucket(r, b);
      auto le = b < latency_bounds_us.size() ? seconds_of(latency_bounds_us[b]) : "+Inf";
      sample(out, std::string{name} + "_bucket", "{route=\"" + route + "\",le=\"" + le + "\"}",
             std::to_string(cumulative));
    }
    sample(out, std::string{name} + "_sum", "{route=\"" + route + "\"}",
           seconds_of(requests.sum_us(r)));
    sample(out, std::string{name} + "_count", "{route=\"" + route + "\"}",
           std::to_string(cumulative));
  }
}

void telemetry_families(std::string& out, const core::telemetry& t) {
  family(out, "netherscope_upstream_requests_total", "counter",
         "Requests probes sent to targets, by call and outcome.");
  for (auto call : core::probe_calls)
    for (auto outcome : core::probe_outcomes)
      sample(out, "netherscope_upstream_requests_total",
             std::string{"{call=\""} + std::string{to_string(call)} + "\",outcome=\""
               + std::string{to_string(outcome)} + "\"}",
             std::to_string(t.probes(call, outcome)));
  family(out, "netherscope_offer_cache_requests_total", "counter",
         "Offers asked of the cache: hit (answered from it), miss (started an upstream "
         "offer), join (shared an offer already under way).");
  sample(out, "netherscope_offer_cache_requests_total", "{result=\"hit\"}",
         std::to_string(t.cache_hits()));
  sample(out, "netherscope_offer_cache_requests_total", "{result=\"miss\"}",
         std::to_string(t.cache_misses()));
  sample(out, "netherscope_offer_cache_requests_total", "{result=\"join\"}",
         std::to_string(t.cache_joins()));
  family(out, "netherscope_offer_flights_from_replicas_total", "counter",
         "Upstream offers this replica did not send because another replica's answer, "
         "through the shared store, served the flight.");
  sample(out, "netherscope_offer_flights_from_replicas_total", "",
         std::to_string(t.shared_hits()));
  family(out, "netherscope_quota_refusals_total", "counter",
         "Calls a quota refused, by scope (ip and key monthly, signin hourly).");
  for (auto scope : {core::refusal_scope::ip, core::refusal_scope::key, core::refusal_scope::signin})
    sample(out, "netherscope_quota_refusals_total",
           "{scope=\"" + std::string{to_string(scope)} + "\"}",
           std::to_string(t.refusals(scope)));
  family(out, "netherscope_quota_reserved_calls_total", "counter",
         "Calls answered from calls counted ahead for a busy caller, without a store "
         "operation of their own.");
  sample(out, "netherscope_quota_reserved_calls_total", "", std::to_string(t.reserved_calls()));
  family(out, "netherscope_store_operations_total", "counter",
         "Quota transactions (LMDB) or round trips (Redis) sent to the store, by backend.");
  family(out, "netherscope_store_errors_total", "counter",
         "Store operations that failed, by backend.");
  for (auto backend : {core::store_backend::lmdb, core::store_backend::redis}) {
    auto labels = "{backend=\"" + std::string{to_string(backend)} + "\"}";
    sample(out, "netherscope_store_operations_total", labels,
           std::to_string(t.store_ops(backend)));
    sample(out, "netherscope_store_errors_total", labels,
           std::to_string(t.store_errors(backend)));
  }
  // Only a service with a Redis store has the gauge: an LMDB one showing 0 would read as
  // "Redis is down" to an alert written for the replicas.
  if (auto up = t.redis_up(); up >= 0) {
    family(out, "netherscope_redis_up", "gauge", "Whether the Redis store answers (1) or not (0).");
    sample(out, "netherscope_redis_up", "", std::to_string(up));
  }
  // Likewise only a service that may sign offers in has the Xbox link's families.
  if (auto link = t.xbox_link()) {
    family(out, "netherscope_xbox_link", "gauge",
           "The Xbox link's state, 1 for the current one: unlinked (no account), signed_in "
           "(offers carry the account's identity) or failing (its sign-in fails; see admin "
           "xbox-status).");
    for (auto state : core::xbox_link_states)
      sample(out, "netherscope_xbox_link", "{state=\"" + std::string{to_string(state)} + "\"}",
             state == *link ? "1" : "0");
    family(out, "netherscope_xbox_renewals_total", "counter",
           "Runs of the Xbox sign-in chain by this replica, by result (on Redis one replica "
           "renews for all).");
    sample(out, "netherscope_xbox_renewals_total", "{result=\"ok\"}",
           std::to_string(t.xbox_renewals(false)));
    sample(out, "netherscope_xbox_renewals_total", "{result=\"failed\"}",
           std::to_string(t.xbox_renewals(true)));
  }
  family(out, "netherscope_watch_checks_total", "counter",
         "Watched servers' checks this replica ran, by result: recorded (the check gave a row) or "
         "skipped (no row: the check could not be made, or another replica took its slot over).");
  sample(out, "netherscope_watch_checks_total", "{result=\"recorded\"}",
         std::to_string(t.watch_checks(true)));
  sample(out, "netherscope_watch_checks_total", "{result=\"skipped\"}",
         std::to_string(t.watch_checks(false)));
  histogram_ms(out, "netherscope_watch_schedule_lag_seconds",
               "How late this replica's checks of watched servers started after their slots.",
               core::lag_histogram::bounds_ms, [&](std::size_t i) { return t.watch_lags(i); },
               t.watch_lag_sum_ms());

  family(out, "netherscope_joins_total", "counter",
         "Joins as a player (POST /api/join, checks and watch checks) this replica ran, by "
         "outcome.");
  for (const auto& row : core::join_outcome_table)
    sample(out, "netherscope_joins_total", "{outcome=\"" + std::string{row.name} + "\"}",
           std::to_string(t.joins(row.code)));
  histogram_ms(out, "netherscope_join_duration_seconds",
               "How long this replica's joins took, signalling included.",
               core::join_histogram::bounds_ms, [&](std::size_t i) { return t.join_times(i); },
               t.join_time_sum_ms());
}

} // namespace

void request_counters::count(std::string_view route, unsigned status,
                             std::chrono::steady_clock::duration elapsed) noexcept {
  auto r = route_index(route);
  std::size_t c = status < 300 ? 0 : status < 400 ? 1 : status < 500 ? 2 : 3;
  counts_[r * metric_classes.size() + c].fetch_add(1, std::memory_order_relaxed);
  auto us = static_cast<std::uint64_t>(
    std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count());
  std::size_t b = 0;
  while (b < latency_bounds_us.size() && us > latency_bounds_us[b])
    ++b;
  buckets_[r * bucket_count + b].fetch_add(1, std::memory_order_relaxed);
  sums_us_[r].fetch_add(us, std::memory_order_relaxed);
}

std::string render_metrics(const metrics_snapshot& m) {
  std::string out;
  out.reserve(16 * 1024);
  family(out, "netherscope_requests_total", "counter",
         "Responses sent, by route and status class.");
  for (std::size_t r = 0; r < metric_routes.size(); ++r) {
    for (std::size_t c = 0; c < metric_classes.size(); ++c) {
      std::string labels = "{route=\"";
      labels += metric_routes[r];
      labels += "\",status=\"";
      labels += metric_classes[c];
      labels += "\"}";
      sample(out, "netherscope_requests_total", labels,
             std::to_string(m.requests ? m.requests->get(r, c) : 0));
    }
  }
  if (m.requests)
    latency_histogram(out, *m.requests);
  auto gauge = [&](std::string_view name, std::string_view help, std::uint64_t value) {
    auto full = "netherscope_" + std::string{name};
    family(out, full, "gauge", help);
    sample(out, full, "", std::to_string(value));
  };
  gauge("connections", "Open client connections.", m.connections);
  gauge("in_flight", "Calls with the actors, not yet answered.", m.in_flight);
  gauge("probes", "Probe actors alive, one per target recently asked.", m.probes);
  gauge("offer_cache_entries", "Offer results in the cache.", m.cache_entries);
  if (m.counters)
    telemetry_families(out, *m.counters);
  return out;
}

} // namespace netherscope::net::http
