#include "net/xbox/timing.hpp"

#include <algorithm>

namespace netherscope::net::xbox {

namespace {

constexpr std::int64_t max_margin_ms = 60'000;

// Days from 1970-01-01 to the civil date y-m-d (proleptic Gregorian), after Howard
// Hinnant's days_from_civil.
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool leap(std::int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned days_in_month(std::int64_t y, unsigned m) {
  static constexpr unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : days[m - 1];
}

// Reads exactly n digits at text[at...]; false when they are not there.
bool digits(std::string_view text, std::size_t& at, std::size_t n, unsigned& out) {
  if (text.size() < at + n)
    return false;
  out = 0;
  for (std::size_t i = 0; i < n; ++i) {
    char c = text[at + i];
    if (c < '0' || c > '9')
      return false;
    out = out * 10 + static_cast<unsigned>(c - '0');
  }
  at += n;
  return true;
}

bool expect(std::string_view text, std::size_t& at, char c) {
  if (at >= text.size() || text[at] != c)
    return false;
  ++at;
  return true;
}

} // namespace

std::int64_t renew_margin_ms(const token_times& t) {
  auto lifetime = t.expires_ms - t.issued_ms;
  if (lifetime <= 0)
    return 0;
  return std::min(max_margin_ms, lifetime / 4);
}

std::int64_t renew_at_ms(const token_times& t) {
  return t.expires_ms - renew_margin_ms(t);
}

bool still_good(const token_times& t, std::int64_t now_ms) {
  return t.expires_ms > t.issued_ms && now_ms < renew_at_ms(t);
}

token_times times_from_server(std::int64_t received_ms, std::optional<std::int64_t> server_issued_ms,
                              std::int64_t server_expires_ms) {
  if (!server_issued_ms)
    return {received_ms, server_expires_ms};
  return {received_ms, received_ms + (server_expires_ms - *server_issued_ms)};
}

token_times times_from_lifetime(std::int64_t received_ms, std::int64_t lifetime_s) {
  return {received_ms, received_ms + lifetime_s * 1000};
}

std::optional<std::int64_t> parse_timestamp_ms(std::string_view text) {
  std::size_t at = 0;
  unsigned year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(text, at, 4, year) || !expect(text, at, '-') || !digits(text, at, 2, month)
      || !expect(text, at, '-') || !digits(text, at, 2, day))
    return std::nullopt;
  if (at >= text.size() || (text[at] != 'T' && text[at] != 't' && text[at] != ' '))
    return std::nullopt;
  ++at;
  if (!digits(text, at, 2, hour) || !expect(text, at, ':') || !digits(text, at, 2, minute)
      || !expect(text, at, ':') || !digits(text, at, 2, second))
    return std::nullopt;
  // A leap second (:60) is read as the last millisecond of its minute.
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23
      || minute > 59 || second > 60)
    return std::nullopt;
  std::int64_t millis = 0;
  if (at < text.size() && text[at] == '.') {
    ++at;
    std::size_t count = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
      if (count < 3)
        millis = millis * 10 + (text[at] - '0');
      ++count;
      ++at;
    }
    if (count == 0)
      return std::nullopt;
    for (std::size_t i = count; i < 3; ++i)
      millis *= 10;
  }
  if (second == 60) {
    second = 59;
    millis = 999;
  }
  std::int64_t offset_minutes = 0;
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    ++at;
  } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    int sign = text[at] == '-' ? -1 : 1;
    ++at;
    unsigned oh = 0, om = 0;
    if (!digits(text, at, 2, oh) || !expect(text, at, ':') || !digits(text, at, 2, om)
        || oh > 23 || om > 59)
      return std::nullopt;
    offset_minutes = sign * static_cast<std::int64_t>(oh * 60 + om);
  } else {
    return std::nullopt;
  }
  if (at != text.size())
    return std::nullopt;
  auto seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60
                 + second - offset_minutes * 60;
  return seconds * 1000 + millis;
}

} // namespace netherscope::net::xbox
