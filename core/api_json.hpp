// JSON writers the API shares: errors (SPEC 2.4), accounts, cache flags, and text made safe
// to quote.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "core/failure.hpp"
#include "core/quota.hpp"

namespace netherscope::core {

/// How much of a target's error body is quoted back to the caller: bytes of the reply's JSON,
/// escapes counted.
constexpr std::size_t quoted_body_limit = 2048;

/// Text made fit for a JSON reply: valid UTF-8, and bounded.
struct json_text {
  std::string text;
  /// Whether the input was cut: text shows less than all of it.
  bool truncated = false;
};

/// Renders SPEC 2.4 {ok:false, code, error}: error is the message, or for upstream_status an
/// object {httpStatus, body[, bodyTruncated][, nethernetError, reason, explain]}; explain is the
/// path of the code's explanation (core/explain) when there is one. Every string is made
/// valid UTF-8 here, since messages may echo what a caller or a target sent (a host, a path).
std::string render_error(const failure& error);

/// Milliseconds as every reply shows them (latencyMs, rttMs, elapsedMs): two decimals, enough
/// to tell loopback from a LAN from the Internet.
double shown_ms(double ms);

/// A count as JSON: the number, or null when there is none.
boost::json::value number_or_null(const std::optional<std::uint32_t>& n);

/// A target's body as an error quotes it: fit_for_json within quoted_body_limit.
json_text quote_body(std::string_view body);

/// body cut to what quote_body can show plus one byte, so that quote_body still sees that it
/// was cut. A failure carries this rather than a body of up to 1 MiB through the actors.
std::string keep_quotable(std::string body);

/// Replaces invalid UTF-8 with U+FFFD and cuts at limit bytes (on a character boundary).
std::string valid_utf8(std::string_view text, std::size_t limit = std::string_view::npos);

/// valid_utf8(text), cut at a character boundary so that its JSON string form takes at most
/// json_limit bytes, the quotes aside. Escapes count as Boost.JSON writes them: six bytes for
/// a control character such as U+0001, two for '"', '\\', BS, HT, LF, FF and CR. A limit on
/// input bytes alone would let a body of control bytes grow sixfold in the reply.
json_text fit_for_json(std::string_view text, std::size_t json_limit);

/// Renders an account and this month's usage for GET/POST/DELETE /api/account[/key].
std::string render_account(const account_view& account);

/// What the cache says about an offer reply (PRODUCT.md "Cache").
struct cache_fields {
  /// Served from the cache rather than fetched for this call.
  bool cached = false;
  /// Served because a refresh failed, or past its lifetime at the per-target limit.
  bool stale = false;
  /// Unix seconds at which the target gave the answer.
  std::int64_t retrieved_at = 0;
  /// Unix seconds at which the entry stops answering as a plain hit; written for cached
  /// replies only (in the past for a stale one).
  std::int64_t expires_at = 0;
};

/// Adds the cache's fields to a body made by render_offer, without parsing it: "cached" and
/// "stale" when set, "retrievedAt" always and "expiresAt" for cached replies, both as
/// RFC 3339 UTC (base/text rfc3339_utc). A body that does not end in '}' is returned unchanged.
std::string with_cache_fields(std::string_view body, const cache_fields& fields);

/// The warning for a reply whose UDP candidates use none of the expected ports, or empty
/// when one does (or nothing is expected). Transports compare case-insensitively.
std::string expected_ports_warning(const std::vector<std::uint16_t>& expected,
                                   const std::vector<std::uint16_t>& udp_ports);

/// Adds expected_ports_warning to an offer body's warnings, reading its candidates'
/// transport and port. The body is parsed, so this runs only when ports are expected; a body
/// that is not an offer object is returned unchanged.
std::string with_expected_ports(std::string_view body, const std::vector<std::uint16_t>& expected);

/// Appends a warning to a reply object: the sentence to "warnings" and its machine code to
/// "warningCodes", creating both arrays when absent, so the two stay aligned index by index.
void add_warning(boost::json::object& reply, std::string_view code, std::string sentence);

} // namespace netherscope::core
