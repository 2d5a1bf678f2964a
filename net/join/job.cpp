#include "net/join/job.hpp"

#include <array>
#include <cmath>
#include <utility>

#include <boost/json.hpp>

#include "base/json_access.hpp"
#include "net/join/game.hpp"

namespace netherscope::net::join {

namespace json = boost::json;
using base::int64_at;
using base::string_at;
using base::view;

namespace {

constexpr std::array<std::pair<join_stage, std::string_view>, 6> stage_names{{
  {join_stage::signalling, "signalling"},
  {join_stage::ice, "ice"},
  {join_stage::dtls, "dtls"},
  {join_stage::sctp, "sctp"},
  {join_stage::channels, "channels"},
  {join_stage::game, "game"},
}};

constexpr std::array<std::pair<join_outcome, std::string_view>, 12> outcome_names{{
  {join_outcome::joined, "joined"},
  {join_outcome::outdated_client, "outdated_client"},
  {join_outcome::outdated_server, "outdated_server"},
  {join_outcome::game_refused, "game_refused"},
  {join_outcome::game_silent, "game_silent"},
  {join_outcome::game_unreadable, "game_unreadable"},
  {join_outcome::channels_refused, "channels_refused"},
  {join_outcome::sctp_failed, "sctp_failed"},
  {join_outcome::dtls_failed, "dtls_failed"},
  {join_outcome::fingerprint_mismatch, "fingerprint_mismatch"},
  {join_outcome::ice_failed, "ice_failed"},
  {join_outcome::worker_failed, "worker_failed"},
}};

/// The longest string kept from a report: candidates lines are at most 4096 bytes (the answer
/// parser's bound), every other string far less.
constexpr std::size_t max_report_string = 4096;

std::string bounded(const json::object& o, std::string_view key) {
  auto s = string_at(o, key);
  if (s == nullptr)
    return {};
  return std::string{view(*s).substr(0, max_report_string)};
}

std::optional<double> number_at(const json::object& o, std::string_view key) {
  auto i = o.find(key);
  if (i == o.end() || !i->value().is_number())
    return std::nullopt;
  auto d = i->value().to_number<double>();
  if (!std::isfinite(d))
    return std::nullopt;
  return d;
}

double ms_at(const json::object& o, std::string_view key) {
  auto d = number_at(o, key);
  return d && *d >= 0 && *d < 1e7 ? *d : -1;
}

bool bool_at(const json::object& o, std::string_view key) {
  auto i = o.find(key);
  return i != o.end() && i->value().is_bool() && i->value().get_bool();
}

unsigned count_at(const json::object& o, std::string_view key) {
  auto n = int64_at(o, key);
  return n && *n >= 0 && *n < 1000000 ? static_cast<unsigned>(*n) : 0;
}

template <class T>
std::optional<T> int_in(const json::object& o, std::string_view key, std::int64_t lo,
                        std::int64_t hi) {
  auto n = int64_at(o, key);
  if (!n || *n < lo || *n > hi)
    return std::nullopt;
  return static_cast<T>(*n);
}

} // namespace

std::string_view to_string(join_stage s) {
  for (auto& [v, name] : stage_names)
    if (v == s)
      return name;
  return "ice";
}

std::string_view to_string(join_outcome o) {
  for (auto& [v, name] : outcome_names)
    if (v == o)
      return name;
  return "worker_failed";
}

std::optional<join_stage> stage_from(std::string_view s) {
  for (auto& [v, name] : stage_names)
    if (name == s)
      return v;
  return std::nullopt;
}

std::optional<join_outcome> outcome_from(std::string_view s) {
  for (auto& [v, name] : outcome_names)
    if (name == s)
      return v;
  return std::nullopt;
}

std::string job_to_json(const join_job& job) {
  json::array candidates;
  for (auto& c : job.candidates)
    candidates.push_back(json::object{{"address", c.where.address.to_string()},
                                      {"port", c.where.port},
                                      {"raw", c.raw}});
  json::object o{
    {"localUfrag", job.ice.local_ufrag},
    {"localPwd", job.ice.local_pwd},
    {"remoteUfrag", job.ice.remote_ufrag},
    {"remotePwd", job.ice.remote_pwd},
    {"candidates", std::move(candidates)},
    {"fingerprint", job.fingerprint},
    {"role", job.role == dtls_role::server ? "server" : "client"},
    {"sctpPort", job.sctp_port},
    {"maxMessageSize", job.max_message_size},
    {"certificate", job.certificate_pem},
    {"key", job.key_pem},
    {"protocol", job.protocol},
    {"timeoutMs", job.timeout.count()},
    // A string: a JSON number cannot carry 64 bits exactly everywhere.
    {"tieBreaker", std::to_string(job.tie_breaker)},
  };
  return json::serialize(o);
}

std::optional<join_job> job_from_json(std::string_view text, std::string* why) {
  auto fail = [&](const char* reason) -> std::optional<join_job> {
    if (why != nullptr)
      *why = reason;
    return std::nullopt;
  };
  auto o = base::parse_object(text);
  if (!o)
    return fail("the job is not a JSON object");
  join_job job;
  job.ice.local_ufrag = bounded(*o, "localUfrag");
  job.ice.local_pwd = bounded(*o, "localPwd");
  job.ice.remote_ufrag = bounded(*o, "remoteUfrag");
  job.ice.remote_pwd = bounded(*o, "remotePwd");
  if (job.ice.local_ufrag.empty() || job.ice.local_pwd.empty() || job.ice.remote_ufrag.empty()
      || job.ice.remote_pwd.empty())
    return fail("the job lacks ICE credentials");
  auto c = o->find("candidates");
  if (c == o->end() || !c->value().is_array())
    return fail("the job lacks candidates");
  for (auto& v : c->value().get_array()) {
    if (!v.is_object() || job.candidates.size() == max_pairs)
      continue;
    auto& co = v.get_object();
    boost::system::error_code ec;
    auto address = boost::asio::ip::make_address(bounded(co, "address"), ec);
    auto port = int_in<std::uint16_t>(co, "port", 1, 65535);
    if (ec || !port)
      continue;
    job.candidates.push_back({{address, *port}, bounded(co, "raw")});
  }
  job.fingerprint = bounded(*o, "fingerprint");
  auto role = bounded(*o, "role");
  if (role != "server" && role != "client")
    return fail("the job's role is neither server nor client");
  job.role = role == "server" ? dtls_role::server : dtls_role::client;
  job.sctp_port = int_in<std::uint16_t>(*o, "sctpPort", 1, 65535).value_or(5000);
  job.max_message_size
    = int_in<std::uint32_t>(*o, "maxMessageSize", 0, 0xFFFFFFFF).value_or(65536);
  auto cert = string_at(*o, "certificate");
  auto key = string_at(*o, "key");
  if (cert == nullptr || key == nullptr)
    return fail("the job lacks the certificate or key");
  job.certificate_pem = std::string{view(*cert)};
  job.key_pem = std::string{view(*key)};
  auto protocol = int_in<std::int32_t>(*o, "protocol", 0, 0x7FFFFFFF);
  if (!protocol)
    return fail("the job lacks a protocol");
  job.protocol = *protocol;
  auto timeout = int_in<std::int64_t>(*o, "timeoutMs", 1, 60000);
  if (!timeout)
    return fail("the job's timeoutMs is not 1..60000");
  job.timeout = std::chrono::milliseconds{*timeout};
  try {
    job.tie_breaker = std::stoull(bounded(*o, "tieBreaker"));
  } catch (...) {
    return fail("the job's tieBreaker is not a number");
  }
  return job;
}

std::string report_to_json(const join_report& r) {
  json::array tried;
  for (auto& t : r.tried)
    tried.push_back(json::object{{"candidate", t.candidate},
                                 {"remote", t.remote},
                                 {"checksSent", t.checks_sent},
                                 {"answeredUs", t.answered_us},
                                 {"checkedUs", t.checked_us},
                                 {"badIntegrity", t.bad_integrity},
                                 {"errorAnswer", t.error_answer},
                                 {"rttMs", t.rtt_ms}});
  json::object o{
    {"stage", to_string(r.stage)},
    {"outcome", to_string(r.outcome)},
    {"detail", r.detail},
    {"tried", std::move(tried)},
    {"local", r.local},
    {"role", r.role == dtls_role::server ? "server" : "client"},
    {"fingerprintVerified", r.fingerprint_verified},
    {"srtpProfile", r.srtp_profile},
    {"cipher", r.cipher},
    {"alert", r.alert},
    {"alertFromPeer", r.alert_from_peer},
    {"reliableOpen", r.reliable_open},
    {"unreliableOpen", r.unreliable_open},
    {"protocolSent", r.protocol_sent},
    {"disconnectMessage", r.disconnect_message},
    {"bytesIn", r.bytes_in},
    {"datagramsIn", r.datagrams_in},
    {"timings", json::object{{"iceMs", r.timings.ice_ms},
                             {"dtlsMs", r.timings.dtls_ms},
                             {"sctpMs", r.timings.sctp_ms},
                             {"channelsMs", r.timings.channels_ms},
                             {"gameMs", r.timings.game_ms},
                             {"totalMs", r.timings.total_ms}}},
  };
  if (r.pair)
    o["pair"] = *r.pair;
  if (r.compression_threshold)
    o["compressionThreshold"] = *r.compression_threshold;
  if (r.compression_algorithm)
    o["compressionAlgorithm"] = *r.compression_algorithm;
  if (r.play_status)
    o["playStatus"] = *r.play_status;
  if (r.disconnect_reason)
    o["disconnectReason"] = *r.disconnect_reason;
  return json::serialize(o);
}

std::optional<join_report> report_from_json(std::string_view text) {
  auto o = base::parse_object(text);
  if (!o)
    return std::nullopt;
  join_report r;
  auto stage = stage_from(bounded(*o, "stage"));
  auto outcome = outcome_from(bounded(*o, "outcome"));
  if (!stage || !outcome)
    return std::nullopt;
  r.stage = *stage;
  r.outcome = *outcome;
  r.detail = bounded(*o, "detail");
  if (auto t = o->find("tried"); t != o->end() && t->value().is_array()) {
    for (auto& v : t->value().get_array()) {
      if (!v.is_object() || r.tried.size() == max_pairs)
        continue;
      auto& to = v.get_object();
      tried_pair p;
      p.candidate = bounded(to, "candidate");
      p.remote = bounded(to, "remote");
      p.checks_sent = count_at(to, "checksSent");
      p.answered_us = bool_at(to, "answeredUs");
      p.checked_us = count_at(to, "checkedUs");
      p.bad_integrity = count_at(to, "badIntegrity");
      p.error_answer = bool_at(to, "errorAnswer");
      p.rtt_ms = ms_at(to, "rttMs");
      r.tried.push_back(std::move(p));
    }
  }
  if (auto pair = int_in<std::size_t>(*o, "pair", 0, 1000); pair && *pair < r.tried.size())
    r.pair = *pair;
  r.local = bounded(*o, "local");
  r.role = bounded(*o, "role") == "client" ? dtls_role::client : dtls_role::server;
  r.fingerprint_verified = bool_at(*o, "fingerprintVerified");
  r.srtp_profile = bounded(*o, "srtpProfile");
  r.cipher = bounded(*o, "cipher");
  r.alert = bounded(*o, "alert");
  r.alert_from_peer = bool_at(*o, "alertFromPeer");
  r.reliable_open = bool_at(*o, "reliableOpen");
  r.unreliable_open = bool_at(*o, "unreliableOpen");
  r.protocol_sent = int_in<std::int32_t>(*o, "protocolSent", 0, 0x7FFFFFFF).value_or(0);
  r.compression_threshold = int_in<std::uint16_t>(*o, "compressionThreshold", 0, 0xFFFF);
  r.compression_algorithm = int_in<std::uint16_t>(*o, "compressionAlgorithm", 0, 0xFFFF);
  r.play_status = int_in<std::int32_t>(*o, "playStatus", INT32_MIN, INT32_MAX);
  r.disconnect_reason = int_in<std::int32_t>(*o, "disconnectReason", INT32_MIN, INT32_MAX);
  r.disconnect_message = bounded(*o, "disconnectMessage").substr(0, max_disconnect_message);
  r.bytes_in = int_in<std::uint64_t>(*o, "bytesIn", 0, INT64_MAX).value_or(0);
  r.datagrams_in = int_in<std::uint64_t>(*o, "datagramsIn", 0, INT64_MAX).value_or(0);
  if (auto t = base::object_at(*o, "timings")) {
    r.timings.ice_ms = ms_at(*t, "iceMs");
    r.timings.dtls_ms = ms_at(*t, "dtlsMs");
    r.timings.sctp_ms = ms_at(*t, "sctpMs");
    r.timings.channels_ms = ms_at(*t, "channelsMs");
    r.timings.game_ms = ms_at(*t, "gameMs");
    r.timings.total_ms = ms_at(*t, "totalMs");
  }
  return r;
}

} // namespace netherscope::net::join
