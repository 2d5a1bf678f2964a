#include "net/report/raknet_status.hpp"

#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include <boost/asio/ip/address.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "core/api_json.hpp"
#include "core/motd.hpp"
#include "base/crypto.hpp"
#include "net/raknet/status.hpp"
#include "net/raknet/unconnected.hpp"

namespace netherscope::net::report {

namespace json = boost::json;

namespace {

/// The client GUID every ping of this process carries, as one RakNet peer's would.
std::uint64_t process_guid() {
  static const std::uint64_t guid = [] {
    std::uint64_t value = 0;
    if (auto bytes = base::random_bytes(sizeof value))
      std::memcpy(&value, bytes->data(), sizeof value);
    return value;
  }();
  return guid;
}

std::int64_t process_milliseconds() {
  static const auto start = std::chrono::steady_clock::now();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now()
                                                               - start)
    .count();
}

json::value text_or_null(const std::optional<std::string>& text) {
  return text ? json::value(core::valid_utf8(*text)) : json::value(nullptr);
}

/// The lines the game's server list shows: the MOTD, then the second line (BDS's level name)
/// when there is one.
std::vector<std::string> motd_lines(const raknet::status& status) {
  std::vector<std::string> lines{status.motd.value_or(std::string{})};
  if (status.level)
    lines.push_back(*status.level);
  return lines;
}

template <class Int>
json::value number_or_null(const std::optional<Int>& n) {
  return n ? json::value(*n) : json::value(nullptr);
}

/// The API's code for an exchange that did not end with a pong: the exchange's own word,
/// except where the API's names say more (a broken reply is a broken pong; a refused address
/// is the API's forbidden_target).
std::string code_of(upstream::udp_outcome outcome) {
  switch (outcome) {
    case upstream::udp_outcome::malformed:
      return "malformed_pong";
    case upstream::udp_outcome::forbidden:
      return "forbidden_target";
    default:
      return std::string{to_string(outcome)};
  }
}

core::raknet_reply failed(std::uint16_t port, std::string code, std::string message) {
  core::raknet_reply reply;
  reply.tried = true;
  reply.port = port;
  reply.code = std::move(code);
  reply.message = std::move(message);
  json::object body;
  body["ok"] = false;
  body["code"] = reply.code;
  body["error"] = core::valid_utf8(reply.message);
  reply.body = json::serialize(body);
  return reply;
}

void add_warning(json::array& warnings, json::array& codes, std::string_view code,
                 std::string sentence) {
  warnings.emplace_back(std::move(sentence));
  codes.emplace_back(code);
}

} // namespace

raknet_pings next_raknet_pings(std::size_t count) {
  raknet_pings pings;
  pings.client_guid = process_guid();
  pings.first_time = process_milliseconds();
  pings.count = count;
  return pings;
}

upstream::udp_exchange_request raknet_exchange(const std::string& host, std::uint16_t port,
                                     const raknet_pings& pings) {
  upstream::udp_exchange_request request;
  request.host = host;
  request.port = port;
  request.datagram = [pings](std::size_t try_index) {
    return raknet::write_ping(pings.first_time + static_cast<std::int64_t>(try_index),
                              pings.client_guid);
  };
  request.judge = [pings](std::string_view datagram) { return judge_pong(datagram, pings); };
  return request;
}

upstream::reply_judgement judge_pong(std::string_view datagram, const raknet_pings& pings) {
  upstream::reply_judgement judgement;
  raknet::pong_error why = raknet::pong_error::none;
  auto pong = raknet::read_pong(datagram, pings.first_time, pings.count, &why);
  if (!pong) {
    judgement.verdict = upstream::reply_verdict::malformed;
    judgement.reason = raknet::describe(why);
    return judgement;
  }
  judgement.verdict = upstream::reply_verdict::accepted;
  judgement.try_index = pong->ping_index;
  return judgement;
}

