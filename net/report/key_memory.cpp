#include "net/report/key_memory.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace netherscope::net {

key_comparison compare_identity_key(const identity_check& identity,
                                    std::string_view previous_key) {
  key_comparison out;
  if (!identity.verified || identity.key_sha256.empty())
    return out;
  if (previous_key.empty()) {
    out.key_to_store = identity.key_sha256;
    return out;
  }
  if (previous_key == identity.key_sha256) {
    out.key_changed = false;
    return out;
  }
  out.key_changed = true;
  out.previous_key = std::string{previous_key};
  out.key_to_store = identity.key_sha256;
  return out;
}

std::string with_key_memory(std::string body, const key_comparison& comparison) {
  if (!comparison.key_changed)
    return body;
  boost::system::error_code ec;
  auto parsed = boost::json::parse(body, ec);
  if (ec || !parsed.is_object())
    return body;
  auto& object = parsed.as_object();
  object["keyChanged"] = *comparison.key_changed;
  if (*comparison.key_changed)
    object["previousKeySha256"] = comparison.previous_key;
  return boost::json::serialize(object);
}

} // namespace netherscope::net
