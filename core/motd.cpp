#include "core/motd.hpp"

#include "base/text.hpp"
#include "core/api_json.hpp"

namespace netherscope::core {

namespace {

constexpr std::string_view section_sign = "\xC2\xA7";

constexpr std::array<motd_code, 32> codes{{
  {'0', motd_effect::colour, "black", "#000000"},
  {'1', motd_effect::colour, "dark blue", "#0000AA"},
  {'2', motd_effect::colour, "dark green", "#00AA00"},
  {'3', motd_effect::colour, "dark aqua", "#00AAAA"},
  {'4', motd_effect::colour, "dark red", "#AA0000"},
  {'5', motd_effect::colour, "dark purple", "#AA00AA"},
  {'6', motd_effect::colour, "gold", "#FFAA00"},
  {'7', motd_effect::colour, "gray", "#C6C6C6"},
  {'8', motd_effect::colour, "dark gray", "#555555"},
  {'9', motd_effect::colour, "blue", "#5555FF"},
  {'a', motd_effect::colour, "green", "#55FF55"},
  {'b', motd_effect::colour, "aqua", "#55FFFF"},
  {'c', motd_effect::colour, "red", "#FF5555"},
  {'d', motd_effect::colour, "light purple", "#FF55FF"},
  {'e', motd_effect::colour, "yellow", "#FFFF55"},
  {'f', motd_effect::colour, "white", "#FFFFFF"},
  {'g', motd_effect::colour, "minecoin gold", "#DDD605"},
  {'h', motd_effect::colour, "quartz", "#E3D4D1"},
  {'i', motd_effect::colour, "iron", "#CECACA"},
  {'j', motd_effect::colour, "netherite", "#443A3B"},
  {'m', motd_effect::colour, "redstone", "#971607"},
  {'n', motd_effect::colour, "copper", "#B4684D"},
  {'p', motd_effect::colour, "gold material", "#DEB12D"},
  {'q', motd_effect::colour, "emerald", "#11A036"},
  {'s', motd_effect::colour, "diamond", "#2CBAA8"},
  {'t', motd_effect::colour, "lapis", "#21497B"},
  {'u', motd_effect::colour, "amethyst", "#9A5CC6"},
  {'v', motd_effect::colour, "resin", "#EB7214"},
  {'k', motd_effect::obfuscated, "obfuscated", ""},
  {'l', motd_effect::bold, "bold", ""},
  {'o', motd_effect::italic, "italic", ""},
  {'r', motd_effect::reset, "reset", ""},
}};

/// The bytes of the UTF-8 character at text[i]: 1 for a byte that does not start one.
std::size_t character_length(std::string_view text, std::size_t i) {
  auto lead = static_cast<unsigned char>(text[i]);
  std::size_t n = lead >= 0xF0 && lead <= 0xF4 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 1;
  if (lead >= 0xF5)
    n = 1;
  for (std::size_t k = 1; k < n; ++k)
    if (i + k >= text.size() || (static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80)
      return 1;
  return n;
}

/// Control characters the game does not show; the newline and tab it does.
bool dropped_control(unsigned char c) {
  return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7F;
}

/// What styles the text has at one point of it.
struct motd_state {
  std::optional<motd_code> colour;
  bool bold = false;
  bool italic = false;
  bool obfuscated = false;

  bool plain() const { return !colour && !bold && !italic && !obfuscated; }
  bool operator==(const motd_state& o) const {
    return (colour ? colour->code : 0) == (o.colour ? o.colour->code : 0) && bold == o.bold
           && italic == o.italic && obfuscated == o.obfuscated;
  }
};

void apply(const motd_code& code, motd_state& state) {
  switch (code.effect) {
    case motd_effect::colour:
      state.colour = code;
      break;
    case motd_effect::bold:
      state.bold = true;
      break;
    case motd_effect::italic:
      state.italic = true;
      break;
    case motd_effect::obfuscated:
      state.obfuscated = true;
      break;
    case motd_effect::reset:
      state = motd_state{};
      break;
  }
}

std::string classes_of(const motd_state& state) {
  std::string out;
  auto add = [&out](char code) {
    if (auto found = find_motd_code(code)) {
      if (!out.empty())
        out.push_back(' ');
      out += motd_class(*found);
    }
  };
  if (state.colour)
    add(state.colour->code);
  if (state.bold)
    add('l');
  if (state.italic)
    add('o');
  if (state.obfuscated)
    add('k');
  return out;
}

/// Builds the html run by run: text under one state is gathered, then written as one span.
class html_writer {
public:
  void text(char c, const motd_state& state) {
    if (!(state == state_))
      flush();
    state_ = state;
    run_.push_back(c);
  }
  void line_break() {
    flush();
    out_ += "<br>";
  }
  std::string finish() {
    flush();
    return std::move(out_);
  }

private:
  void flush() {
    if (run_.empty())
      return;
    if (state_.plain())
      out_ += base::html_escape(run_);
    else
      out_ += "<span class=\"" + classes_of(state_) + "\">" + base::html_escape(run_) + "</span>";
    run_.clear();
  }

  motd_state state_;
  std::string run_;
  std::string out_;
};

/// Walks text as the game reads it: each code found is passed to on_code, each other byte
/// that is shown to on_byte.
template <class OnCode, class OnByte>
void walk(std::string_view text, OnCode on_code, OnByte on_byte) {
  std::size_t i = 0;
  while (i < text.size()) {
    if (text.substr(i, section_sign.size()) == section_sign) {
      i += section_sign.size();
      // The code's character; a '§' at the very end has none.
      if (i < text.size()) {
        auto length = character_length(text, i);
        if (length == 1)
          if (auto code = find_motd_code(text[i]))
            on_code(*code);
        i += length;
      }
      continue;
    }
    if (!dropped_control(static_cast<unsigned char>(text[i])))
      on_byte(text[i]);
    ++i;
  }
}

} // namespace

const std::array<motd_code, 32>& motd_codes() {
  return codes;
}

std::optional<motd_code> find_motd_code(char c) {
  if (c >= 'A' && c <= 'Z')
    c = static_cast<char>(c - 'A' + 'a');
  for (const auto& code : codes)
    if (code.code == c)
      return code;
  return std::nullopt;
}

std::string motd_class(const motd_code& code) {
  return std::string{"mc-"} + code.code;
}

std::string motd_clean(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  walk(text, [](const motd_code&) {}, [&out](char c) { out.push_back(c); });
  return out;
}

std::string motd_html(std::string_view text) {
  html_writer writer;
  motd_state state;
  walk(text, [&state](const motd_code& code) { apply(code, state); },
       [&](char c) {
         if (c == '\n')
           writer.line_break();
         else
           writer.text(c, state);
       });
  return writer.finish();
}

boost::json::object motd_json(std::string_view text) {
  return motd_json(std::vector<std::string>{std::string(text)});
}

boost::json::object motd_json(const std::vector<std::string>& lines) {
  std::string raw, clean, html;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto line = valid_utf8(lines[i]);
    if (i > 0) {
      raw += '\n';
      clean += '\n';
      html += "<br>";
    }
    clean += motd_clean(line);
    html += motd_html(line);
    raw += line;
  }
  boost::json::object out;
  out["raw"] = std::move(raw);
  out["clean"] = std::move(clean);
  out["html"] = std::move(html);
  return out;
}

std::string motd_stylesheet() {
  std::string css = "/* Bedrock's formatting codes as the html of a {raw, clean, html} MOTD names them:\n"
                    "   one class per code (docs/API.md, \"Formatted text\"). */\n";
  for (const auto& code : codes) {
    auto selector = "." + motd_class(code);
    switch (code.effect) {
      case motd_effect::colour:
        css += selector + " { color: " + std::string{code.colour} + "; }\n";
        break;
      case motd_effect::bold:
        css += selector + " { font-weight: bold; }\n";
        break;
      case motd_effect::italic:
        css += selector + " { font-style: italic; }\n";
        break;
      case motd_effect::obfuscated:
        // The game shows random glyphs that change each frame; a page without script shows
        // a bar of the text's colour over it instead.
        css += selector + " { background: currentColor; border-radius: 2px; }\n";
        break;
      case motd_effect::reset:
        break;
    }
  }
  return css;
}

} // namespace netherscope::core
