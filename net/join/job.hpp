// What the service hands the join worker (a job) and what the worker hands back (a report),
// and both as JSON, the form they cross the process boundary in. The report is read back as
// hostile input: the worker parsed a stranger's bytes, so nothing it says is trusted beyond
// its shape and its bounds.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "net/join/dtls.hpp"
#include "net/join/ice_agent.hpp"

namespace netherscope::net::join {

/// The most candidate pairs one join checks.
constexpr std::size_t max_pairs = 8;

/// Everything a join needs once the offer was answered.
struct join_job {
  ice_credentials ice;
  /// The candidates the address policy allowed, at most max_pairs.
  std::vector<remote_candidate> candidates;
  /// The answer's a=fingerprint (sha-256, "AB:CD:...").
  std::string fingerprint;
  /// From the answer's a=setup: active makes us the server.
  dtls_role role = dtls_role::server;
  /// The answer's a=sctp-port.
  std::uint16_t sctp_port = 5000;
  /// The answer's a=max-message-size (what we may send at most).
  std::uint32_t max_message_size = 65536;
  /// Our DTLS certificate and key, whose fingerprint the offer carried.
  std::string certificate_pem;
  std::string key_pem;
  /// The client protocol RequestNetworkSettings says.
  std::int32_t protocol = 0;
  /// The whole join's time, from the worker's start.
  std::chrono::milliseconds timeout{5000};
  std::uint64_t tie_breaker = 0;
};

/// The stages of a join, in order.
enum class join_stage { signalling, ice, dtls, sctp, channels, game };

/// How a join ended (the API's "outcome" codes, explained in explanations.json).
enum class join_outcome {
  joined,
  outdated_client,
  outdated_server,
  game_refused,
  game_silent,
  game_unreadable,
  channels_refused,
  sctp_failed,
  dtls_failed,
  fingerprint_mismatch,
  ice_failed,
  /// The worker could not run (it crashed, was killed, or said nothing readable).
  worker_failed,
};

/// The line a serving worker writes after a join's report, once it has closed the join and
/// may take another job.
inline constexpr std::string_view worker_ready_line = "{\"ready\":true}";

std::string_view to_string(join_stage s);
std::string_view to_string(join_outcome o);
std::optional<join_stage> stage_from(std::string_view s);
std::optional<join_outcome> outcome_from(std::string_view s);

/// One candidate as the join tried it.
struct tried_pair {
  std::string candidate;
  std::string remote;
  unsigned checks_sent = 0;
  bool answered_us = false;
  unsigned checked_us = 0;
  unsigned bad_integrity = 0;
  bool error_answer = false;
  double rtt_ms = -1;
};

/// Milliseconds each stage took; a stage not reached stays negative.
struct join_timings {
  double ice_ms = -1;
  double dtls_ms = -1;
  double sctp_ms = -1;
  double channels_ms = -1;
  double game_ms = -1;
  double total_ms = -1;
};

/// What the worker reports.
struct join_report {
  join_stage stage = join_stage::ice;
  join_outcome outcome = join_outcome::ice_failed;
  /// What went wrong in a few words, for the reason ("alert 71 insufficient security from the
  /// server"); empty when joined.
  std::string detail;
  std::vector<tried_pair> tried;
  /// The pair that worked, as an index into tried.
  std::optional<std::size_t> pair;
  std::string local;
  dtls_role role = dtls_role::server;
  bool fingerprint_verified = false;
  std::string srtp_profile;
  std::string cipher;
  std::string alert;
  bool alert_from_peer = false;
  bool reliable_open = false;
  bool unreliable_open = false;
  std::int32_t protocol_sent = 0;
  std::optional<std::uint16_t> compression_threshold;
  std::optional<std::uint16_t> compression_algorithm;
  std::optional<std::int32_t> play_status;
  std::optional<std::int32_t> disconnect_reason;
  std::string disconnect_message;
  join_timings timings;
  /// Bytes and datagrams the worker received, for the bounds.
  std::uint64_t bytes_in = 0;
  std::uint64_t datagrams_in = 0;
};

/// The job as JSON, and read back; nullopt (with why) when a field is missing or out of range.
std::string job_to_json(const join_job& job);
std::optional<join_job> job_from_json(std::string_view text, std::string* why = nullptr);

/// The report as JSON, and read back with every string cut to a bound and every number
/// checked; nullopt when it is not a report.
std::string report_to_json(const join_report& report);
std::optional<join_report> report_from_json(std::string_view text);

} // namespace netherscope::net::join
