// The plain TCP transport: beast::tcp_stream behind the type-erased interface.
#include "transport.hpp"

#include <boost/asio/post.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/tcp_stream.hpp>

namespace fake_target {

namespace {

class plain_transport final : public transport {
 public:
  explicit plain_transport(net::ip::tcp::socket socket) : stream_(std::move(socket)) {}

  executor_type get_executor() override { return stream_.get_executor(); }

  void start_handshake(step_handler handler) override {
    // Nothing to negotiate; complete through the executor, as an asynchronous operation must.
    net::post(
        stream_.get_executor(),
        on_stream_executor(stream_, beast::bind_front_handler(std::move(handler), beast::error_code{})));
  }

  void start_shutdown(step_handler handler) override {
    beast::error_code ec;
    stream_.socket().shutdown(net::ip::tcp::socket::shutdown_send, ec);
    net::post(stream_.get_executor(),
              on_stream_executor(stream_, beast::bind_front_handler(std::move(handler), ec)));
  }

  void expires_after(std::chrono::steady_clock::duration timeout) override { stream_.expires_after(timeout); }
  void expires_never() override { stream_.expires_never(); }

  void close() override {
    // Errors are ignored: the peer may already have gone, and the socket closes regardless.
    beast::error_code ignored;
    stream_.socket().shutdown(net::ip::tcp::socket::shutdown_both, ignored);
    stream_.socket().close(ignored);
  }

 protected:
  void start_read(net::mutable_buffer buffer, io_handler handler) override {
    stream_.async_read_some(buffer, on_stream_executor(stream_, std::move(handler)));
  }

  void start_write(std::vector<net::const_buffer> buffers, io_handler handler) override {
    stream_.async_write_some(buffers, on_stream_executor(stream_, std::move(handler)));
  }

 private:
  beast::tcp_stream stream_;
};

}  // namespace

std::unique_ptr<transport> make_plain_transport(net::ip::tcp::socket socket) {
  return std::make_unique<plain_transport>(std::move(socket));
}

}  // namespace fake_target
