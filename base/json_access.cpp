#include "base/json_access.hpp"

#include <cmath>
#include <utility>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

namespace netherscope::base {

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

std::optional<std::int64_t> int64_at(const boost::json::object& o, std::string_view key) {
  const boost::json::value* v = o.if_contains(key);
  if (v == nullptr)
    return std::nullopt;
  if (v->is_int64())
    return v->get_int64();
  if (v->is_uint64() && v->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
    return static_cast<std::int64_t>(v->get_uint64());
  if (v->is_double()) {
    double d = v->get_double();
    // 2^63 as a double; anything at or past it does not fit.
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2233720368547758e18)
      return static_cast<std::int64_t>(d);
  }
  return std::nullopt;
}

} // namespace netherscope::base
