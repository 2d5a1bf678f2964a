#include "net/api_json.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "net/error_table.hpp"

namespace netherscope::net {

namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0 if it is not valid.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  auto c = byte(i);
  std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > text.size())
    return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80)
      return 0;
  return n;
}

} // namespace

std::string render_info(std::uint16_t status, bool tls, std::string_view target_body) {
  boost::json::object body;
  body["ok"] = true;
  body["status"] = status;
  body["tls"] = tls;
  boost::system::error_code ec;
  auto info = boost::json::parse(target_body, ec);
  if (!ec && info.is_object())
    body["info"] = std::move(info);
  else
    body["info"] = nullptr;
  return boost::json::serialize(body);
}

std::string quote_body(std::string_view body) {
  std::string out;
  out.reserve(std::min(body.size(), quoted_body_limit));
  std::size_t i = 0;
  while (i < body.size()) {
    auto n = utf8_sequence_length(body, i);
    if (n == 0) {
      // U+FFFD keeps the quote readable and the JSON valid.
      if (out.size() + 3 > quoted_body_limit)
        break;
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    if (out.size() + n > quoted_body_limit)
      break;
    out.append(body.substr(i, n));
    i += n;
  }
  return out;
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
    }
    body["error"] = std::move(detail);
  } else {
    body["error"] = error.message.empty() ? entry.default_message : error.message;
  }
  return boost::json::serialize(body);
}

} // namespace netherscope::net
