#include "net/xbox/read.hpp"

#include "base/json_access.hpp"
#include "base/text.hpp"

namespace netherscope::net::xbox {

const boost::json::array* array_at(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v ? v->if_array() : nullptr;
}

std::optional<std::string> text_at(const boost::json::object& o, std::string_view key) {
  const auto* s = base::string_at(o, key);
  if (s == nullptr || s->empty())
    return std::nullopt;
  return std::string{base::view(*s)};
}

const boost::json::value* member_icase(const boost::json::object& o, std::string_view key) {
  for (const auto& member : o)
    if (base::iequals(member.key(), key))
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
