#include "net/base/text.hpp"

#include <ctime>

#include <cstdio>

#include <iterator>
#include <locale>

#include <boost/algorithm/hex.hpp>
#include <boost/algorithm/string/case_conv.hpp>
#include <boost/algorithm/string/predicate.hpp>

namespace netherscope::net {

std::string_view trim(std::string_view text, std::string_view chars) {
  auto first = text.find_first_not_of(chars);
  if (first == std::string_view::npos)
    return {};
  auto last = text.find_last_not_of(chars);
  return text.substr(first, last - first + 1);
}

// The classic locale makes Boost compare ASCII letters only, whatever the program's global
// locale is.
bool iequals(std::string_view a, std::string_view b) {
  return boost::algorithm::iequals(a, b, std::locale::classic());
}

std::string ascii_lower(std::string_view text) {
  // The classic locale folds only A-Z, whatever the process's global locale is.
  return boost::algorithm::to_lower_copy(std::string{text}, std::locale::classic());
}

bool istarts_with(std::string_view text, std::string_view prefix) {
  return boost::algorithm::istarts_with(text, prefix, std::locale::classic());
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  for (;;) {
    auto pos = text.find(sep);
    parts.push_back(text.substr(0, pos));
    if (pos == std::string_view::npos)
      return parts;
    text.remove_prefix(pos + 1);
  }
}

std::vector<std::string_view> split_tokens(std::string_view text, std::string_view seps) {
  std::vector<std::string_view> tokens;
  auto start = text.find_first_not_of(seps);
  while (start != std::string_view::npos) {
    auto end = text.find_first_of(seps, start);
    tokens.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos)
      break;
    start = text.find_first_not_of(seps, end);
  }
  return tokens;
}

std::string hex_upper(std::string_view bytes) {
  std::string out;
  out.reserve(2 * bytes.size());
  boost::algorithm::hex(bytes.begin(), bytes.end(), std::back_inserter(out));
  return out;
}

std::string hex_lower(std::string_view bytes) {
  std::string out;
  out.reserve(2 * bytes.size());
  boost::algorithm::hex_lower(bytes.begin(), bytes.end(), std::back_inserter(out));
  return out;
}

std::optional<std::string> rfc3339_utc(std::int64_t unix_seconds) {
  // 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z; outside them gmtime_r's year would need
  // more than four digits, or a sign.
  constexpr std::int64_t first = -62167219200;
  constexpr std::int64_t last = 253402300799;
  if (unix_seconds < first || unix_seconds > last)
    return std::nullopt;
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm parts{};
  if (!gmtime_r(&t, &parts))
    return std::nullopt;
  char text[80]; // room for any int in each field, which GCC checks for
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02dZ", parts.tm_year + 1900,
                parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec);
  return std::string{text};
}

} // namespace netherscope::net
