#include "core/join_request.hpp"

#include <boost/json/parse.hpp>

#include "core/offer_request.hpp"

namespace netherscope::core {

namespace {

/// The highest protocol a client may say: well above any Bedrock release, far below where a
/// signed 32-bit field overflows.
constexpr std::int64_t max_protocol = 100000;

bool read_network_id(const boost::json::object& obj, join_request& req, failure& error) {
  auto nid = obj.if_contains("networkId");
  if (nid == nullptr || nid->is_null())
    return true;
  if (!nid->is_string() || !is_valid_network_id(nid->as_string())) {
    error = invalid_input("networkId must be a string of 1 to 20 decimal digits that fits in an "
                          "unsigned 64-bit integer, e.g. \"12345\"");
    return false;
  }
  req.network_id = std::string{nid->as_string()};
  return true;
}

bool read_protocol(const boost::json::object& obj, join_request& req, failure& error) {
  auto protocol = obj.if_contains("protocol");
  if (protocol == nullptr || protocol->is_null())
    return true;
  if (!protocol->is_int64() || protocol->as_int64() < 1 || protocol->as_int64() > max_protocol) {
    error = invalid_input("protocol must be an integer from 1 to " + std::to_string(max_protocol)
                          + " (omit it to send the server's own)");
    return false;
  }
  req.protocol = static_cast<std::int32_t>(protocol->as_int64());
  return true;
}

bool read_players(const boost::json::object& obj, join_request& req, failure& error) {
  auto players = obj.if_contains("players");
  if (players == nullptr || players->is_null())
    return true;
  if (!players->is_int64() || players->as_int64() < 1
      || players->as_int64() > static_cast<std::int64_t>(max_join_players)) {
    error = invalid_input("players must be 1 or 2 (2 joins two players at once, to see whether "
                          "the server's port pool lets both in)");
    return false;
  }
  req.players = static_cast<unsigned>(players->as_int64());
  return true;
}

} // namespace

std::optional<join_request> parse_join_body(std::string_view body, failure& error) {
  auto parsed = read_object_body(body, R"({"host":"play.example.com"})", error);
  if (!parsed)
    return std::nullopt;
  auto& obj = *parsed;
  join_request req;
  if (!read_target(obj, req.where, error) || !read_network_id(obj, req, error)
      || !read_protocol(obj, req, error) || !read_players(obj, req, error))
    return std::nullopt;
  return req;
}

} // namespace netherscope::core
