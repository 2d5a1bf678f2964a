#include "net/xbox/xerr.hpp"

#include <algorithm>

#include "base/text.hpp"
#include "core/explain.hpp"

namespace netherscope::net::xbox {

const std::vector<xerr_info>& xerr_table() {
  // The words live in core/explanations.json, beside the longer explanation of each code that
  // GET /api/explain serves; the copy below is made once and lives as long as the process.
  static const std::vector<core::xbox_error_words> words = core::xbox_errors();
  static const std::vector<xerr_info> table = [] {
    std::vector<xerr_info> out;
    out.reserve(words.size());
    for (const auto& w : words)
      out.push_back({w.code, w.name, w.summary, w.fix});
    return out;
  }();
  return table;
}

const xerr_info* find_xerr(std::uint32_t code) {
  const auto& table = xerr_table();
  auto it = std::lower_bound(table.begin(), table.end(), code,
                             [](const xerr_info& e, std::uint32_t c) { return e.code < c; });
  return it != table.end() && it->code == code ? &*it : nullptr;
}

std::string describe_xerr(std::uint32_t code) {
  auto number = std::to_string(code);
  const auto* info = find_xerr(code);
  if (info == nullptr)
    return "Xbox refused the account with an error netherscope does not know (XErr " + number
           + "); sign in at xbox.com with the account to see why";
  return std::string{info->meaning} + ": " + std::string{info->fix} + " (XErr " + number + ", "
         + std::string{info->name} + ")";
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