core::raknet_reply make_raknet_reply(const upstream::udp_exchange_result& result, std::uint16_t port,
                               const raknet_pings& pings) {
  if (result.outcome != upstream::udp_outcome::answered)
    return failed(port, code_of(result.outcome), result.message);
  raknet::pong_error why = raknet::pong_error::none;
  auto pong = raknet::read_pong(result.reply, pings.first_time, pings.count, &why);
  // The exchange accepted it with the same judge, so this holds; a reply of another exchange
  // handed here by mistake is reported, never read.
  if (!pong)
    return failed(port, "malformed_pong", "UDP port " + std::to_string(port) + " answered, but "
                                            + std::string{raknet::describe(why)});
  auto status = raknet::read_status(pong->status);

  core::raknet_reply reply;
  reply.tried = true;
  reply.ok = true;
  reply.port = port;
  reply.latency_ms = core::shown_ms(result.latency_ms);
  reply.protocol = status.protocol.value_or(-1);
  reply.version = status.version ? core::valid_utf8(*status.version) : std::string{};
  reply.motd = status.motd ? core::valid_utf8(core::motd_clean(*status.motd)) : std::string{};

  json::object body;
  body["ok"] = true;
  body["latencyMs"] = reply.latency_ms;
  body["address"] = result.address;
  body["port"] = port;
  body["edition"] = text_or_null(status.edition);
  body["motd"] = text_or_null(status.motd);
  body["motdPlain"] = status.motd ? json::value(reply.motd) : json::value(nullptr);
  body["motdFormatted"] = status.motd ? json::value(core::motd_json(motd_lines(status)))
                                      : json::value(nullptr);
  body["level"] = text_or_null(status.level);
  body["protocol"] = number_or_null(status.protocol);
  body["version"] = text_or_null(status.version);
  body["players"] = number_or_null(status.players);
  body["maxPlayers"] = number_or_null(status.max_players);
  body["gameMode"] = text_or_null(status.game_mode);
  body["gameModeId"] = number_or_null(status.game_mode_id);
  // A string: ids run to 2^64, past the integers a JSON reader is sure to keep exactly.
  body["serverGuid"] = status.server_guid ? json::value(std::to_string(*status.server_guid))
                                          : json::value(nullptr);
  body["portV4"] = number_or_null(status.port_v4);
  body["portV6"] = number_or_null(status.port_v6);
  json::array extra;
  for (const auto& field : status.extra)
    extra.emplace_back(core::valid_utf8(field));
  body["extra"] = std::move(extra);
  body["fieldCount"] = status.field_count;

  json::array warnings;
  json::array codes;
  boost::system::error_code ec;
  auto answered = boost::asio::ip::make_address(result.address, ec);
  bool over_v6 = !ec && answered.is_v6() && !answered.to_v6().is_v4_mapped();
  const auto& named = over_v6 ? status.port_v6 : status.port_v4;
  if (named && *named != port)
    add_warning(warnings, codes, "pong_port_differs",
                "The pong names " + std::string{over_v6 ? "IPv6" : "IPv4"} + " port "
                  + std::to_string(*named) + ", not the port pinged (" + std::to_string(port)
                  + "): clients that follow vanilla's behaviour connect to the port the pong "
                    "names.");
  if (result.reply.size() >= raknet_pong_limit)
    add_warning(warnings, codes, "long_pong",
                "The pong is " + std::to_string(result.reply.size())
                  + " bytes: vanilla RakNet ignores pongs of 433 bytes or more, so clients may "
                    "not list the server (whether Mojang's client keeps that limit is not "
                    "known).");
  if (core::valid_utf8(pong->status) != pong->status)
    add_warning(warnings, codes, "status_not_utf8",
                "The status string is not valid UTF-8; the bytes that are not were replaced "
                "with U+FFFD.");
  body["warnings"] = std::move(warnings);
  body["warningCodes"] = std::move(codes);
  reply.body = json::serialize(body);
  return reply;
}

} // namespace netherscope::net::report
