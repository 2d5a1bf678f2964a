// Counters the actors and the store keep for GET /metrics: probe outcomes, the offer cache,
// quota refusals and store operations. They live here, in the vocabulary every room shares,
// because the rooms that count (actors/, storage/) and the one that renders (net/http/) may
// not include each other (docs/ARCHITECTURE.md).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/failure.hpp"
#include "core/join_codes.hpp"
#include "core/quota.hpp"
#include "core/watch_schedule.hpp"

namespace netherscope::core {

/// What a probe asked its target for: GET /v1/join, an offer, or a RakNet status ping.
enum class probe_call : std::uint8_t { info, offer, raknet };

/// The calls in label order; to_string gives each one's label.
constexpr std::array<probe_call, 3> probe_calls{probe_call::info, probe_call::offer,
                                                probe_call::raknet};

/// The label of a call: "info", "offer" or "raknet".
std::string_view to_string(probe_call call) noexcept;

/// How one upstream request of a probe ended, mapped from its failure code.
enum class probe_outcome : std::uint8_t {
  /// A 2xx (and, for an offer, a valid SDP answer).
  ok,
  /// The target answered with a status other than 2xx (upstream_status).
  http_error,
  /// The offer's 2xx body is no valid SDP answer (upstream_invalid_answer).
  invalid_answer,
  /// Nothing usable came back in time (upstream_timeout).
  timeout,
  /// The target could not be reached: name lookup, connection or TLS handshake failed
  /// (upstream_failure; the client reports these three under one code).
  unreachable,
  /// The address policy refused the target before anything was sent (forbidden_target).
  refused,
  /// The per-target offer limit held the request back (target_rate_limited).
  rate_limited,
  /// Anything else (internal).
  other,
};

/// The outcomes in label order; to_string gives each one's label.
constexpr std::array<probe_outcome, 8> probe_outcomes{
  probe_outcome::ok,          probe_outcome::http_error, probe_outcome::invalid_answer,
  probe_outcome::timeout,     probe_outcome::unreachable, probe_outcome::refused,
  probe_outcome::rate_limited, probe_outcome::other};

/// The label of an outcome: "ok", "http_error", "invalid_answer", ...
std::string_view to_string(probe_outcome outcome) noexcept;

/// The outcome a probe's failure stands for (none: ok).
probe_outcome probe_outcome_of(error_code code) noexcept;

/// The outcome a RakNet status's code stands for (empty: ok): a pong that is not one is
/// invalid_answer, a port or host that does not answer unreachable.
probe_outcome probe_outcome_of_raknet(std::string_view code) noexcept;

/// The state of the service's Xbox link, as the token actor last saw it: no account linked,
/// offers signed in, or a link whose sign-in fails (the operator's problem).
enum class xbox_link_state : std::uint8_t { unlinked, signed_in, failing };

/// The states in label order; to_string gives each one's label.
constexpr std::array<xbox_link_state, 3> xbox_link_states{
  xbox_link_state::unlinked, xbox_link_state::signed_in, xbox_link_state::failing};

/// The label of a state: "unlinked", "signed_in" or "failing".
std::string_view to_string(xbox_link_state state) noexcept;

/// Which store implementation an operation went to.
enum class store_backend : std::uint8_t { lmdb, redis };

/// The label of a backend: "lmdb" or "redis".
std::string_view to_string(store_backend backend) noexcept;

/// Why a quota refused a call: the monthly quota of an address or a key, or the hourly
/// sign-in limit of an address.
enum class refusal_scope : std::uint8_t { ip, key, signin };

/// The label of a refusal scope: "ip", "key" or "signin".
std::string_view to_string(refusal_scope scope) noexcept;

/// The buckets of the joins' durations (POST /api/join's totalMs), upper bounds in
/// milliseconds; one more bucket holds what is above the last.
struct join_histogram {
  static constexpr std::array<std::int64_t, 9> bounds_ms{25, 50, 100, 250, 500, 1000, 2500,
                                                         5000, 10000};
};

/// The process's counters. Every update is one relaxed atomic add: no lock and no allocation,
/// so counting costs the hot path next to nothing. There is one set per process (see
/// process_telemetry), as there is one /metrics per process.
class telemetry {
public:
  /// Counts one upstream request of a probe.
  void count_probe(probe_call call, probe_outcome outcome) noexcept {
    probes_[index(call) * probe_outcomes.size() + index(outcome)].fetch_add(
      1, std::memory_order_relaxed);
  }

  /// Counts an offer answered from the cache.
  void count_cache_hit() noexcept {
    cache_hits_.fetch_add(1, std::memory_order_relaxed);
  }

