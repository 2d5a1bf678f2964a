#include "net/report/join_reply.hpp"

#include <boost/json/serialize.hpp>

#include "core/api_json.hpp"
#include "core/explain.hpp"
#include "net/join/game.hpp"
#include "core/verdict.hpp"

namespace netherscope::net::report {

namespace json = boost::json;

namespace {

/// The worker's strings are a hostile server's words at one remove: bounded and valid UTF-8.
constexpr std::size_t max_worker_text = 512;

json::value ms_or_null(double ms) {
  return ms < 0 ? json::value(nullptr) : json::value(ms);
}

std::string reason_of(std::string_view outcome, const std::string& detail) {
  auto reason = core::explanation_meaning(outcome);
  if (!detail.empty())
    reason += " Here: " + core::valid_utf8(detail, max_worker_text) + ".";
  return reason;
}

json::object identity_of(const join_context& context) {
  if (context.offered_as.empty())
    return {{"kind", "self"}};
  return {{"kind", "xbox"}, {"gamertag", core::valid_utf8(context.offered_as, 64)}};
}

json::object protocol_of(const join_context& context, std::int32_t sent) {
  json::object out;
  out["sent"] = sent;
  out["server"] = context.order.server_protocol >= 0 ? json::value(context.order.server_protocol)
                                                     : json::value(nullptr);
  out["version"] = context.order.server_version.empty()
                     ? json::value(nullptr)
                     : json::value(core::valid_utf8(context.order.server_version, 64));
  return out;
}

/// The fields every join object has, set for a join that never reached the worker.
json::object skeleton(std::string_view stage, std::string_view outcome, const std::string& detail,
                      const join_context& context) {
  json::object body;
  body["joined"] = outcome == "joined";
  body["outcome"] = outcome;
  body["stage"] = stage;
  body["reason"] = reason_of(outcome, detail);
  body["detail"] = detail.empty() ? json::value(nullptr) : json::value(core::valid_utf8(detail, max_worker_text));
  body["networkId"] = context.order.network_id;
  body["protocol"] = protocol_of(context, context.order.protocol);
  body["pair"] = nullptr;
  body["tried"] = json::array{};
  body["dtls"] = nullptr;
  body["channels"] = nullptr;
  body["networkSettings"] = nullptr;
  body["playStatus"] = nullptr;
  body["disconnectReason"] = nullptr;
  body["disconnectMessage"] = nullptr;
  body["timings"] = json::object{{"signallingMs", ms_or_null(context.signalling_ms)},
                                 {"iceMs", nullptr},
                                 {"dtlsMs", nullptr},
                                 {"sctpMs", nullptr},
                                 {"channelsMs", nullptr},
                                 {"gameMs", nullptr},
                                 {"totalMs", ms_or_null(context.signalling_ms)}};
  body["offerIdentity"] = identity_of(context);
  body["offer"] = context.offer;
  body["offerError"] = context.offer_error;
  return body;
}

json::array tried_of(const join::join_report& report) {
  json::array out;
  for (const auto& t : report.tried) {
    json::object o;
    o["candidate"] = core::valid_utf8(t.candidate, max_worker_text);
    o["remote"] = core::valid_utf8(t.remote, 64);
    o["checksSent"] = t.checks_sent;
    o["answered"] = t.answered_us;
    o["checkedUs"] = t.checked_us;
    o["badIntegrity"] = t.bad_integrity;
    o["errorAnswer"] = t.error_answer;
    o["rttMs"] = ms_or_null(t.rtt_ms);
    out.push_back(std::move(o));
  }
  return out;
}

json::value pair_of(const join::join_report& report) {
  if (!report.pair || *report.pair >= report.tried.size())
    return nullptr;
  const auto& t = report.tried[*report.pair];
  return json::object{{"local", core::valid_utf8(report.local, 64)},
                      {"remote", core::valid_utf8(t.remote, 64)},
                      {"candidate", core::valid_utf8(t.candidate, max_worker_text)},
                      {"rttMs", ms_or_null(t.rtt_ms)}};
}

json::value dtls_of(const join::join_report& report) {
  if (report.stage == join::join_stage::ice)
    return nullptr;
  json::object o;
  o["role"] = report.role == join::dtls_role::server ? "server" : "client";
  o["fingerprintVerified"] = report.fingerprint_verified;
  o["srtp"] = !report.srtp_profile.empty();
  o["srtpProfile"] = report.srtp_profile.empty() ? json::value(nullptr)
                                                 : json::value(core::valid_utf8(report.srtp_profile, 64));
  o["cipher"] = report.cipher.empty() ? json::value(nullptr)
                                      : json::value(core::valid_utf8(report.cipher, 64));
  o["alert"] = report.alert.empty() ? json::value(nullptr)
                                    : json::value(core::valid_utf8(report.alert, 64));
  o["alertFrom"] = report.alert.empty() ? json::value(nullptr)
                                        : json::value(report.alert_from_peer ? "server" : "us");
  return o;
}

bool reached(const join::join_report& report, join::join_stage stage) {
  return static_cast<int>(report.stage) >= static_cast<int>(stage);
}

} // namespace

core::join_order join_order_for(const core::transports_seen& seen, std::int32_t asked,
                               std::string network_id) {
  core::join_order order;
  order.network_id = std::move(network_id);
  order.server_protocol = seen.nethernet_protocol;
  order.server_version = seen.nethernet_version;
  order.protocol = asked;
  if (order.protocol == 0)
    order.protocol = seen.nethernet_protocol > 0 && seen.nethernet_protocol <= INT32_MAX
                       ? static_cast<std::int32_t>(seen.nethernet_protocol)
                       : core::newest_known_protocol();
  return order;
}

std::string_view signalling_outcome(const core::failure& offer_error, bool signed_in) {
  switch (offer_error.code) {
    case core::error_code::upstream_timeout:
      return "offer_timeout";
    case core::error_code::upstream_failure:
      return "offer_unreachable";
    case core::error_code::upstream_invalid_answer:
      return "offer_unreadable";
    default:
      break;
  }
  if (core::classify_refusal(offer_error) == core::refusal_kind::auth_required)
    return signed_in ? "not_allowed" : "auth_required";
  return "offer_refused";
}

core::join_result unjoined(std::string_view stage, std::string_view outcome, std::string detail,
                          const join_context& context) {
  core::join_result out;
  out.outcome = std::string{outcome};
  out.stage = std::string{stage};
  out.body = skeleton(stage, outcome, detail, context);
  return out;
}

core::join_result describe_join(const join::join_report& report, const join_context& context) {
  auto outcome = join::to_string(report.outcome);
  auto stage = join::to_string(report.stage);
  core::join_result out;
  out.joined = report.outcome == join::join_outcome::joined;
  out.outcome = std::string{outcome};
  out.stage = std::string{stage};
  auto body = skeleton(stage, outcome, report.detail, context);
  body["protocol"] = protocol_of(context, report.protocol_sent != 0 ? report.protocol_sent
                                                                    : context.order.protocol);
  body["pair"] = pair_of(report);
  body["tried"] = tried_of(report);
  body["dtls"] = dtls_of(report);
  if (reached(report, join::join_stage::channels))
    body["channels"] = json::object{{"reliable", report.reliable_open},
                                    {"unreliable", report.unreliable_open}};
  if (report.compression_threshold && report.compression_algorithm)
    body["networkSettings"]
      = json::object{{"compressionThreshold", *report.compression_threshold},
                     {"compressionAlgorithm", join::compression_name(*report.compression_algorithm)}};
  if (report.play_status)
    body["playStatus"] = *report.play_status;
  if (report.disconnect_reason)
    body["disconnectReason"] = *report.disconnect_reason;
  if (!report.disconnect_message.empty())
    body["disconnectMessage"] = core::valid_utf8(report.disconnect_message, max_worker_text);
  const auto& t = report.timings;
  auto total = t.total_ms < 0 ? context.signalling_ms
                              : t.total_ms + (context.signalling_ms < 0 ? 0 : context.signalling_ms);
  body["timings"] = json::object{{"signallingMs", ms_or_null(context.signalling_ms)},
                                 {"iceMs", ms_or_null(t.ice_ms)},
                                 {"dtlsMs", ms_or_null(t.dtls_ms)},
                                 {"sctpMs", ms_or_null(t.sctp_ms)},
                                 {"channelsMs", ms_or_null(t.channels_ms)},
                                 {"gameMs", ms_or_null(t.game_ms)},
                                 {"totalMs", ms_or_null(total)}};
  out.body = std::move(body);
  return out;
}

std::optional<double> join_timing_ms(const json::object& join, std::string_view name) {
  auto* timings = join.if_contains("timings");
  if (timings == nullptr || !timings->is_object())
    return std::nullopt;
  auto* ms = timings->as_object().if_contains(name);
  if (ms == nullptr || !ms->is_number())
    return std::nullopt;
  return ms->to_number<double>();
}

json::value port_pool(const core::join_result& first, const core::join_result& second) {
  if (first.joined && second.joined)
    return "enough";
  if (first.joined || second.joined)
    return "one_port";
  return nullptr;
}

std::string render_join(const core::join_result& first, const core::join_result* second) {
  json::object body;
  body["ok"] = true;
  for (const auto& [key, value] : first.body)
    body[key] = value;
  if (second != nullptr) {
    body["second"] = second->body;
    body["portPool"] = port_pool(first, *second);
  }
  return json::serialize(body);
}

} // namespace netherscope::net::report
