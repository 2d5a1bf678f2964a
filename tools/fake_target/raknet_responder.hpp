// The fake's RakNet status responder (PROTOCOL.md, "RakNet status"): it answers the unconnected
// ping on UDP with a pong in the status-string shape of one server software, or with one of the
// hostile pongs a prober must survive. Written apart from netherscope's net/raknet on purpose:
// the fake stands for servers we did not write, so one misreading must not hide on both sides.
#pragma once

#include "config.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace boost::asio {
class io_context;
}

namespace fake_target {

struct counters;

/// What the status string says, read once from --info so both transports agree.
struct server_facts {
  std::string name = "Fake BDS";
  std::int64_t protocol = 2193;
  std::string version = "1.26.51";
  std::string level = "Bedrock level";
  std::int64_t players = 0;
  std::int64_t max_players = 10;
  std::int64_t game_type = 0;
};

/// The facts of an --info JSON body; fields it lacks keep their defaults.
server_facts facts_from_info(const std::string& info_json);

/// The status string of `style` for a server on `port` with this GUID.
std::string status_string(raknet_style style, const server_facts& facts, std::uint64_t guid,
                          std::uint16_t port);

/// The answer to one datagram: a pong (shaped by `fault`) when it is an unconnected ping
/// (id 0x01 or 0x02, at least 33 bytes, the offline magic), nothing otherwise or when the fault
/// is silence. Where the pong goes from (its own port, or another for other_port) is the
/// caller's.
std::optional<std::string> answer_ping(std::string_view datagram, raknet_fault fault,
                                       const std::string& status, std::uint64_t guid);

/// Answers pings on a UDP port; lives as long as the io_context runs.
class raknet_responder {
 public:
  /// Binds UDP on address:port (port 0: one the OS picks); throws boost::system::system_error
  /// when it cannot. Pings and pongs are counted in stats.
  raknet_responder(boost::asio::io_context& ioc, const std::string& address, std::uint16_t port,
                   const config& cfg, counters& stats);
  ~raknet_responder();

  /// The bound port.
  std::uint16_t port() const;

 private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace fake_target
