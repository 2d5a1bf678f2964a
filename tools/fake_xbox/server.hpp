// The fake Xbox chain's HTTP/1.1 server: plain HTTP on one loopback address, one io_context,
// sessions in the shape of Beast's async server example.
#pragma once

#include "state.hpp"

#include <boost/asio/io_context.hpp>

#include <cstdint>

namespace fake_xbox {

/// Listens on st.cfg.bind:st.cfg.port and serves every connection with handle_request.
/// Returns the bound port; throws boost::system::system_error when it cannot bind.
std::uint16_t start_server(boost::asio::io_context& ioc, state& st);

}  // namespace fake_xbox
