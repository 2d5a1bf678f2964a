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

/// Binds and listens on address:port and starts accepting. Every accepted connection goes to
/// a plain session, a TLS session (when `tls` is given), or through the BDS sniffer,
/// according to state.cfg.tls. Returns the bound port; throws boost::system::system_error
/// when the address cannot be bound.
std::uint16_t start_listener(boost::asio::io_context& ioc, const std::string& address, std::uint16_t port,
                             target_state& state, boost::asio::ssl::context* tls);

}  // namespace fake_target
