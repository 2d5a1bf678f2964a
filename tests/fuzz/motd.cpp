// Fuzzes the reading of Bedrock's formatting codes (core/motd): a server's name and MOTD are
// a stranger's text, and their html is put into pages. One input is one text.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/motd.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using netherscope::fuzz::require;
namespace core = netherscope::core;

namespace {

/// Whether classes is "mc-" and a character of the table, one or more times, single spaces
/// between.
bool table_classes(std::string_view classes) {
  for (std::size_t k = 0; k < classes.size(); k += 5) {
    if (classes.substr(k, 3) != "mc-" || k + 3 >= classes.size()
        || !core::find_motd_code(classes[k + 3]))
      return false;
    if (k + 4 < classes.size() && classes[k + 4] != ' ')
      return false;
  }
  return !classes.empty();
}

/// The text of html, when it is only text, <br> and <span class="…"> … </span> of the
/// table's classes, every span closed and none nested, and no character HTML reads left
/// unescaped; nullopt otherwise.
std::optional<std::string> text_of(std::string_view html) {
  std::string text;
  bool in_span = false;
  std::size_t i = 0;
  while (i < html.size()) {
    char c = html[i];
    if (c == '<') {
      if (html.substr(i, 4) == "<br>") {
        text.push_back('\n');
        i += 4;
      } else if (!in_span && html.substr(i, 13) == "<span class=\"") {
        auto end = html.find("\">", i + 13);
        if (end == std::string_view::npos || !table_classes(html.substr(i + 13, end - i - 13)))
          return std::nullopt;
        in_span = true;
        i = end + 2;
      } else if (in_span && html.substr(i, 7) == "</span>") {
        in_span = false;
        i += 7;
      } else {
        return std::nullopt;
      }
    } else if (c == '>' || c == '"' || c == '\'') {
      return std::nullopt;
    } else if (c == '&') {
      auto end = html.find(';', i);
      if (end == std::string_view::npos)
        return std::nullopt;
      auto entity = html.substr(i, end - i + 1);
      if (entity == "&amp;")
        text.push_back('&');
      else if (entity == "&lt;")
        text.push_back('<');
      else if (entity == "&gt;")
        text.push_back('>');
      else if (entity == "&quot;")
        text.push_back('"');
      else if (entity == "&#39;")
        text.push_back('\'');
      else
        return std::nullopt;
      i = end + 1;
    } else {
      text.push_back(c);
      ++i;
    }
  }
  if (in_span)
    return std::nullopt;
  return text;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text{reinterpret_cast<const char*>(data), size};
  auto clean = core::motd_clean(text);
  require(clean.size() <= text.size(), "cleaning never adds");
  auto shown = text_of(core::motd_html(text));
  require(shown.has_value(), "the html is text, <br> and closed spans of the table's classes");
  require(*shown == clean, "the html's text is the clean text");

  auto motd = core::motd_json(text);
  require(motd.at("raw").is_string() && motd.at("clean").is_string()
            && motd.at("html").is_string(),
          "the three forms are strings");
  auto raw = std::string_view{motd.at("raw").as_string()};
  require(motd.at("clean").as_string() == core::motd_clean(raw), "clean is the raw text's");
  auto json_shown = text_of(motd.at("html").as_string());
  require(json_shown && *json_shown == std::string_view{motd.at("clean").as_string()},
          "the html of the raw text is well formed and shows the clean text");
  return 0;
}
