// The TLS transport for --tls on: beast::ssl_stream over beast::tcp_stream behind the
// type-erased interface, and the server-side TLS context.
#include "transport.hpp"

#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl.hpp>

namespace fake_target {

namespace {

class tls_transport final : public transport {
 public:
  tls_transport(net::ip::tcp::socket socket, net::ssl::context& tls) : stream_(std::move(socket), tls) {}

  executor_type get_executor() override { return stream_.get_executor(); }

  void start_handshake(step_handler handler) override {
    stream_.async_handshake(net::ssl::stream_base::server, on_stream_executor(stream_, std::move(handler)));
  }

  void start_shutdown(step_handler handler) override {
    stream_.async_shutdown(on_stream_executor(stream_, std::move(handler)));
  }

  void expires_after(std::chrono::steady_clock::duration timeout) override {
    beast::get_lowest_layer(stream_).expires_after(timeout);
  }
  void expires_never() override { beast::get_lowest_layer(stream_).expires_never(); }

  void close() override {
    // Errors are ignored: the peer may already have gone, and the socket closes regardless.
    beast::error_code ignored;
    auto& socket = beast::get_lowest_layer(stream_).socket();
    socket.shutdown(net::ip::tcp::socket::shutdown_both, ignored);
    socket.close(ignored);
  }

 protected:
  void start_read(net::mutable_buffer buffer, io_handler handler) override {
    stream_.async_read_some(buffer, on_stream_executor(stream_, std::move(handler)));
  }

  void start_write(std::vector<net::const_buffer> buffers, io_handler handler) override {
    stream_.async_write_some(buffers, on_stream_executor(stream_, std::move(handler)));
  }

 private:
  beast::ssl_stream<beast::tcp_stream> stream_;
};

}  // namespace

std::unique_ptr<transport> make_tls_transport(net::ip::tcp::socket socket, net::ssl::context& tls) {
  return std::make_unique<tls_transport>(std::move(socket), tls);
}

std::unique_ptr<net::ssl::context> make_tls_context(const std::string& cert_pem, const std::string& key_pem) {
  auto tls = std::make_unique<net::ssl::context>(net::ssl::context::tls_server);
  // TLS 1.2 and 1.3 only: every current client speaks them, and a prober that offers only
  // older versions should fail here as it would against a modern reverse proxy.
  tls->set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
                   net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 | net::ssl::context::no_tlsv1_1);
  tls->use_certificate_chain(net::buffer(cert_pem));
  tls->use_private_key(net::buffer(key_pem), net::ssl::context::pem);
  return tls;
}

}  // namespace fake_target
