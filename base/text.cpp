#include "base/text.hpp"

#include <ctime>

#include <cstdio>

#include <algorithm>
#include <iterator>

#include <boost/algorithm/hex.hpp>

namespace netherscope::base {

std::string_view trim(std::string_view text, std::string_view chars) {
  auto first = text.find_first_not_of(chars);
  if (first == std::string_view::npos)
    return {};
  auto last = text.find_last_not_of(chars);
  return text.substr(first, last - first + 1);
}

namespace {

// A-Z to a-z and nothing else. Boost's case functions would do the same under the classic
// locale, but look the locale's facet up for every character, which the edge cannot afford
// on each request (iequals on the Content-Type of every offer, ascii_lower on every host).
char fold_ascii(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

} // namespace

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size()
         && std::equal(a.begin(), a.end(), b.begin(),
                       [](char x, char y) { return fold_ascii(x) == fold_ascii(y); });
}

std::optional<unsigned> hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return static_cast<unsigned>(c - '0');
  if (c >= 'a' && c <= 'f')
    return static_cast<unsigned>(c - 'a' + 10);
  if (c >= 'A' && c <= 'F')
    return static_cast<unsigned>(c - 'A' + 10);
  return std::nullopt;
}

std::string ascii_lower(std::string_view text) {
  std::string out{text};
  for (auto& c : out)
    c = fold_ascii(c);
  return out;
}

bool istarts_with(std::string_view text, std::string_view prefix) {
  return iequals(text.substr(0, prefix.size()), prefix);
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

std::optional<host_port_text> split_host_port(std::string_view text) {
  host_port_text out;
  out.host = text;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos)
      return std::nullopt;
    out.host = text.substr(1, close - 1);
    out.bracketed = true;
    auto rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':')
        return std::nullopt;
      out.port = rest.substr(1);
      out.has_port = true;
    }
    return out;
  }
  // One colon separates the port; two or more are an IPv6 literal without brackets.
  auto colon = text.find(':');
  if (colon != std::string_view::npos && text.find(':', colon + 1) == std::string_view::npos) {
    out.host = text.substr(0, colon);
    out.port = text.substr(colon + 1);
    out.has_port = true;
  }
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

} // namespace netherscope::base
