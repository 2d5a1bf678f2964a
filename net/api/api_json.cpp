#include "net/api/api_json.hpp"

#include <ctime>

#include <algorithm>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "net/api/error_table.hpp"
#include "net/api/explain.hpp"
#include "net/base/json_access.hpp"
#include "net/base/text.hpp"

namespace netherscope::net {

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
  std::string out;
  out.reserve(std::min(text.size(), limit));
  std::size_t i = 0;
  while (i < text.size()) {
    auto n = utf8_sequence_length(text, i);
    if (n == 0) {
      // U+FFFD keeps the text readable and the JSON valid.
      if (out.size() + 3 > limit)
        break;
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    if (out.size() + n > limit)
      break;
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

std::string quote_body(std::string_view body) {
  return valid_utf8(body, quoted_body_limit);
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
  boost::json::object endpoints;
  endpoints["info"] = usage(account.info_used, account.info_limit);
  endpoints["offer"] = usage(account.offer_used, account.offer_limit);
  body["usage"] = std::move(endpoints);
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
  members += rfc3339_utc(fields.retrieved_at).value_or("1970-01-01T00:00:00Z");
  members += '"';
  if (fields.cached) {
    members += R"(,"expiresAt":")";
    members += rfc3339_utc(fields.expires_at).value_or("1970-01-01T00:00:00Z");
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
  auto parsed = parse_object(body);
  if (!parsed)
    return std::string{body};
  std::vector<std::uint16_t> udp_ports;
  if (auto* candidates = parsed->if_contains("candidates"); candidates && candidates->is_array()) {
    for (auto& item : candidates->get_array()) {
      auto* candidate = item.if_object();
      if (candidate == nullptr)
        continue;
      auto* transport = string_at(*candidate, "transport");
      auto* port = candidate->if_contains("port");
      if (transport == nullptr || !iequals(view(*transport), "udp") || port == nullptr)
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
    detail["body"] = quote_body(error.body);
    if (error.nethernet_error >= 0) {
      detail["nethernetError"] = error.nethernet_error;
      if (!error.reason.empty())
        detail["reason"] = error.reason;
      if (auto path = explanation_path(error.nethernet_error); !path.empty())
        detail["explain"] = path;
    }
    body["error"] = std::move(detail);
  } else {
    body["error"] = error.message.empty() ? entry.default_message : error.message;
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

} // namespace netherscope::net
