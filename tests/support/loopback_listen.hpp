// Test support: the in-process servers (the fake sign-in provider, the webhook receiver)
// listen on 127.0.0.1 at a port the OS chooses.
#pragma once

#include <stdexcept>
#include <string>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>

namespace netherscope::test {

/// Opens, binds and listens acceptor on 127.0.0.1:0 and returns the port it got; throws
/// std::runtime_error naming who when it cannot.
inline unsigned listen_on_loopback(boost::asio::ip::tcp::acceptor& acceptor,
                                   const std::string& who) {
  boost::system::error_code ec;
  boost::asio::ip::tcp::endpoint ep{boost::asio::ip::make_address_v4("127.0.0.1"), 0};
  acceptor.open(ep.protocol(), ec);
  if (!ec)
    acceptor.bind(ep, ec);
  if (!ec)
    acceptor.listen(boost::asio::socket_base::max_listen_connections, ec);
  if (ec)
    throw std::runtime_error(who + " cannot listen: " + ec.message());
  return acceptor.local_endpoint().port();
}

} // namespace netherscope::test
