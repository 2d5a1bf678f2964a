// Validation of the webhook routes' input (docs/API.md, "Webhooks"): the body of
// POST /api/watch/{id}/webhooks and the shape of a webhook id. Pure functions; each refusal is
// an invalid_input failure whose sentence names the field and the rule. Whether the URL may be
// used (check_webhook_url, the address policy) is the watch actor's to judge, since it holds
// the operator's settings.
#pragma once

#include <optional>
#include <string_view>

#include "core/failure.hpp"
#include "core/webhook.hpp"

namespace netherscope::core {

/// Reads {"url","format"}: url a string (required), format "json" (the default) or
/// "discord". Other fields are refused, so a misspelt one is not silently ignored.
std::optional<webhook_spec> parse_webhook_body(std::string_view body, failure& error);

/// Reads a webhook from text fields, as the account page's form sends them: url (required)
/// and format (empty for "json"); the same rules and sentences as the body's fields.
std::optional<webhook_spec> parse_webhook_text(std::string_view url, std::string_view format,
                                               failure& error);

/// Whether text has the shape of a webhook id: the shape of a watch id (is_watch_id).
bool is_webhook_id(std::string_view text);

} // namespace netherscope::core
