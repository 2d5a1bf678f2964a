#include "net/xbox/read.hpp"

#include <cmath>
#include <limits>

#include "net/base/json_access.hpp"
#include "net/base/text.hpp"

namespace netherscope::net::xbox {

const boost::json::array* array_at(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v ? v->if_array() : nullptr;
}

std::optional<std::int64_t> integer_at(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
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

std::optional<std::string> text_at(const boost::json::object& o, std::string_view key) {
  const auto* s = string_at(o, key);
  if (s == nullptr || s->empty())
    return std::nullopt;
  return std::string{view(*s)};
}

const boost::json::value* member_icase(const boost::json::object& o, std::string_view key) {
  for (const auto& member : o)
    if (iequals(member.key(), key))
      return &member.value();
  return nullptr;
}

std::string shown(std::string_view text, std::size_t limit) {
  std::string out;
  for (char c : text.substr(0, limit))
    out += c >= 0x20 && c < 0x7F ? c : '?';
  return out;
}

} // namespace netherscope::net::xbox
