#include "net/base/json_access.hpp"

#include <utility>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

namespace netherscope::net {

std::optional<boost::json::object> parse_object(std::string_view text) {
  boost::json::error_code ec;
  boost::json::value v = boost::json::parse(text, ec);
  if (ec || !v.is_object())
    return std::nullopt;
  return std::move(v.get_object());
}

const boost::json::object* object_at(const boost::json::object& o, std::string_view key) {
  const boost::json::value* v = o.if_contains(key);
  return v ? v->if_object() : nullptr;
}

const boost::json::string* string_at(const boost::json::object& o, std::string_view key) {
  const boost::json::value* v = o.if_contains(key);
  return v ? v->if_string() : nullptr;
}

} // namespace netherscope::net
