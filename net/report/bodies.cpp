#include "net/report/bodies.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "net/api/api_json.hpp"
#include "net/upstream/address_policy.hpp"

namespace netherscope::net {

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

} // namespace netherscope::net
