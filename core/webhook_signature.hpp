// The signature every webhook delivery carries, and its check as a receiver does it
// (docs/WATCHES.md, "Signature"):
//
//   X-Netherscope-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>
//
// The key is the webhook's secret as its bytes (the text shown once when the webhook was
// made). A receiver refuses a time more than 5 minutes from its clock, so a captured
// delivery cannot be replayed later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace netherscope::core {

/// The header's name.
inline constexpr std::string_view signature_header = "X-Netherscope-Signature";

/// How far a signature's time may be from the receiver's clock, either way, in seconds.
inline constexpr std::int64_t signature_tolerance_seconds = 300;

/// A new webhook secret: "whsec_" and 32 random bytes in URL-safe base64; nullopt when the
/// system's random source fails.
std::optional<std::string> make_webhook_secret();

/// The lowercase hex HMAC-SHA256 of "<t>.<body>" under secret.
std::string signature_digest(std::string_view secret, std::int64_t t, std::string_view body);

/// The header's value: "t=<t>,v1=<signature_digest>".
std::string signature_value(std::string_view secret, std::int64_t t, std::string_view body);

/// What checking a delivery's signature found.
enum class signature_check : std::uint8_t {
  /// A v1 digest matches and the time is within the tolerance.
  valid,
  /// No header, no single t of decimal digits, or no v1.
  malformed,
  /// The time is further from now than the tolerance.
  stale,
  /// No v1 digest matches the body under the secret.
  mismatch,
};

/// Checks a header value as a receiver should: exactly one t, at least one v1 (several may be
/// sent while a secret is replaced), other keys ignored; the time within tolerance of now;
/// digests compared in constant time.
signature_check verify_signature(std::string_view header_value, std::string_view secret,
                                 std::string_view body, std::int64_t now,
                                 std::int64_t tolerance = signature_tolerance_seconds);

} // namespace netherscope::core
