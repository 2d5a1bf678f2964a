#include "core/error_table.hpp"

#include <array>

namespace netherscope::core {

namespace {

// PRODUCT.md "Errors" in code form. The order follows the enum, which lookup() relies on.
constexpr std::array<error_entry, 28> table{{
  {error_code::none, 200, "ok", "ok"},
  {error_code::invalid_input, 400, "invalid_input", "invalid input"},
  {error_code::unauthorized, 401, "unauthorized",
   "the API key is unknown or revoked"},
  {error_code::forbidden_target, 403, "forbidden_target",
   "the target address is refused by the address policy"},
  // The user chose not to sign in, which is a refusal of the request, not bad input.
  {error_code::signin_cancelled, 403, "signin_cancelled",
   "sign-in was cancelled at the provider"},
  // Told apart from other refusals so a page can say "reload the account page and try
  // again" rather than blame the user's input.
  {error_code::csrf_rejected, 403, "csrf_rejected",
   "the request did not come from this service's account page"},
  {error_code::not_found, 404, "not_found", "no such route"},
  // Its own code, so a caller can tell "no such code" from a mistyped route.
  {error_code::unknown_code, 404, "unknown_code",
   "nothing explains this code; GET /api/explain lists the codes"},
  // Another account's watch is not found either: an id never tells whether it exists.
  {error_code::unknown_watch, 404, "unknown_watch",
   "no such watch on this account"},
  // Both are a conflict with what the account already holds, not a rate: waiting does not
  // help, deleting a watch does, so neither is a 429.
  {error_code::watch_exists, 409, "watch_exists",
   "this account already watches that server"},
  {error_code::watch_limit_reached, 409, "watch_limit_reached",
   "this account has as many watches as it may hold"},
  {error_code::unknown_webhook, 404, "unknown_webhook",
   "no such webhook on this watch"},
  // As for watches: deleting a webhook helps, waiting does not.
  {error_code::webhook_limit_reached, 409, "webhook_limit_reached",
   "this watch has as many webhooks as it may have"},
  {error_code::method_not_allowed, 405, "method_not_allowed",
   "method not allowed on this route"},
  {error_code::payload_too_large, 413, "payload_too_large",
   "request body too large"},
  {error_code::unsupported_media_type, 415,
   "unsupported_media_type", "unsupported content type"},
  // RFC 9110 15.5.15 and RFC 6585 5: the two header limits get statuses of their own, so a
  // client can tell a URL that is too long from cookies or headers that are.
  {error_code::uri_too_long, 414, "uri_too_long",
   "the request line is too long"},
  {error_code::headers_too_large, 431, "headers_too_large",
   "the request header is too large"},
  {error_code::quota_exhausted, 429, "quota_exhausted",
   "quota exhausted"},
  // Each limit has its own code: a monthly quota, an hourly sign-in limit and an hourly key
  // limit call for different waits and different advice.
  {error_code::signin_rate_limited, 429, "signin_rate_limited",
   "too many sign-in attempts from this address; try again later"},
  {error_code::rotation_limited, 429, "rotation_limited",
   "too many new keys for this account; try again later"},
  // The server's protection, not the caller's monthly quota: its own code, so that a 429
  // with X-RateLimit-Remaining above zero does not read as a contradiction.
  {error_code::target_rate_limited, 429, "target_rate_limited",
   "too many fresh offers to this server; retry later"},
  {error_code::upstream_status, 502, "upstream_status",
   "the target answered with an error"},
  {error_code::upstream_failure, 502, "upstream_failure",
   "the target could not be reached"},
  // A 2xx that is no usable answer is the server's fault, not ours or the network's: it gets
  // its own code so clients can tell it from an unreachable target.
  {error_code::upstream_invalid_answer, 502, "upstream_invalid_answer",
   "the target's answer is not a valid SDP answer"},
  {error_code::upstream_timeout, 504, "upstream_timeout",
   "the target did not answer in time"},
  {error_code::unavailable, 503, "unavailable",
   "the service is shutting down or overloaded"},
  {error_code::internal, 500, "internal", "internal error"},
}};

// Catches an enum value added without a row, at compile time.
constexpr bool table_matches_enum() {
  for (std::size_t i = 0; i < table.size(); ++i)
    if (static_cast<std::size_t>(table[i].code) != i)
      return false;
  return table.size() == static_cast<std::size_t>(error_code::internal) + 1;
}
static_assert(table_matches_enum(), "error table out of step with error_code");

} // namespace

const error_entry& lookup(error_code code) {
  auto index = static_cast<std::size_t>(code);
  return index < table.size() ? table[index] : table.back();
}

} // namespace netherscope::core
