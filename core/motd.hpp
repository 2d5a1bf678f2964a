// Bedrock's formatting codes in a server's name and MOTD ('§' and one character), read as the
// game reads them (docs/PROTOCOL.md §6.3): the one table of codes, and the three forms every
// reply gives a formatted text in, {raw, clean, html}. The html names one class per code,
// styled by the stylesheet the service serves at /motd.css, so that pages showing it keep a
// CSP without inline styles.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

namespace netherscope::core {

/// What a code does.
enum class motd_effect { colour, bold, italic, obfuscated, reset };

/// One formatting code.
struct motd_code {
  /// The character after '§', lowercase.
  char code;
  motd_effect effect;
  /// Its name, as docs/PROTOCOL.md §6.3 gives it.
  std::string_view name;
  /// For a colour, "#RRGGBB"; empty otherwise.
  std::string_view colour;
};

/// Every code Bedrock has. Java's §m (strikethrough) and §n (underline) are colours here, and
/// there is no underline or strikethrough at all.
const std::array<motd_code, 32>& motd_codes();

/// The code a character after '§' names (either case), or nullopt for one Bedrock does not
/// have.
std::optional<motd_code> find_motd_code(char c);

/// The class the html gives text under code: "mc-" and the code's character.
std::string motd_class(const motd_code& code);

/// text without its formatting codes: '§' and the character after it go, whatever that
/// character is, as they do in the game, and so do control characters other than the newline
/// and tab. Bytes that are not UTF-8 are kept.
std::string motd_clean(std::string_view text);

/// text as HTML: each run of text under a style is one <span> with the classes of its colour
/// and styles, a newline is <br>, and every character HTML gives a meaning (& < > " ') is
/// escaped; what motd_clean drops is dropped, unknown codes included, so the html's text is
/// motd_clean(text). A colour keeps the bold, italic and obfuscation before it; only §r ends
/// them. Every tag is closed within the fragment, for any input.
std::string motd_html(std::string_view text);

/// {raw, clean, html} of text, made valid UTF-8 first (invalid bytes read as U+FFFD).
boost::json::object motd_json(std::string_view text);

/// {raw, clean, html} of texts the game draws apart, one under the other (a pong's two MOTD
/// lines): each is read on its own, so no style runs from one into the next, and the forms
/// join them with a newline (<br> in the html).
boost::json::object motd_json(const std::vector<std::string>& lines);

/// The stylesheet of the classes motd_html writes, from motd_codes(); net/http/page/motd.css
/// holds it, and a test keeps the two equal.
std::string motd_stylesheet();

} // namespace netherscope::core
