// The accepting side of the fake target, including the --tls bds ClientHello sniffer.
#pragma once

#include "target_state.hpp"

#include <cstdint>
#include <string>

namespace boost::asio {
class io_context;
namespace ssl {
class context;
}
}  // namespace boost::asio

namespace fake_target {

/// Binds and listens on `count` consecutive ports from address:port and starts accepting on
/// each. Every accepted connection goes to a plain session, a TLS session (when `tls` is
/// given), or through the BDS sniffer, according to state.cfg.tls. With port 0 the OS picks the
/// first port and the others follow it. Every port of the run is bound or none is: returns the
/// first port, or throws boost::system::system_error (with nothing left open) when one of them
/// cannot be bound.
std::uint16_t start_listeners(boost::asio::io_context& ioc, const std::string& address, std::uint16_t port,
                              std::uint16_t count, target_state& state, boost::asio::ssl::context* tls);

}  // namespace fake_target
