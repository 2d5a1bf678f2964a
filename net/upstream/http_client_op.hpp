// Internal to the HTTP client: one fetch as a chain of asynchronous steps.
//
// Split over two translation units (plain and TLS) because each Beast stream type costs
// many seconds to compile; include this header only from net/http_client*.cpp.
#pragma once

#include <chrono>
#include <deque>
#include <optional>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include "net/upstream/http_client.hpp"
#include "net/upstream/http_client_certificate.hpp"

namespace netherscope::net::upstream {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

struct http_client::state {
  asio::io_context& ioc;
  asio::ssl::context tls;
  client_settings settings;
  std::shared_ptr<dns_resolver> resolver;
  /// Where every fetch of the client runs. The service runs each io_context on one thread,
  /// so one strand costs no parallelism there, and the limiter below has one owner.
  asio::strand<asio::io_context::executor_type> strand;
  /// The per-server offer limit; used only on strand.
  offer_limiter limiter;
};

/// The most interim (1xx) responses a fetch skips before the final one. RFC 9110 §15.2 sets
/// no bound; real servers send one or two (100 Continue, 103 Early Hints), and a bound keeps a
/// target from holding a fetch with an endless stream of them (the total deadline ends it as
/// well, but later).
constexpr std::size_t max_interim_responses = 8;

/// One fetch, alive until its callback has run.
class fetch_op : public std::enable_shared_from_this<fetch_op> {
public:
  using clock_type = std::chrono::steady_clock;
  using strand_type = asio::strand<asio::io_context::executor_type>;

  fetch_op(std::shared_ptr<http_client::state> st, fetch_request req,
           std::function<void(fetch_result&&)> done);

  /// Resolves, checks and connects, then speaks HTTP(S).
  void start();

private:
  // -- steps (http_client.cpp) ------------------------------------------------
  void resolve();
  void on_resolved(dns_answer answer);
  void use_endpoints(std::vector<tcp::endpoint> candidates);
  /// Answers target_rate_limited for server, to retry after wait.
  void refuse_for_limit(const std::string& server, std::chrono::seconds wait);
  /// Asks the limit replicas share (offer_limiter::gate) before connecting.
  void ask_shared_gate();
  void on_shared_gate(std::chrono::seconds wait);
  void next_attempt();
  void on_connected(beast::error_code ec, const tcp::endpoint& ep);
  void send_plain();

  // -- steps (http_client_tls.cpp) --------------------------------------------
  void start_tls();
  void on_handshake(beast::error_code ec);
  /// The verify callback: records the first failure, and lets the handshake go on when an
  /// untrusted certificate is to be reported rather than refused.
  bool on_verify(bool preverified, X509_STORE_CTX* ctx);

  // -- shared -----------------------------------------------------------------
  /// Sends the request, then reads the response.
  template <class Stream>
  void exchange(Stream& stream);
  /// Reads one message; interim responses are skipped and the next message read.
  template <class Stream>
  void read_response(Stream& stream);
  /// Whether the message just read is an interim (1xx) response to skip: any 1xx but 101,
  /// up to max_interim_responses of them. on_response refuses the others.
  bool skip_interim();
  void on_response(beast::error_code ec);
  void finish(fetch_result&& result);
  void fail(core::error_code code, std::string message);

  /// What is left of the total deadline, never negative.
  clock_type::duration remaining() const;
  /// The deadline for connecting and the TLS handshake.
  clock_type::duration connect_budget() const;
  /// "host:port" as callers wrote it, for messages.
  std::string target_text() const;
  /// What to add to a failure of the plain attempt that followed a silent TLS detection.
  std::string fallback_note() const;

  std::shared_ptr<http_client::state> st_;
  fetch_request req_;
  std::function<void(fetch_result&&)> done_;
  clock_type::time_point deadline_;
  strand_type strand_;
  asio::steady_timer resolve_timer_;
  /// Whether a lookup is under way, so a late deadline does not end a fetch that moved on.
  bool resolving_ = false;
  std::vector<tcp::endpoint> endpoints_;
  /// The servers the limiter recorded this offer against, released when it ends.
  std::vector<std::string> limited_;
  /// Who holds the shared in-flight marks of limited_ (empty when no shared gate was asked).
  std::string gate_owner_;
  /// Whether the shared gate's answer is awaited.
  bool gating_ = false;
  /// Whether each remaining attempt uses TLS, in order.
  std::deque<bool> attempts_;
  bool using_tls_ = false;
  /// Whether the TLS attempt is a detection, bounded by tls_detect_timeout.
  bool detecting_ = false;
  /// Whether the detection ended because the target stayed silent.
  bool detect_timed_out_ = false;
  /// The first certificate verification failure (X509_V_ERR_*), or X509_V_OK.
  long first_verify_error_ = 0;
  /// The certificate of the TLS exchange, once the handshake finished.
  std::optional<tls_certificate> certificate_;
  std::optional<beast::tcp_stream> plain_;
  std::optional<beast::ssl_stream<beast::tcp_stream>> tls_;
  http::request<http::string_body> request_;
  beast::flat_buffer buffer_;
  std::optional<http::response_parser<http::string_body>> parser_;
  /// Interim responses skipped so far.
  std::size_t interim_seen_ = 0;
  bool finished_ = false;
};

template <class Stream>
void fetch_op::exchange(Stream& stream) {
  beast::get_lowest_layer(stream).expires_after(remaining());
  http::async_write(stream, request_,
                    [self = shared_from_this(), &stream](beast::error_code ec, std::size_t) {
                      if (ec)
                        return self->on_response(ec);
                      self->read_response(stream);
                    });
}

template <class Stream>
void fetch_op::read_response(Stream& stream) {
  // A fresh parser per message: a Beast parser reads exactly one, and each interim response
  // is a message of its own. Bytes read past one message stay in buffer_ for the next.
  parser_.emplace();
  parser_->body_limit(req_.body_limit);
  parser_->header_limit(16 * 1024);
  // The total deadline, not a new one per message: interim responses cannot stretch a fetch.
  beast::get_lowest_layer(stream).expires_after(remaining());
  http::async_read(stream, buffer_, *parser_,
                   [self = shared_from_this(), &stream](beast::error_code ec, std::size_t) {
                     if (!ec && self->skip_interim())
                       return self->read_response(stream);
                     self->on_response(ec);
                   });
}

} // namespace netherscope::net::upstream
