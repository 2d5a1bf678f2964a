#include "net/api/api_json.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "net/api/error_table.hpp"

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

std::string with_cache_flags(std::string_view body, bool cached, bool stale) {
  if (!cached || body.empty() || body.back() != '}')
    return std::string{body};
  std::string out{body.substr(0, body.size() - 1)};
  out += stale ? R"(,"cached":true,"stale":true})" : R"(,"cached":true})";
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
