// JSON writers the API shares: errors (SPEC 2.4), accounts, cache flags, and text made safe
// to quote.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "net/api/failure.hpp"
#include "net/api/quota.hpp"

namespace netherscope::net {

/// How much of a target's error body is quoted back to the caller.
constexpr std::size_t quoted_body_limit = 2048;

/// Renders SPEC 2.4 {ok:false, code, error}: error is the message, or for upstream_status an
/// object {httpStatus, body[, nethernetError, reason]}.
std::string render_error(const failure& error);

/// Cuts a target's body to quoted_body_limit bytes without splitting a UTF-8 sequence, and
/// replaces invalid UTF-8 so the result is always a valid JSON string.
std::string quote_body(std::string_view body);

/// Replaces invalid UTF-8 with U+FFFD and cuts at limit bytes (on a character boundary).
std::string valid_utf8(std::string_view text, std::size_t limit = std::string_view::npos);

/// Renders an account and this month's usage for GET/POST/DELETE /api/account[/key].
std::string render_account(const account_view& account);

/// Adds "cached":true, and "stale":true when stale, to a body made by render_offer.
std::string with_cache_flags(std::string_view body, bool cached, bool stale);

} // namespace netherscope::net
