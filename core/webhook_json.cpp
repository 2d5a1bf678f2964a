#include "core/webhook_json.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "core/api_json.hpp"
#include "core/error_table.hpp"

namespace netherscope::core {

namespace {

boost::json::value unix_or_null(std::int64_t at) {
  return at > 0 ? boost::json::value(at) : boost::json::value(nullptr);
}

} // namespace

boost::json::object webhook_object(const webhook_view& webhook) {
  boost::json::object out;
  out["id"] = webhook.id;
  out["url"] = valid_utf8(webhook.url);
  out["format"] = to_string(webhook.format);
  out["createdAt"] = webhook.created;
  out["state"] = webhook.failing ? "failing" : "ok";
  out["failingSince"] = webhook.failing ? unix_or_null(webhook.failing_since)
                                        : boost::json::value(nullptr);
  out["lastFailureAt"] = unix_or_null(webhook.last_failure_at);
  out["lastFailure"] = webhook.last_failure.empty()
                         ? boost::json::value(nullptr)
                         : boost::json::value(valid_utf8(webhook.last_failure));
  return out;
}

std::string render_webhook_created(const webhook_view& webhook, const std::string& secret) {
  boost::json::object body;
  body["ok"] = true;
  body["webhook"] = webhook_object(webhook);
  body["secret"] = secret;
  return boost::json::serialize(body);
}

std::string render_webhook_test(const webhook_delivery& delivery) {
  boost::json::object outcome;
  outcome["delivered"] = delivery.delivered();
  outcome["status"] = delivery.status != 0 ? boost::json::value(delivery.status)
                                           : boost::json::value(nullptr);
  outcome["code"] = delivery.error.ok()
                      ? boost::json::value(nullptr)
                      : boost::json::value(std::string{lookup(delivery.error.code).machine_code});
  outcome["error"] = delivery.delivered() ? boost::json::value(nullptr)
                                          : boost::json::value(failure_reason(delivery));
  boost::json::object body;
  body["ok"] = true;
  body["delivery"] = std::move(outcome);
  return boost::json::serialize(body);
}

std::string failure_reason(const webhook_delivery& delivery) {
  std::string reason;
  if (!delivery.error.ok())
    reason = delivery.error.message.empty()
               ? std::string{lookup(delivery.error.code).default_message}
               : delivery.error.message;
  else if (delivery.status >= 300 && delivery.status <= 399)
    reason = "HTTP " + std::to_string(delivery.status) + ": redirects are not followed";
  else
    reason = "HTTP " + std::to_string(delivery.status);
  return valid_utf8(reason, longest_failure_reason);
}

} // namespace netherscope::core
