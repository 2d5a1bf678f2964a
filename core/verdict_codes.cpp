#include "core/verdict_codes.hpp"

namespace netherscope::core {

const verdict_info* find_verdict(verdict_code code) {
  for (const auto& row : verdict_table)
    if (row.code == code)
      return &row;
  return nullptr;
}

std::optional<verdict_code> verdict_from_byte(std::uint8_t byte) {
  auto code = static_cast<verdict_code>(byte);
  if (find_verdict(code) == nullptr)
    return std::nullopt;
  return code;
}

std::optional<verdict_code> verdict_from_name(std::string_view name) {
  for (const auto& row : verdict_table)
    if (row.name == name)
      return row.code;
  return std::nullopt;
}

std::string_view verdict_name(verdict_code code) {
  auto* row = find_verdict(code);
  return row ? row->name : std::string_view{"unknown"};
}

bool is_online(verdict_code code) {
  auto* row = find_verdict(code);
  return row != nullptr && row->online;
}

bool is_joinable(verdict_code code) {
  auto* row = find_verdict(code);
  return row != nullptr && row->joinable;
}

verdict_class class_of(verdict_code code) {
  if (is_joinable(code))
    return verdict_class::joinable;
  return is_online(code) ? verdict_class::up : verdict_class::offline;
}

std::string_view to_string(verdict_class c) {
  switch (c) {
    case verdict_class::joinable:
      return "joinable";
    case verdict_class::up:
      return "up";
    case verdict_class::offline:
      return "offline";
    default:
      return "none";
  }
}

} // namespace netherscope::core
