// Small text helpers over std::string_view shared by every room: trimming, ASCII
// case-insensitive comparison, splitting, hex and escaping for markup. Protocol text (HTTP
// headers, SDP, JOSE) is ASCII, so nothing here depends on the global locale.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace netherscope::base {

/// SP and HTAB: the optional whitespace of HTTP header values (RFC 9110 §5.6.3) and the field
/// separators of SDP attributes we accept.
inline constexpr std::string_view blanks = " \t";

/// The whitespace of C's isspace in the "C" locale: SP, HTAB, CR, LF, VT and FF.
inline constexpr std::string_view ascii_whitespace = " \t\r\n\v\f";

/// text without the leading and trailing characters found in chars (SP and HTAB by default).
std::string_view trim(std::string_view text, std::string_view chars = blanks);

/// Whether a and b are equal, ignoring the case of ASCII letters only.
bool iequals(std::string_view a, std::string_view b);

/// text with its ASCII letters in lower case and every other byte as it was (URL schemes and
/// host names, RFC 3986 §6.2.2.1, and codes looked up without regard to case).
std::string ascii_lower(std::string_view text);

/// The value of a hexadecimal digit (0-9, a-f, A-F), or nullopt for any other byte.
std::optional<unsigned> hex_digit(char c);

/// Whether text starts with prefix, ignoring the case of ASCII letters only.
bool istarts_with(std::string_view text, std::string_view prefix);

/// text cut at every sep, empty fields included: "a..b" gives {"a", "", "b"} and "" gives {""}.
std::vector<std::string_view> split(std::string_view text, char sep);

/// The non-empty runs of text between characters of seps: leading, trailing and repeated
/// separators give no empty tokens.
std::vector<std::string_view> split_tokens(std::string_view text, std::string_view seps = blanks);

/// Each byte of bytes as two uppercase hex digits, nothing between them ("\x01\xAB" gives
/// "01AB").
std::string hex_upper(std::string_view bytes);

/// Each byte of bytes as two lowercase hex digits, nothing between them.
std::string hex_lower(std::string_view bytes);

/// text with & < > " ' written as character references (&amp; &lt; &gt; &quot; &#39;), so
/// it is safe in the text and the quoted attribute values of HTML and of XML (SVG) alike:
/// &#39; rather than &apos;, which HTML 4 lacks. Every other byte is kept as it is.
std::string html_escape(std::string_view text);

/// An address written as one piece of text, split into its host and its port, neither checked.
struct host_port_text {
  std::string_view host;  ///< Without the brackets an IPv6 literal was written in.
  std::string_view port;  ///< The text after the port's colon; empty when none was written.
  bool has_port = false;  ///< Whether a port's colon was written (even with nothing after it).
  bool bracketed = false; ///< Whether the host was written in brackets.
};

/// Splits "host", "host:port", "[IPv6]" and "[IPv6]:port"; text with two colons or more and
/// no brackets is a bare IPv6 literal, all host. Returns nullopt for a bracket left open and
/// for anything but ":port" after the closing bracket. The caller checks both parts.
std::optional<host_port_text> split_host_port(std::string_view text);

/// A Unix time as RFC 3339 UTC with seconds ("2026-08-19T12:00:00Z"), or nullopt outside the
/// years 0000 to 9999, which RFC 3339 cannot write.
std::optional<std::string> rfc3339_utc(std::int64_t unix_seconds);

} // namespace netherscope::base
