// Validation of the watch routes' input (docs/API.md, "Watches"): the body of POST /api/watch,
// the period against the operator's bounds, and the shape of a watch id. Pure functions; each
// refusal is an invalid_input failure whose sentence names the field and the rule.
#pragma once

#include <optional>
#include <string_view>

#include "core/failure.hpp"
#include "core/watch.hpp"

namespace netherscope::core {

/// Reads {"host","port","periodSeconds","public"}: host as /api/check takes it (the same
/// parser), port 1..65535 (default 19132), periodSeconds a whole number of seconds (default
/// 300; its bounds are the operator's, see check_watch_period), public true or false (default
/// false). Other fields are refused, so a misspelt one is not silently ignored.
std::optional<watch_spec> parse_watch_body(std::string_view body, failure& error);

/// Reads a watch from text fields, as the account page's form sends them: host as
/// parse_watch_body takes it, port and periodSeconds in decimal (empty for the defaults), and
/// whether it is public; the same rules and sentences as the body's fields.
std::optional<watch_spec> parse_watch_text(std::string_view host, std::string_view port,
                                           std::string_view period_seconds, bool is_public,
                                           failure& error);

/// Refuses a period outside [bounds.min_period_seconds, bounds.max_period_seconds]; no
/// failure when it is inside.
failure check_watch_period(std::uint32_t period_seconds, const watch_bounds& bounds);

/// Whether text has the shape of a watch id: 16 characters of the base64url alphabet.
bool is_watch_id(std::string_view text);

} // namespace netherscope::core
