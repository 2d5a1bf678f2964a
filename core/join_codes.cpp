#include "core/join_codes.hpp"

namespace netherscope::core {

namespace {

template <class Code, std::size_t N>
std::optional<Code> from_name(const std::array<join_code_name<Code>, N>& table,
                              std::string_view name) {
  for (const auto& row : table)
    if (row.name == name)
      return row.code;
  return std::nullopt;
}

template <class Code, std::size_t N>
std::optional<Code> from_byte(const std::array<join_code_name<Code>, N>& table,
                              std::uint8_t byte) {
  for (const auto& row : table)
    if (static_cast<std::uint8_t>(row.code) == byte)
      return row.code;
  return std::nullopt;
}

template <class Code, std::size_t N>
std::string_view name_of(const std::array<join_code_name<Code>, N>& table, Code code) {
  for (const auto& row : table)
    if (row.code == code)
      return row.name;
  return "unknown";
}

} // namespace

std::optional<join_stage_code> join_stage_from_name(std::string_view name) {
  return from_name(join_stage_table, name);
}

std::optional<join_outcome_code> join_outcome_from_name(std::string_view name) {
  return from_name(join_outcome_table, name);
}

std::optional<join_stage_code> join_stage_from_byte(std::uint8_t byte) {
  return from_byte(join_stage_table, byte);
}

std::optional<join_outcome_code> join_outcome_from_byte(std::uint8_t byte) {
  return from_byte(join_outcome_table, byte);
}

std::string_view join_stage_name(join_stage_code code) {
  return name_of(join_stage_table, code);
}

std::string_view join_outcome_name(join_outcome_code code) {
  return name_of(join_outcome_table, code);
}

} // namespace netherscope::core
