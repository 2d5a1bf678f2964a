#include "support/udp_peer.hpp"

#include <array>
#include <thread>

#include <boost/asio/io_context.hpp>

namespace netherscope::test {

namespace asio = boost::asio;
using udp = asio::ip::udp;

struct udp_peer::impl {
  explicit impl(handler h) : handle(std::move(h)) {
    // nop
  }

  void receive() {
    socket.async_receive_from(asio::buffer(buffer), from, [this](auto ec, std::size_t n) {
      if (ec)
        return;
      ++received;
      auto out = handle(std::string_view{buffer.data(), n}, from);
      boost::system::error_code ignored;
      for (const auto& bytes : out.replies)
        socket.send_to(asio::buffer(bytes), from, 0, ignored);
      for (const auto& bytes : out.from_other_port)
        other.send_to(asio::buffer(bytes), from, 0, ignored);
      receive();
    });
  }

  handler handle;
  asio::io_context ioc;
  udp::socket socket{ioc, {asio::ip::make_address("127.0.0.1"), 0}};
  udp::socket other{ioc, {asio::ip::make_address("127.0.0.1"), 0}};
  std::array<char, 4096> buffer{};
  udp::endpoint from;
  std::atomic<int> received{0};
  std::thread thread;
};

udp_peer::udp_peer(handler handle) : impl_(std::make_unique<impl>(std::move(handle))) {
  // The receive is pending before the thread runs, so run() has work and does not return.
  impl_->receive();
  impl_->thread = std::thread([i = impl_.get()] { i->ioc.run(); });
}

udp_peer::~udp_peer() {
  impl_->ioc.stop();
  impl_->thread.join();
}

std::uint16_t udp_peer::port() const {
  return impl_->socket.local_endpoint().port();
}

int udp_peer::datagrams() const {
  return impl_->received;
}

} // namespace netherscope::test
