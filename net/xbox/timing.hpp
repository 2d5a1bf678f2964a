// When the chain's tokens are issued, when they expire, and how long each is kept: the rule
// of issue 25 is to keep a token until less than min(60 s, a quarter of its lifetime) remains,
// so a token of days is renewed a minute early and a token of seconds (the fake's) a quarter of
// its life early. Times are Unix milliseconds on our clock.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace netherscope::net::xbox {

/// When a token was issued and when it expires, on our clock (Unix milliseconds).
struct token_times {
  std::int64_t issued_ms = 0;
  std::int64_t expires_ms = 0;
};

/// A token and its times on our clock.
struct timed_token {
  /// The token; never logged.
  std::string token;
  token_times times;
};

/// How long before expiry a token is renewed: min(60 s, a quarter of its lifetime); 0 for a
/// lifetime of zero or less.
std::int64_t renew_margin_ms(const token_times& t);

/// When the token should be renewed: its expiry less the margin.
std::int64_t renew_at_ms(const token_times& t);

/// Whether the token may still be used at now_ms (before renew_at_ms). A token whose expiry is
/// not after its issue is never good.
bool still_good(const token_times& t, std::int64_t now_ms);

/// A token's times on our clock from what the service said on its own clock: the lifetime it
/// gave (server_expires - server_issued), counted from when we received the answer, so a
/// skew between the clocks does not shorten or stretch it. Without a server issue time, the
/// server's expiry is taken as it is.
token_times times_from_server(std::int64_t received_ms, std::optional<std::int64_t> server_issued_ms,
                              std::int64_t server_expires_ms);

/// A token's times from a lifetime in seconds counted from when it was received (OAuth's
/// expires_in).
token_times times_from_lifetime(std::int64_t received_ms, std::int64_t lifetime_s);

/// Parses an RFC 3339 / ISO 8601 date-time as Xbox and Minecraft services write them
/// ("2020-12-07T19:52:08.4463796Z", "2026-08-20T10:00:00+02:00"): a date, "T" (or "t" or a
/// space), a time with optional fraction (any number of digits), and "Z" or an offset. Unix
/// milliseconds, the fraction cut to milliseconds; nullopt when it is not one.
std::optional<std::int64_t> parse_timestamp_ms(std::string_view text);

} // namespace netherscope::net::xbox
