// A pool of really bound UDP ports, one per answered offer, the way BDS binds a socket per
// session from `server-udp-ports` (PROTOCOL.md §2.6).
#pragma once

#include "game_session.hpp"
#include "target_state.hpp"

#include <chrono>
#include <memory>

namespace boost::asio {
class io_context;
}

namespace fake_target {

/// Leases UDP sockets bound on the listen address and releases each after a hold time.
class udp_port_pool final : public port_source {
 public:
  /// With no range, every lease binds an OS-chosen port and the pool never runs dry.
  /// Checks that arrive on a leased port are answered per `mode` and counted in `stats`.
  /// A check with USE-CANDIDATE starts a join on its port as `game` says.
  udp_port_pool(boost::asio::io_context& ioc, const std::string& address, std::optional<port_range> range,
                std::chrono::milliseconds hold, stun_mode mode, counters& stats, const game_settings& game);
  ~udp_port_pool() override;

  std::optional<std::uint16_t> lease(const ice_credentials& credentials,
                                     const std::string& peer_fingerprint) override;
  std::size_t in_use() const override;

 private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace fake_target
