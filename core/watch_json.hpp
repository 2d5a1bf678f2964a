// The JSON bodies of the watch routes (docs/API.md, "Watches").
#pragma once

#include <string>

#include "core/watch.hpp"

namespace netherscope::core {

/// POST /api/watch's 201: {"ok":true,"watch":{...}}; a watch shows its webhooks
/// (webhook_json.hpp, webhook_object), never their secrets.
std::string render_watch_created(const watch_view& watch);

/// GET /api/watch: {"ok":true,"watches":[...],"limit":N}, oldest first.
std::string render_watch_list(const watch_answer& answer);

/// DELETE /api/watch/{id}: {"ok":true}.
std::string render_watch_deleted();

} // namespace netherscope::core
