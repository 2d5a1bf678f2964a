#include "core/api_json.hpp"

#include <cmath>
#include <ctime>

#include <algorithm>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "core/error_table.hpp"
#include "core/explain.hpp"
#include "base/json_access.hpp"
#include "base/text.hpp"

namespace netherscope::core {

namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0 if it is not valid.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  // RFC 3629 §4: besides the continuation bytes' 10xxxxxx shape, the second byte's range
  // depends on the lead byte, which rules out overlong forms (C0, C1, E0 80..9F, F0 80..8F),
  // UTF-16 surrogates (ED A0..BF) and code points past U+10FFFF (F4 90.., F5..FF). A JSON
  // writer passes bytes through, so anything looser here yields a body parsers refuse.
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const auto c = byte(i);
  if (c < 0x80)
    return 1;
  std::size_t n = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    low = c == 0xE0 ? 0xA0 : 0x80;
    high = c == 0xED ? 0x9F : 0xBF;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    low = c == 0xF0 ? 0x90 : 0x80;
    high = c == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 0;
  }
  if (i + n > text.size() || byte(i + 1) < low || byte(i + 1) > high)
    return 0;
  for (std::size_t k = 2; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80)
      return 0;
  return n;
}

// The bytes Boost.JSON writes for one character inside a string (it escapes nothing else,
// and writes UTF-8 as it is).
std::size_t json_width(std::string_view character) {
  if (character.size() > 1)
    return character.size();
  switch (character[0]) {
    case '"':
    case '\\':
    case '\b':
    case '\t':
    case '\n':
    case '\f':
    case '\r':
      return 2;
    default:
      return static_cast<unsigned char>(character[0]) < 0x20 ? 6 : 1;
  }
}

// Copies text as valid UTF-8, invalid sequences replaced with U+FFFD, and stops before the
// first character whose width (a function of its UTF-8 bytes) would take the total past
// limit. The walk ends there, so a body of a megabyte costs only what is kept.
template <class Width>
json_text fit(std::string_view text, std::size_t limit, Width width) {
  constexpr std::string_view replacement = "\xEF\xBF\xBD";
  json_text out;
  out.text.reserve(std::min(text.size(), limit));
  std::size_t used = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    auto n = utf8_sequence_length(text, i);
    // U+FFFD keeps the text readable and the JSON valid.
    auto character = n == 0 ? replacement : text.substr(i, n);
    auto w = width(character);
    if (w > limit - used)
      break;
    out.text.append(character);
    used += w;
    i += n == 0 ? 1 : n;
  }
  out.truncated = i < text.size();
  return out;
}

// Replaces the closing brace of a JSON object with extra members and the brace; the caller
// checked that the body ends in '}'. Splicing costs one copy, where parsing and serializing a
// cached answer of a few KB on every call would cost far more.
std::string splice_members(std::string_view body, std::string_view members) {
  std::string out;
  out.reserve(body.size() + members.size());
  out.append(body.substr(0, body.size() - 1));
  // Members are written with a leading comma; an empty object has nothing to separate.
  if (body.find_first_not_of(" \t\r\n", 1) == body.size() - 1 && !members.empty()
      && members.front() == ',')
    members.remove_prefix(1);
  out.append(members);
  out.push_back('}');
  return out;
}

// "a, b, c" of the ports in the order given, each once.
std::string port_list(const std::vector<std::uint16_t>& ports) {
  std::string out;
  std::vector<std::uint16_t> seen;
  for (auto port : ports) {
    if (std::find(seen.begin(), seen.end(), port) != seen.end())
      continue;
    seen.push_back(port);
    if (!out.empty())
      out += ", ";
    out += std::to_string(port);
  }
  return out;
}

} // namespace

std::string valid_utf8(std::string_view text, std::size_t limit) {
  return fit(text, limit, [](std::string_view character) { return character.size(); }).text;
}

json_text fit_for_json(std::string_view text, std::size_t json_limit) {
  return fit(text, json_limit, json_width);
}

json_text quote_body(std::string_view body) {
  return fit_for_json(body, quoted_body_limit);
}

std::string keep_quotable(std::string body) {
  // Every byte of the input takes at least one byte of JSON, so quote_body never shows more
  // than quoted_body_limit input bytes; one more tells it that there was more.
  if (body.size() > quoted_body_limit + 1) {
    body.resize(quoted_body_limit + 1);
    body.shrink_to_fit();
  }
  return body;
}

std::string render_account(const account_view& account) {
  auto usage = [](std::uint64_t used, std::uint64_t limit) {
    boost::json::object item;
    item["used"] = used;
    item["limit"] = limit;
    item["remaining"] = used >= limit ? 0 : limit - used;
    return item;
  };
  boost::json::object body;
  body["ok"] = true;
  body["login"] = account.login;
  body["userId"] = account.user_id;
  body["month"] = account.month;
  body["reset"] = account.reset;
  // Absent only when a reply that issued a key could not read the usage after (the key is
  // never withheld for it).
  if (account.usage_known) {
    boost::json::object endpoints;
    endpoints["info"] = usage(account.info_used, account.info_limit);
    endpoints["offer"] = usage(account.offer_used, account.offer_limit);
    body["usage"] = std::move(endpoints);
  }
  // A key appears exactly once: in the reply that issued it.
  if (!account.new_key.empty())
    body["key"] = account.new_key;
  return boost::json::serialize(body);
}

