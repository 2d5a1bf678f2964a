// The JSON bodies of the public API (SPEC §2), rendered once where the result is made.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "actors/messages.hpp"
#include "net/sdp_answer.hpp"

namespace netherscope::net {

/// How much of a target's error body is quoted back to the caller.
constexpr std::size_t quoted_body_limit = 2048;

/// Renders SPEC 2.1 {ok, status, tls, info}: info is the target's body when it is a JSON
/// object, else null (an empty body is normal: BDS with LAN visibility off, go-nethernet).
std::string render_info(std::uint16_t status, bool tls, std::string_view target_body);

/// Renders SPEC 2.4 {ok:false, code, error}: error is the message, or for upstream_status an
/// object {httpStatus, body[, nethernetError, reason]}.
std::string render_error(const failure& error);

/// Cuts a target's body to quoted_body_limit bytes without splitting a UTF-8 sequence, and
/// replaces invalid UTF-8 so the result is always a valid JSON string.
std::string quote_body(std::string_view body);

/// Replaces invalid UTF-8 with U+FFFD and cuts at limit bytes (on a character boundary).
std::string valid_utf8(std::string_view text, std::size_t limit = std::string_view::npos);

/// Renders SPEC 2.2 for a 2xx SDP answer: {ok, answer, candidates, answerFingerprint, iceUfrag,
/// exhausted, networkId, tls, warnings}. Candidates whose address is not public unicast get
/// "publicAddress": false and a warning: players on the Internet cannot reach them.
std::string render_offer(std::string_view answer, const parsed_answer& parsed, bool tls,
                         std::string_view network_id);

/// Renders an account and this month's usage for GET/POST/DELETE /api/account[/key].
std::string render_account(const account_view& account);

/// Adds "cached":true, and "stale":true when stale, to a body made by render_offer.
std::string with_cache_flags(std::string_view body, bool cached, bool stale);

} // namespace netherscope::net
