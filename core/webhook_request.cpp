#include "core/webhook_request.hpp"

#include <algorithm>
#include <array>

#include <boost/json/parse.hpp>

#include "core/api_json.hpp"
#include "core/offer_request.hpp"
#include "core/watch_request.hpp"

namespace netherscope::core {

namespace {

constexpr std::array<std::string_view, 2> webhook_fields{"url", "format"};

constexpr std::string_view url_required = "url is required: the https:// URL deliveries are posted to";
constexpr std::string_view format_rule =
  "format must be \"json\" (the service's JSON), \"discord\" (a Discord webhook, a message "
  "per change) or \"discord_live\" (a Discord webhook, one message edited at each change)";

} // namespace

std::optional<webhook_spec> parse_webhook_body(std::string_view body, failure& error) {
  auto parsed = read_object_body(body, R"({"url":"https://example.com/hook","format":"json"})",
                                 error);
  if (!parsed)
    return std::nullopt;
  auto& obj = *parsed;
  for (auto& field : obj)
    if (std::find(webhook_fields.begin(), webhook_fields.end(), field.key())
        == webhook_fields.end()) {
      error = invalid_input("unknown field \"" + valid_utf8(field.key(), 64)
                            + "\": a webhook takes url and format");
      return std::nullopt;
    }
  webhook_spec spec;
  auto url = obj.if_contains("url");
  if (url == nullptr || !url->is_string() || url->as_string().empty()) {
    error = invalid_input(std::string{url_required});
    return std::nullopt;
  }
  spec.url = std::string{url->as_string()};
  if (auto format = obj.if_contains("format"); format != nullptr && !format->is_null()) {
    auto parsed = format->is_string() ? parse_webhook_format(format->as_string())
                                      : std::optional<webhook_format>{};
    if (!parsed) {
      error = invalid_input(std::string{format_rule});
      return std::nullopt;
    }
    spec.format = *parsed;
  }
  return spec;
}

std::optional<webhook_spec> parse_webhook_text(std::string_view url, std::string_view format,
                                               failure& error) {
  webhook_spec spec;
  if (url.empty()) {
    error = invalid_input(std::string{url_required});
    return std::nullopt;
  }
  spec.url = std::string{url};
  if (!format.empty()) {
    auto parsed = parse_webhook_format(format);
    if (!parsed) {
      error = invalid_input(std::string{format_rule});
      return std::nullopt;
    }
    spec.format = *parsed;
  }
  return spec;
}

bool is_webhook_id(std::string_view text) {
  return is_watch_id(text);
}

} // namespace netherscope::core
