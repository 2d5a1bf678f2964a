// A byte stream whose transport, plain TCP or TLS over TCP, is chosen at run time.
//
// Beast's HTTP operations are templates over the stream type, and instantiating all of them
// over ssl_stream costs about 45 s of compile time on its own. The session therefore runs
// them once over this small type-erased stream, and each transport's translation unit only
// instantiates its four primitives (read some, write some, handshake, shutdown).
#pragma once

#include "target_state.hpp"

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include <chrono>
#include <memory>
#include <vector>

namespace boost::asio::ssl {
class context;
}

namespace fake_target {

namespace net = boost::asio;
namespace beast = boost::beast;

/// The completion handler of a read or a write: error and bytes transferred.
using io_handler = net::any_completion_handler<void(beast::error_code, std::size_t)>;
/// The completion handler of a handshake or a shutdown.
using step_handler = net::any_completion_handler<void(beast::error_code)>;

/// An AsyncReadStream and AsyncWriteStream over plain TCP or TLS, with the timeouts of
/// beast::tcp_stream underneath.
class transport {
 public:
  using executor_type = net::any_io_executor;

  virtual ~transport() = default;

  /// The executor every completion of this stream runs on.
  virtual executor_type get_executor() = 0;

  /// Reads some bytes into the first non-empty buffer of the sequence. Reading less than
  /// asked is always allowed, so one buffer is enough for every caller.
  template <class MutableBufferSequence, class Token>
  auto async_read_some(const MutableBufferSequence& buffers, Token&& token) {
    return net::async_initiate<Token, void(beast::error_code, std::size_t)>(
        [this](io_handler handler, const MutableBufferSequence& b) {
          start_read(first_buffer(b), std::move(handler));
        },
        token, buffers);
  }

  /// Writes some bytes from the sequence; the buffers are passed on together, so that
  /// a header and its body leave in one system call on plain TCP.
  template <class ConstBufferSequence, class Token>
  auto async_write_some(const ConstBufferSequence& buffers, Token&& token) {
    return net::async_initiate<Token, void(beast::error_code, std::size_t)>(
        [this](io_handler handler, const ConstBufferSequence& b) {
          start_write(
              std::vector<net::const_buffer>(net::buffer_sequence_begin(b), net::buffer_sequence_end(b)),
              std::move(handler));
        },
        token, buffers);
  }

  /// Runs the TLS server handshake; completes at once, successfully, on plain TCP.
  virtual void start_handshake(step_handler handler) = 0;

  /// Ends the stream politely: a TLS close_notify, or a TCP half-close.
  virtual void start_shutdown(step_handler handler) = 0;

  /// Bounds the time the next operations may take (beast::tcp_stream semantics).
  virtual void expires_after(std::chrono::steady_clock::duration timeout) = 0;

  /// Lets the next operations take as long as they like.
  virtual void expires_never() = 0;

  /// Closes the socket at once, without any TLS or HTTP ending.
  virtual void close() = 0;

 protected:
  virtual void start_read(net::mutable_buffer buffer, io_handler handler) = 0;
  virtual void start_write(std::vector<net::const_buffer> buffers, io_handler handler) = 0;

 private:
  template <class MutableBufferSequence>
  static net::mutable_buffer first_buffer(const MutableBufferSequence& buffers) {
    for (auto it = net::buffer_sequence_begin(buffers); it != net::buffer_sequence_end(buffers); ++it)
      if (net::mutable_buffer(*it).size() != 0) return *it;
    return {};
  }
};

/// Binds a handler to the stream's own executor before the stream sees it.
///
/// Boost 1.81's any_completion_handler reports an any_completion_executor, which cannot
/// satisfy the blocking.never requirement that post() and Beast's timeouts place on a
/// handler's executor (fixed in Asio for Boost 1.82). With one io_context on one thread the
/// stream's executor is the one the handler would have named anyway.
template <class Stream, class Handler>
auto on_stream_executor(Stream& stream, Handler handler) {
  return net::bind_executor(stream.get_executor(), std::move(handler));
}

/// Wraps an accepted socket for plain HTTP.
std::unique_ptr<transport> make_plain_transport(net::ip::tcp::socket socket);

/// Wraps an accepted socket for TLS; the handshake runs when the session starts.
std::unique_ptr<transport> make_tls_transport(net::ip::tcp::socket socket, net::ssl::context& tls);

/// Builds the server-side TLS context from a PEM certificate and key.
std::unique_ptr<net::ssl::context> make_tls_context(const std::string& cert_pem, const std::string& key_pem);

/// Serves HTTP/1.1 on the transport; `already_read` holds bytes taken off it while sniffing.
void start_session(std::unique_ptr<transport> stream, beast::flat_buffer already_read, target_state& state,
                   connection_token token);

}  // namespace fake_target
