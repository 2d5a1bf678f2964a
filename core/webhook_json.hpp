// The JSON of the webhook routes (docs/API.md, "Webhooks"): a webhook as GET /api/watch and
// its creation show it (never its secret, except once, at creation), and a test's outcome.
#pragma once

#include <string>

#include <boost/json/object.hpp>

#include "core/webhook.hpp"

namespace netherscope::core {

/// {"id","url","format","createdAt","state":"ok"|"failing","failingSince","lastFailureAt",
/// "lastFailure"}: times in Unix seconds, null when there is none.
boost::json::object webhook_object(const webhook_view& webhook);

/// POST /api/watch/{id}/webhooks's 201: {"ok":true,"webhook":{...},"secret":"whsec_..."}.
std::string render_webhook_created(const webhook_view& webhook, const std::string& secret);

/// POST /api/watch/{id}/webhooks/{wid}/test: {"ok":true,"delivery":{"delivered","status",
/// "code","error"}}: the receiver's status (null when no response came), the error code when
/// no response came, and the reason the try failed (null when delivered).
std::string render_webhook_test(const webhook_delivery& delivery);

/// The short reason a failed try leaves on its webhook: the error's sentence, or the status
/// ("HTTP 500"; "HTTP 302: redirects are not followed"), cut to longest_failure_reason.
std::string failure_reason(const webhook_delivery& delivery);

} // namespace netherscope::core
