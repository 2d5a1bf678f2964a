#include "net/xbox/xerr.hpp"

#include <algorithm>

#include "base/text.hpp"

namespace netherscope::net::xbox {

const std::vector<core::xbox_error_words>& xerr_table() {
  // The words live in core/explanations.json, beside the longer explanation of each code that
  // GET /api/explain serves; they are read once and live as long as the process.
  static const std::vector<core::xbox_error_words> table = core::xbox_errors();
  return table;
}

const core::xbox_error_words* find_xerr(std::uint32_t code) {
  const auto& table = xerr_table();
  auto it = std::lower_bound(
    table.begin(), table.end(), code,
    [](const core::xbox_error_words& e, std::uint32_t c) { return e.code < c; });
  return it != table.end() && it->code == code ? &*it : nullptr;
}

std::string describe_xerr(std::uint32_t code) {
  auto number = std::to_string(code);
  const auto* info = find_xerr(code);
  if (info == nullptr)
    return "Xbox refused the account with an error netherscope does not know (XErr " + number
           + "); sign in at xbox.com with the account to see why";
  return info->summary + ": " + info->fix + " (XErr " + number + ", " + info->name + ")";
}

std::uint32_t parse_xerr(std::string_view text) {
  text = base::trim(text);
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  if (text.empty() || text.size() > 10)
    return 0;
  std::uint64_t value = 0;
  for (char c : text) {
    int digit = -1;
    if (c >= '0' && c <= '9')
      digit = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f')
      digit = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F')
      digit = c - 'A' + 10;
    if (digit < 0)
      return 0;
    value = value * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(digit);
  }
  return value > 0xFFFFFFFFu ? 0 : static_cast<std::uint32_t>(value);
}

} // namespace netherscope::net::xbox