std::string with_cache_fields(std::string_view body, const cache_fields& fields) {
  if (body.empty() || body.back() != '}')
    return std::string{body};
  std::string members;
  if (fields.cached)
    members += fields.stale ? R"(,"cached":true,"stale":true)" : R"(,"cached":true)";
  members += R"(,"retrievedAt":")";
  members += base::rfc3339_utc(fields.retrieved_at).value_or("1970-01-01T00:00:00Z");
  members += '"';
  if (fields.cached) {
    members += R"(,"expiresAt":")";
    members += base::rfc3339_utc(fields.expires_at).value_or("1970-01-01T00:00:00Z");
    members += '"';
  }
  return splice_members(body, members);
}

std::string expected_ports_warning(const std::vector<std::uint16_t>& expected,
                                   const std::vector<std::uint16_t>& udp_ports) {
  if (expected.empty())
    return {};
  for (auto port : udp_ports)
    if (std::find(expected.begin(), expected.end(), port) != expected.end())
      return {};
  auto text = "no UDP candidate uses an expected port (" + port_list(expected) + "): ";
  text += udp_ports.empty() ? "the answer has no UDP candidate"
                            : "the UDP candidates use " + port_list(udp_ports);
  text += "; check server-udp-ports in server.properties and any port forwarding or "
          "container port mapping in front of the server";
  return text;
}

std::string with_expected_ports(std::string_view body, const std::vector<std::uint16_t>& expected) {
  if (expected.empty())
    return std::string{body};
  auto parsed = base::parse_object(body);
  if (!parsed)
    return std::string{body};
  std::vector<std::uint16_t> udp_ports;
  if (auto* candidates = parsed->if_contains("candidates"); candidates && candidates->is_array()) {
    for (auto& item : candidates->get_array()) {
      auto* candidate = item.if_object();
      if (candidate == nullptr)
        continue;
      auto* transport = base::string_at(*candidate, "transport");
      auto* port = candidate->if_contains("port");
      if (transport == nullptr || !base::iequals(base::view(*transport), "udp") || port == nullptr)
        continue;
      // A port is written as an integer by render_offer; anything else is not a port.
      if (port->is_int64() && port->get_int64() >= 0 && port->get_int64() <= 65535)
        udp_ports.push_back(static_cast<std::uint16_t>(port->get_int64()));
      else if (port->is_uint64() && port->get_uint64() <= 65535)
        udp_ports.push_back(static_cast<std::uint16_t>(port->get_uint64()));
    }
  }
  auto warning = expected_ports_warning(expected, udp_ports);
  if (warning.empty())
    return std::string{body};
  add_warning(*parsed, "expected_ports_unused", std::move(warning));
  return boost::json::serialize(*parsed);
}

std::string render_error(const failure& error) {
  const auto& entry = lookup(error.code);
  boost::json::object body;
  body["ok"] = false;
  body["code"] = entry.machine_code;
  if (error.code == error_code::upstream_status) {
    boost::json::object detail;
    detail["httpStatus"] = error.http_status;
    auto quoted = quote_body(error.body);
    detail["body"] = std::move(quoted.text);
    if (quoted.truncated)
      detail["bodyTruncated"] = true;
    if (error.nethernet_error >= 0) {
      detail["nethernetError"] = error.nethernet_error;
      if (!error.reason.empty())
        detail["reason"] = valid_utf8(error.reason);
      if (auto path = explanation_path(error.nethernet_error); !path.empty())
        detail["explain"] = path;
    }
    body["error"] = std::move(detail);
  } else {
    // Messages quote what callers and targets sent (a host that is not one, a path no route
    // has); Boost.JSON writes bytes as they are, so invalid UTF-8 would make invalid JSON.
    body["error"] = error.message.empty() ? std::string{entry.default_message}
                                          : valid_utf8(error.message);
  }
  return boost::json::serialize(body);
}

void add_warning(boost::json::object& reply, std::string_view code, std::string sentence) {
  // Each member is looked up again after the other's insertion: inserting into an object may
  // move its members, which would leave a reference taken before dangling.
  if (!reply["warnings"].is_array())
    reply["warnings"] = boost::json::array{};
  if (!reply["warningCodes"].is_array())
    reply["warningCodes"] = boost::json::array{};
  reply["warnings"].get_array().emplace_back(std::move(sentence));
  reply["warningCodes"].get_array().emplace_back(code);
}

double shown_ms(double ms) {
  return std::round(ms * 100.0) / 100.0;
}

boost::json::value number_or_null(const std::optional<std::uint32_t>& n) {
  return n ? boost::json::value(*n) : boost::json::value(nullptr);
}

} // namespace netherscope::core
