#include "core/status_request.hpp"

#include <string>
#include <utility>

#include <boost/json/parse.hpp>

#include "core/api_json.hpp"
#include "core/offer_request.hpp"

namespace netherscope::core {

namespace {

constexpr std::string_view example = R"({"targets":[{"host":"play.example.com","port":19132}]})";

// One entry's fields; a problem is the entry's own, prefixed with where it is, since lines
// come back in the order the targets complete, not the order they were given.
status_item read_item(const boost::json::object& entry, std::size_t index) {
  status_item item;
  auto where = "targets[" + std::to_string(index) + "]: ";
  if (!read_target(entry, item.where, item.invalid)) {
    item.invalid.message = where + item.invalid.message;
    // The line names the host as the caller wrote it, so the caller can tell which it is.
    if (auto* host = entry.if_contains("host"); host != nullptr && host->is_string())
      item.where.host = valid_utf8(host->as_string(), 253);
    return item;
  }
  if (auto raknet = entry.if_contains("raknetPort"); raknet != nullptr && !raknet->is_null()) {
    auto port = port_number(*raknet);
    if (port)
      item.raknet_port = *port;
    else
      item.invalid = invalid_input(where + "raknetPort must be an integer from 1 to 65535 (omit it "
                                     "to ping the target's own port)");
  }
  return item;
}

} // namespace

std::optional<std::vector<status_item>> parse_status_body(std::string_view body, failure& error) {
  auto parsed = read_object_body(body, example, error);
  if (!parsed)
    return std::nullopt;
  auto limit = std::to_string(max_status_targets);
  auto targets = parsed->if_contains("targets");
  if (targets == nullptr || targets->is_null()) {
    error = invalid_input("targets is required: an array of 1 to " + limit
                    + " servers such as " + std::string{example});
    return std::nullopt;
  }
  if (!targets->is_array() || targets->get_array().empty()) {
    error = invalid_input("targets must be an array of 1 to " + limit + " servers such as "
                    + std::string{example});
    return std::nullopt;
  }
  auto& entries = targets->get_array();
  if (entries.size() > max_status_targets) {
    error = invalid_input("targets names " + std::to_string(entries.size()) + " servers; at most "
                    + limit + " may be asked for at once, so send the rest in another request");
    return std::nullopt;
  }
  std::vector<status_item> items;
  items.reserve(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i].is_object()) {
      error = invalid_input("targets[" + std::to_string(i) + "] must be an object such as "
                      R"({"host":"play.example.com","port":19132})");
      return std::nullopt;
    }
    items.push_back(read_item(entries[i].get_object(), i));
  }
  return items;
}

} // namespace netherscope::core