  /// Counts an offer that started an upstream flight.
  void count_cache_miss() noexcept {
    cache_misses_.fetch_add(1, std::memory_order_relaxed);
  }

  /// Counts an offer that joined a flight already under way (single flight).
  void count_cache_join() noexcept {
    cache_joins_.fetch_add(1, std::memory_order_relaxed);
  }

  /// Counts a flight answered by another replica's offer through the shared store (Redis),
  /// so this replica sent the target nothing.
  void count_shared_hit() noexcept {
    shared_hits_.fetch_add(1, std::memory_order_relaxed);
  }

  /// Counts a call a quota refused.
  void count_refusal(refusal_scope scope) noexcept {
    refusals_[index(scope)].fetch_add(1, std::memory_order_relaxed);
  }

  /// Counts a call answered from calls counted ahead, without a store operation of its own.
  void count_reserved_call() noexcept {
    reserved_calls_.fetch_add(1, std::memory_order_relaxed);
  }

  /// Counts one store operation (a transaction, or a round trip), and whether it failed.
  void count_store(store_backend backend, bool failed) noexcept {
    store_ops_[index(backend)].fetch_add(1, std::memory_order_relaxed);
    if (failed)
      store_errors_[index(backend)].fetch_add(1, std::memory_order_relaxed);
  }

  /// Sets whether the Redis store answers (1) or not (0). Until the first call the service
  /// has no Redis store and /metrics leaves netherscope_redis_up out.
  void set_redis_up(bool up) noexcept {
    redis_up_.store(up ? 1 : 0, std::memory_order_relaxed);
  }

  /// Sets the Xbox link's state. Until the first call the service runs no token actor (no
  /// --xbox-endpoints or secrets key) and /metrics leaves netherscope_xbox_link out.
  void set_xbox_link(xbox_link_state state) noexcept {
    xbox_link_.store(static_cast<int>(state), std::memory_order_relaxed);
  }

  /// Counts one run of the Xbox chain by this replica, and whether it failed.
  void count_xbox_renewal(bool failed) noexcept {
    xbox_renewals_[failed ? 1 : 0].fetch_add(1, std::memory_order_relaxed);
  }

  /// Counts a join the service ran to an outcome (its code; a call refused before it ran,
  /// with no outcome, is none of these) and how long it took, totalMs, when it said.
  void count_join(join_outcome_code outcome, std::optional<double> total_ms) noexcept {
    auto i = static_cast<std::size_t>(outcome);
    if (i == 0 || i > join_outcome_table.size())
      return;
    joins_[i - 1].fetch_add(1, std::memory_order_relaxed);
    if (!total_ms)
      return;
    auto ms = static_cast<std::int64_t>(std::max(*total_ms, 0.0));
    std::size_t b = 0;
    while (b < join_histogram::bounds_ms.size() && ms > join_histogram::bounds_ms[b])
      ++b;
    join_time_buckets_[b].fetch_add(1, std::memory_order_relaxed);
    join_time_sum_ms_.fetch_add(static_cast<std::uint64_t>(ms), std::memory_order_relaxed);
  }

  /// Counts one watched server's check by how it ended: its row stored (recorded), or none
  /// (it could not be made, or another replica had taken its slot over).
  void count_watch_check(bool recorded) noexcept {
    watch_checks_[recorded ? 0 : 1].fetch_add(1, std::memory_order_relaxed);
  }

  /// Counts how late a watched server's check started after its slot, in milliseconds, in the
  /// buckets of lag_histogram (core/watch_schedule.hpp).
  void count_watch_lag(std::int64_t lag_ms) noexcept {
    lag_ms = std::max<std::int64_t>(lag_ms, 0);
    std::size_t b = 0;
    while (b < lag_histogram::bounds_ms.size() && lag_ms > lag_histogram::bounds_ms[b])
      ++b;
    watch_lag_buckets_[b].fetch_add(1, std::memory_order_relaxed);
    watch_lag_sum_ms_.fetch_add(static_cast<std::uint64_t>(lag_ms), std::memory_order_relaxed);
  }

  // -- reading, for /metrics ----------------------------------------------------

