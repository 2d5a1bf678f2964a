// GET /metrics as text: the latency histogram's cumulative buckets, the telemetry families,
// and the Redis gauge that only a Redis store shows.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "core/telemetry.hpp"
#include "net/http/metrics.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

} // namespace

TEST_CASE("metrics: the latency histogram is cumulative, in seconds, per route", "[metrics]") {
  net::http::request_counters requests;
  requests.count("/api/info", 200, 200us);
  requests.count("/api/info", 200, 3ms);
  requests.count("/api/info", 502, 30s);
  requests.count("/nowhere", 404, 1ms);
  net::http::metrics_snapshot m;
  m.requests = &requests;
  auto text = net::http::render_metrics(m);
  const std::string info = "netherscope_http_request_duration_seconds_bucket{route=\"/api/info\",";
  CHECK(has_line(text, "# TYPE netherscope_http_request_duration_seconds histogram"));
  CHECK(has_line(text, info + "le=\"0.000500\"} 1"));
  CHECK(has_line(text, info + "le=\"0.002500\"} 1"));
  CHECK(has_line(text, info + "le=\"0.005000\"} 2"));
  CHECK(has_line(text, info + "le=\"20.000000\"} 2"));
  CHECK(has_line(text, info + "le=\"+Inf\"} 3"));
  CHECK(has_line(text, "netherscope_http_request_duration_seconds_sum{route=\"/api/info\"} "
                       "30.003200"));
  CHECK(has_line(text, "netherscope_http_request_duration_seconds_count{route=\"/api/info\"} 3"));
  // A route not named is counted as "other"; a bound is inclusive (1 ms is in le=0.001).
  CHECK(has_line(text, "netherscope_http_request_duration_seconds_bucket{route=\"other\","
                       "le=\"0.001000\"} 1"));
  CHECK(has_line(text, "netherscope_requests_total{route=\"/api/info\",status=\"5xx\"} 1"));
}

TEST_CASE("metrics: failure codes map to upstream outcomes", "[metrics]") {
  CHECK(probe_outcome_of(error_code::none) == probe_outcome::ok);
  CHECK(probe_outcome_of(error_code::upstream_status) == probe_outcome::http_error);
  CHECK(probe_outcome_of(error_code::upstream_invalid_answer) == probe_outcome::invalid_answer);
  CHECK(probe_outcome_of(error_code::upstream_timeout) == probe_outcome::timeout);
  CHECK(probe_outcome_of(error_code::upstream_failure) == probe_outcome::unreachable);
  CHECK(probe_outcome_of(error_code::forbidden_target) == probe_outcome::refused);
  CHECK(probe_outcome_of(error_code::target_rate_limited) == probe_outcome::rate_limited);
  CHECK(probe_outcome_of(error_code::internal) == probe_outcome::other);
  // Every outcome has its own label.
  for (std::size_t i = 0; i < probe_outcomes.size(); ++i)
    for (std::size_t j = i + 1; j < probe_outcomes.size(); ++j)
      CHECK(to_string(probe_outcomes[i]) != to_string(probe_outcomes[j]));
}

TEST_CASE("metrics: telemetry families, and redis_up only with a Redis store", "[metrics]") {
  telemetry t;
  t.count_probe(probe_call::offer, probe_outcome::timeout);
  t.count_cache_hit();
  t.count_cache_join();
  t.count_cache_join();
  t.count_refusal(refusal_scope::key);
  t.count_store(store_backend::lmdb, false);
  t.count_store(store_backend::lmdb, true);
  for (int i = 0; i < 3; ++i)
    t.count_reserved_call();
  net::http::metrics_snapshot m;
  m.counters = &t;
  auto text = net::http::render_metrics(m);
  CHECK(has_line(text, "netherscope_upstream_requests_total{call=\"offer\",outcome=\"timeout\"} 1"));
  CHECK(has_line(text, "netherscope_upstream_requests_total{call=\"info\",outcome=\"timeout\"} 0"));
  CHECK(has_line(text, "netherscope_offer_cache_requests_total{result=\"hit\"} 1"));
  CHECK(has_line(text, "netherscope_offer_cache_requests_total{result=\"join\"} 2"));
  CHECK(has_line(text, "netherscope_offer_cache_requests_total{result=\"miss\"} 0"));
  CHECK(has_line(text, "netherscope_quota_refusals_total{scope=\"key\"} 1"));
  CHECK(has_line(text, "netherscope_store_operations_total{backend=\"lmdb\"} 2"));
  CHECK(has_line(text, "netherscope_store_errors_total{backend=\"lmdb\"} 1"));
  CHECK(has_line(text, "netherscope_quota_reserved_calls_total 3"));
  // An LMDB service has no Redis to be up or down: the gauge is absent, not 0.
  CHECK(text.find("netherscope_redis_up") == std::string::npos);
  t.set_redis_up(false);
  CHECK(has_line(net::http::render_metrics(m), "netherscope_redis_up 0"));
  t.set_redis_up(true);
  CHECK(has_line(net::http::render_metrics(m), "netherscope_redis_up 1"));
}
