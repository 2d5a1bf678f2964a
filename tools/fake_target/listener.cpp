// Accepting connections, and the BDS TLS behaviour of PROTOCOL.md §1.2: a connection whose
// first byte starts a TLS handshake record gets a fatal handshake_failure alert and is
// closed, which is what makes a real client fall back to plain HTTP. In --tls silent such a
// connection gets nothing at all, as some servers and middleboxes do: the client has to give
// up on its own.
#include "listener.hpp"

#include "transport.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/system/system_error.hpp>

#include <array>
#include <memory>
#include <vector>

namespace fake_target {

namespace beast = boost::beast;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

// TLS record: type 21 (alert), version 3.1, length 2, level 2 (fatal), 40 (handshake_failure).
constexpr std::array<unsigned char, 7> handshake_failure_alert = {0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 0x28};
constexpr unsigned char tls_handshake_record = 0x16;

/// Reads the first bytes of a --tls bds or --tls silent connection and decides between HTTP
/// and the alert (bds) or silence (silent).
class tls_sniffer : public std::enable_shared_from_this<tls_sniffer> {
 public:
  tls_sniffer(tcp::socket socket, target_state& state, connection_token token)
      : stream_(std::move(socket)), state_(state), token_(std::move(token)) {}

  void run() {
    stream_.expires_after(first_byte_timeout);
    stream_.async_read_some(buffer_.prepare(4096),
                            beast::bind_front_handler(&tls_sniffer::on_first_read, shared_from_this()));
  }

 private:
  static constexpr std::chrono::seconds first_byte_timeout{60};
  static constexpr std::chrono::seconds linger_timeout{5};

  void on_first_read(beast::error_code ec, std::size_t bytes) {
    if (ec) return;
    buffer_.commit(bytes);
    const auto* first = static_cast<const unsigned char*>(buffer_.data().data());
    if (*first != tls_handshake_record) {
      stream_.expires_never();
      return start_session(make_plain_transport(stream_.release_socket()), std::move(buffer_), state_,
                           std::move(token_));
    }
    if (state_.cfg.tls == tls_mode::silent) {
      ++state_.stats.tls_hellos_ignored;
      if (state_.emit) state_.emit(R"({"event":"tls_silent"})");
      // Read and drop whatever comes until the client closes or the idle timeout passes.
      stream_.expires_after(first_byte_timeout);
      return do_drain();
    }
    ++state_.stats.tls_alerts;
    if (state_.emit) state_.emit(R"({"event":"tls_alert"})");
    stream_.expires_after(linger_timeout);
    net::async_write(stream_, net::buffer(handshake_failure_alert),
                     beast::bind_front_handler(&tls_sniffer::on_alert_sent, shared_from_this()));
  }

  void on_alert_sent(beast::error_code ec, std::size_t) {
    if (ec) return;
    // Half-close and read out the rest of the ClientHello before closing: closing with
    // unread input would send a reset, which can destroy the alert before the client reads it.
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    do_drain();
  }

  void do_drain() {
    stream_.async_read_some(net::buffer(scratch_),
                            beast::bind_front_handler(&tls_sniffer::on_drain, shared_from_this()));
  }

  void on_drain(beast::error_code ec, std::size_t) {
    // The client closing, or the linger timeout, ends it; the destructor closes the socket.
    if (!ec) do_drain();
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  target_state& state_;
  connection_token token_;
  std::array<char, 4096> scratch_{};
};

class listener : public std::enable_shared_from_this<listener> {
 public:
  listener(net::io_context& ioc, const tcp::endpoint& endpoint, target_state& state, net::ssl::context* tls)
      : ioc_(ioc), acceptor_(ioc), state_(state), tls_(tls) {
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(net::socket_base::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen(net::socket_base::max_listen_connections);
  }

  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

  void do_accept() {
    acceptor_.async_accept(ioc_, beast::bind_front_handler(&listener::on_accept, shared_from_this()));
  }

 private:
  void on_accept(beast::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted) return;
    // Any other accept error (say, out of descriptors) affects only that connection.
    if (!ec) dispatch(std::move(socket));
    do_accept();
  }

  void dispatch(tcp::socket socket) {
    connection_token token(state_);
    // Small responses and drip bytes go out at once instead of waiting on Nagle's algorithm.
    beast::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    switch (state_.cfg.tls) {
      case tls_mode::on:
        return start_session(make_tls_transport(std::move(socket), *tls_), {}, state_, std::move(token));
      case tls_mode::bds:
      case tls_mode::silent:
        return std::make_shared<tls_sniffer>(std::move(socket), state_, std::move(token))->run();
      case tls_mode::off:
        break;
    }
    start_session(make_plain_transport(std::move(socket)), {}, state_, std::move(token));
  }

  net::io_context& ioc_;
  tcp::acceptor acceptor_;
  target_state& state_;
  net::ssl::context* tls_;
};

}  // namespace

std::uint16_t start_listeners(net::io_context& ioc, const std::string& address, std::uint16_t port,
                              std::uint16_t count, target_state& state, net::ssl::context* tls) {
  const auto ip = net::ip::make_address(address);
  // All are bound before any accepts: a listener that has not started accepting is owned here
  // alone, so a failure part way closes the ones already bound as the vector goes.
  std::vector<std::shared_ptr<listener>> run;
  run.push_back(std::make_shared<listener>(ioc, tcp::endpoint(ip, port), state, tls));
  const unsigned first = run.front()->port();
  if (first + count - 1 > 65535) throw boost::system::system_error(net::error::address_in_use);
  for (unsigned next = first + 1; next < first + count; ++next)
    run.push_back(std::make_shared<listener>(ioc, tcp::endpoint(ip, static_cast<std::uint16_t>(next)), state, tls));
  for (auto& accepting : run) accepting->do_accept();
  return static_cast<std::uint16_t>(first);
}

}  // namespace fake_target
