#include "core/telemetry.hpp"

namespace netherscope::core {

std::string_view to_string(xbox_link_state state) noexcept {
  switch (state) {
    case xbox_link_state::signed_in:
      return "signed_in";
    case xbox_link_state::failing:
      return "failing";
    case xbox_link_state::unlinked:
      break;
  }
  return "unlinked";
}

std::string_view to_string(probe_outcome outcome) noexcept {
  switch (outcome) {
    case probe_outcome::ok:
      return "ok";
    case probe_outcome::http_error:
      return "http_error";
    case probe_outcome::invalid_answer:
      return "invalid_answer";
    case probe_outcome::timeout:
      return "timeout";
    case probe_outcome::unreachable:
      return "unreachable";
    case probe_outcome::refused:
      return "refused";
    case probe_outcome::rate_limited:
      return "rate_limited";
    case probe_outcome::other:
      break;
  }
  return "other";
}

probe_outcome probe_outcome_of(error_code code) noexcept {
  switch (code) {
    case error_code::none:
      return probe_outcome::ok;
    case error_code::upstream_status:
      return probe_outcome::http_error;
    case error_code::upstream_invalid_answer:
      return probe_outcome::invalid_answer;
    case error_code::upstream_timeout:
      return probe_outcome::timeout;
    case error_code::upstream_failure:
      return probe_outcome::unreachable;
    case error_code::forbidden_target:
      return probe_outcome::refused;
    case error_code::target_rate_limited:
      return probe_outcome::rate_limited;
    default:
      return probe_outcome::other;
  }
}

probe_outcome probe_outcome_of_raknet(std::string_view code) noexcept {
  if (code.empty())
    return probe_outcome::ok;
  if (code == "timeout")
    return probe_outcome::timeout;
  if (code == "malformed_pong")
    return probe_outcome::invalid_answer;
  if (code == "forbidden_target")
    return probe_outcome::refused;
  if (code == "no_listener" || code == "unreachable" || code == "lookup_failed"
      || code == "lookup_timeout")
    return probe_outcome::unreachable;
  return probe_outcome::other;
}

std::string_view to_string(probe_call call) noexcept {
  switch (call) {
    case probe_call::info:
      return "info";
    case probe_call::offer:
      return "offer";
    case probe_call::raknet:
      return "raknet";
  }
  return "info";
}

std::string_view to_string(store_backend backend) noexcept {
  return backend == store_backend::redis ? "redis" : "lmdb";
}

std::string_view to_string(refusal_scope scope) noexcept {
  switch (scope) {
    case refusal_scope::ip:
      return "ip";
    case refusal_scope::key:
      return "key";
    case refusal_scope::signin:
      break;
  }
  return "signin";
}

telemetry& process_telemetry() noexcept {
  static telemetry counters;
  return counters;
}

} // namespace netherscope::core