  std::uint64_t probes(probe_call call, probe_outcome outcome) const noexcept {
    return probes_[index(call) * probe_outcomes.size() + index(outcome)].load(
      std::memory_order_relaxed);
  }
  std::uint64_t cache_hits() const noexcept {
    return cache_hits_.load(std::memory_order_relaxed);
  }
  std::uint64_t cache_misses() const noexcept {
    return cache_misses_.load(std::memory_order_relaxed);
  }
  std::uint64_t cache_joins() const noexcept {
    return cache_joins_.load(std::memory_order_relaxed);
  }
  std::uint64_t shared_hits() const noexcept {
    return shared_hits_.load(std::memory_order_relaxed);
  }
  std::uint64_t refusals(refusal_scope scope) const noexcept {
    return refusals_[index(scope)].load(std::memory_order_relaxed);
  }
  std::uint64_t reserved_calls() const noexcept {
    return reserved_calls_.load(std::memory_order_relaxed);
  }
  std::uint64_t store_ops(store_backend backend) const noexcept {
    return store_ops_[index(backend)].load(std::memory_order_relaxed);
  }
  std::uint64_t store_errors(store_backend backend) const noexcept {
    return store_errors_[index(backend)].load(std::memory_order_relaxed);
  }
  /// 1 up, 0 down, -1 no Redis store in this process.
  int redis_up() const noexcept {
    return redis_up_.load(std::memory_order_relaxed);
  }
  /// The Xbox link's state, or nullopt while no token actor has set one.
  std::optional<xbox_link_state> xbox_link() const noexcept {
    auto v = xbox_link_.load(std::memory_order_relaxed);
    if (v < 0)
      return std::nullopt;
    return static_cast<xbox_link_state>(v);
  }
  /// Chain runs that succeeded (failed false) or failed.
  std::uint64_t xbox_renewals(bool failed) const noexcept {
    return xbox_renewals_[failed ? 1 : 0].load(std::memory_order_relaxed);
  }

  /// Watch checks whose row was stored (recorded true) or not.
  std::uint64_t watch_checks(bool recorded) const noexcept {
    return watch_checks_[recorded ? 0 : 1].load(std::memory_order_relaxed);
  }
  /// Watch check lags in bucket i (not cumulative; the last is above every bound), and their
  /// sum in milliseconds.
  std::uint64_t watch_lags(std::size_t i) const noexcept {
    return watch_lag_buckets_[i].load(std::memory_order_relaxed);
  }
  std::uint64_t watch_lag_sum_ms() const noexcept {
    return watch_lag_sum_ms_.load(std::memory_order_relaxed);
  }
  /// Joins that ended with the outcome.
  std::uint64_t joins(join_outcome_code outcome) const noexcept {
    auto i = static_cast<std::size_t>(outcome);
    return i == 0 || i > join_outcome_table.size()
             ? 0
             : joins_[i - 1].load(std::memory_order_relaxed);
  }
  /// Timed joins in bucket i (not cumulative; the last is above every bound), and their sum.
  std::uint64_t join_times(std::size_t i) const noexcept {
    return join_time_buckets_[i].load(std::memory_order_relaxed);
  }
  std::uint64_t join_time_sum_ms() const noexcept {
    return join_time_sum_ms_.load(std::memory_order_relaxed);
  }

private:
  template <class Enum>
  static constexpr std::size_t index(Enum value) noexcept {
    return static_cast<std::size_t>(value);
  }

  std::array<std::atomic<std::uint64_t>, probe_calls.size() * probe_outcomes.size()> probes_{};
  std::atomic<std::uint64_t> cache_hits_{0};
  std::atomic<std::uint64_t> cache_misses_{0};
  std::atomic<std::uint64_t> cache_joins_{0};
  std::atomic<std::uint64_t> shared_hits_{0};
  std::array<std::atomic<std::uint64_t>, 3> refusals_{};
  std::atomic<std::uint64_t> reserved_calls_{0};
  std::array<std::atomic<std::uint64_t>, 2> store_ops_{};
  std::array<std::atomic<std::uint64_t>, 2> store_errors_{};
  std::atomic<int> redis_up_{-1};
  std::atomic<int> xbox_link_{-1};
  std::array<std::atomic<std::uint64_t>, 2> xbox_renewals_{};
  std::array<std::atomic<std::uint64_t>, 2> watch_checks_{};
  std::array<std::atomic<std::uint64_t>, lag_histogram::bounds_ms.size() + 1> watch_lag_buckets_{};
  std::atomic<std::uint64_t> watch_lag_sum_ms_{0};
  std::array<std::atomic<std::uint64_t>, join_outcome_table.size()> joins_{};
  std::array<std::atomic<std::uint64_t>, join_histogram::bounds_ms.size() + 1> join_time_buckets_{};
  std::atomic<std::uint64_t> join_time_sum_ms_{0};
};

/// The process's one set of counters. A process-wide object rather than one passed down
/// through every actor's settings: the counters describe the process, the way Prometheus
/// client libraries keep a default registry, and passing them would touch every constructor
/// for nothing a test needs (tests read differences, never absolute values).
telemetry& process_telemetry() noexcept;

} // namespace netherscope::core
