// Test support: a UDP peer on a loopback port, on a thread of its own, that answers each
// datagram the way the test says (a STUN responder, a RakNet server, a peer that misbehaves).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/udp.hpp>

namespace netherscope::test {

/// Answers datagrams on 127.0.0.1 until destroyed.
class udp_peer {
public:
  /// What goes back to the sender of one datagram.
  struct answer {
    /// Sent from the peer's own port.
    std::vector<std::string> replies;
    /// Sent from another port of the same address, as something else on the host would.
    std::vector<std::string> from_other_port;
  };
  using handler =
    std::function<answer(std::string_view datagram, const boost::asio::ip::udp::endpoint& from)>;

  /// Binds an OS-chosen port and starts answering with handle, called on the peer's thread.
  explicit udp_peer(handler handle);
  ~udp_peer();

  udp_peer(const udp_peer&) = delete;
  udp_peer& operator=(const udp_peer&) = delete;

  std::uint16_t port() const;

  /// Datagrams received so far.
  int datagrams() const;

  struct impl;

private:
  std::unique_ptr<impl> impl_;
};

} // namespace netherscope::test
