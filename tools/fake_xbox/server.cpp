#include "server.hpp"

#include "router.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <memory>

namespace fake_xbox {

namespace beast = boost::beast;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

// The chain's bodies are small; a megabyte bounds a careless client.
constexpr std::uint64_t body_limit = 1024 * 1024;

class session : public std::enable_shared_from_this<session> {
 public:
  session(tcp::socket socket, state& st) : stream_(std::move(socket)), st_(st) {}

  void run() { do_read(); }

 private:
  void do_read() {
    parser_.emplace();
    parser_->body_limit(body_limit);
    // Idle keep-alive connections are dropped after a minute; tests never idle that long.
    stream_.expires_after(std::chrono::seconds(60));
    http::async_read(stream_, buffer_, *parser_, beast::bind_front_handler(&session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t) {
    // End of stream, a timeout, a reset or garbage: the connection ends and the destructor
    // closes the socket.
    if (ec) return;
    res_ = handle_request(parser_->get(), st_);
    stream_.expires_after(std::chrono::seconds(30));
    http::async_write(stream_, res_, beast::bind_front_handler(&session::on_write, shared_from_this()));
  }

  void on_write(beast::error_code ec, std::size_t) {
    if (ec) return;
    if (!res_.keep_alive()) {
      beast::error_code ignored;
      stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
      return;
    }
    do_read();
  }

  beast::tcp_stream stream_;
  state& st_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  response res_;
};

class listener : public std::enable_shared_from_this<listener> {
 public:
  listener(net::io_context& ioc, const tcp::endpoint& endpoint, state& st) : acceptor_(ioc), st_(st) {
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(net::socket_base::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen(net::socket_base::max_listen_connections);
  }

  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

  void do_accept() {
    acceptor_.async_accept(beast::bind_front_handler(&listener::on_accept, shared_from_this()));
  }

 private:
  void on_accept(beast::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted) return;
    if (!ec) {
      ++st_.stats["connections"];
      std::make_shared<session>(std::move(socket), st_)->run();
    }
    do_accept();
  }

  tcp::acceptor acceptor_;
  state& st_;
};

}  // namespace

std::uint16_t start_server(net::io_context& ioc, state& st) {
  auto l = std::make_shared<listener>(ioc, tcp::endpoint(net::ip::make_address(st.cfg.bind), st.cfg.port), st);
  l->do_accept();
  return l->port();
}

}  // namespace fake_xbox
