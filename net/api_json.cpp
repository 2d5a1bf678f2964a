#include "net/api_json.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "net/address_policy.hpp"
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

std::string render_offer(std::string_view answer, const parsed_answer& parsed, bool tls,
                         std::string_view network_id) {
  // The default policy is exactly "reachable from the Internet": public unicast only.
  static const address_policy public_only;
  boost::json::object body;
  body["ok"] = true;
  body["answer"] = valid_utf8(answer);
  boost::json::array candidates;
  boost::json::array warnings;
  for (auto& w : parsed.warnings)
    warnings.emplace_back(w);
  std::size_t index = 0;
  for (auto& c : parsed.candidates) {
    ++index;
    boost::json::object item;
    item["raw"] = c.raw;
    item["foundation"] = c.foundation;
    item["component"] = c.component;
    item["transport"] = c.transport;
    item["priority"] = c.priority;
    item["address"] = c.address;
    item["port"] = c.port;
    item["type"] = c.type;
    if (c.related_address)
      item["relatedAddress"] = *c.related_address;
    if (c.related_port)
      item["relatedPort"] = *c.related_port;
    boost::system::error_code ec;
    auto address = boost::asio::ip::make_address(c.address, ec);
    bool is_public = false;
    std::string why;
    if (ec) {
      why = c.address + " is a name (mDNS or DNS), not an address players can use";
    } else {
      auto verdict = public_only.check(address);
      is_public = verdict.allowed;
      why = verdict.reason;
    }
    item["publicAddress"] = is_public;
    if (!is_public)
      warnings.emplace_back("candidate " + std::to_string(index) + ": " + why
                            + "; players on the Internet cannot reach it");
    candidates.emplace_back(std::move(item));
  }
  body["candidates"] = std::move(candidates);
  body["answerFingerprint"] = valid_utf8(parsed.fingerprint);
  body["iceUfrag"] = valid_utf8(parsed.ice_ufrag);
  // SPEC 2.2: a 200 answer with zero candidates means the server's UDP pool is drained.
  body["exhausted"] = parsed.candidates.empty();
  body["networkId"] = network_id;
  body["tls"] = tls;
  body["warnings"] = std::move(warnings);
  return boost::json::serialize(body);
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
