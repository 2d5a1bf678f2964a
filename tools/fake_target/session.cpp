// The HTTP session, in the shape of Beast's advanced_server_flex example: one object per
// connection kept alive by shared_from_this, do_x/on_x pairs, a fresh parser per request.
// It executes the router's reply plans, including the deliberately broken ones. It runs
// over the type-erased transport, so this is the only place Beast's HTTP operations are
// instantiated, once, for plain and TLS connections alike.
#include "router.hpp"
#include "transport.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/http.hpp>

#include <array>
#include <memory>

namespace fake_target {

namespace {

class http_session : public std::enable_shared_from_this<http_session> {
 public:
  http_session(std::unique_ptr<transport> stream, beast::flat_buffer already_read, target_state& state,
               connection_token token)
      : stream_(std::move(stream)),
        buffer_(std::move(already_read)),
        state_(state),
        token_(std::move(token)),
        timer_(stream_->get_executor()) {}

  /// Starts the session: the TLS handshake if there is one, then the first read.
  void run() {
    stream_->expires_after(handshake_timeout);
    stream_->start_handshake(beast::bind_front_handler(&http_session::on_handshake, shared_from_this()));
  }

 private:
  // Idle keep-alive connections are dropped after a minute; tests never idle that long, and
  // a forgotten connection would otherwise count as open forever.
  static constexpr std::chrono::seconds read_timeout{60};
  static constexpr std::chrono::seconds write_timeout{30};
  static constexpr std::chrono::seconds handshake_timeout{10};
  static constexpr std::chrono::seconds linger_timeout{5};

  void on_handshake(beast::error_code ec) {
    if (ec) {
      // A plain-HTTP request on the TLS port ends here; that is the expected outcome, so it
      // is only counted.
      ++state_.stats.tls_handshake_failures;
      return;
    }
    do_read();
  }

  void do_read() {
    parser_.emplace();
    // No limit while the header is read: Beast would otherwise refuse a large
    // Content-Length before the router could answer it with its own 413.
    parser_->body_limit(boost::none);
    stream_->expires_after(read_timeout);
    http::async_read_header(*stream_, buffer_, *parser_,
                            beast::bind_front_handler(&http_session::on_header, shared_from_this()));
  }

  void on_header(beast::error_code ec, std::size_t) {
    if (ec == http::error::end_of_stream) return do_close();
    // Timeouts, resets and garbage end the connection; the destructor closes the socket.
    if (ec) return;
    const auto length = parser_->content_length();
    auto early =
        check_header(parser_->get(), length ? std::optional<std::uint64_t>(*length) : std::nullopt, state_);
    if (early) {
      // An unread body would be taken for the next request, so the connection ends here.
      if (!parser_->is_done()) early->keep_alive(false);
      plan_ = reply_plan{reply_kind::respond, std::move(*early), {}};
      return execute();
    }
    if (parser_->is_done()) return on_body({}, 0);
    parser_->body_limit(max_body_size);
    http::async_read(*stream_, buffer_, *parser_,
                     beast::bind_front_handler(&http_session::on_body, shared_from_this()));
  }

  void on_body(beast::error_code ec, std::size_t) {
    if (ec == http::error::body_limit) {
      // A chunked body grew past 1 MiB; the rest is never read, so the connection ends.
      plan_ = reply_plan{reply_kind::respond, body_too_large(parser_->get(), state_), {}};
      return execute();
    }
    if (ec) return;
    const auto req = parser_->release();
    plan_ = handle_request(req, state_);
    if (plan_.deferred) {
      // The reply waits on the issuer; the session stays alive in the handler meanwhile.
      auto start = std::move(plan_.deferred);
      plan_.deferred = nullptr;
      start([self = shared_from_this()](reply_plan real) {
        self->plan_ = std::move(real);
        self->execute();
      });
      return;
    }
    execute();
  }

  void execute() {
    // The fake decides how long a response takes; only the client may cut it short.
    stream_->expires_never();
    if (plan_.interim.empty()) return execute_final();
    // Interim responses go out at once, before any wait, as a server that acknowledges a
    // request early and answers it later would send them.
    stream_->expires_after(write_timeout);
    net::async_write(*stream_, net::buffer(plan_.interim),
                     beast::bind_front_handler(&http_session::on_interim_written, shared_from_this()));
  }

  void on_interim_written(beast::error_code ec, std::size_t) {
    if (ec) return;
    stream_->expires_never();
    execute_final();
  }

  void execute_final() {
    switch (plan_.kind) {
      case reply_kind::respond:
        if (plan_.wait.count() == 0) return do_write();
        timer_.expires_after(plan_.wait);
        return timer_.async_wait(beast::bind_front_handler(&http_session::on_wait, shared_from_this()));
      case reply_kind::hang:
        return do_drain();
      case reply_kind::drip:
      case reply_kind::close_mid_body:
        return do_write_header();
    }
  }

  void on_wait(beast::error_code ec) {
    if (!ec) do_write();
  }

  void do_write() {
    stream_->expires_after(write_timeout);
    http::async_write(*stream_, plan_.res,
                      beast::bind_front_handler(&http_session::on_write, shared_from_this()));
  }

  void on_write(beast::error_code ec, std::size_t) {
    if (ec) return;
    if (!plan_.res.keep_alive()) return do_close();
    do_read();
  }

  // -- hang, and lingering before a close: read and discard until the client gives up --

  void do_drain() {
    stream_->async_read_some(net::buffer(scratch_),
                             beast::bind_front_handler(&http_session::on_drain, shared_from_this()));
  }

  void on_drain(beast::error_code ec, std::size_t) {
    // End of stream or any error means the client has gone; dropping the session closes.
    if (!ec) do_drain();
  }

  // -- drip and close-mid-body: the header through Beast, the body by hand --

  void do_write_header() {
    serializer_.emplace(plan_.res);
    stream_->expires_after(write_timeout);
    http::async_write_header(*stream_, *serializer_,
                             beast::bind_front_handler(&http_session::on_header_written, shared_from_this()));
  }

  void on_header_written(beast::error_code ec, std::size_t) {
    if (ec) return;
    body_sent_ = 0;
    if (plan_.kind == reply_kind::close_mid_body) {
      net::async_write(*stream_, net::buffer(plan_.res.body()),
                       beast::bind_front_handler(&http_session::on_partial_body, shared_from_this()));
      return;
    }
    drip_next();
  }

  void on_partial_body(beast::error_code, std::size_t) {
    // No TLS close_notify and no HTTP-level ending: the client must see the body stop
    // short of its Content-Length.
    stream_->close();
  }

  void drip_next() {
    if (body_sent_ == plan_.res.body().size()) return on_write({}, 0);
    timer_.expires_after(plan_.wait);
    timer_.async_wait(beast::bind_front_handler(&http_session::on_drip_timer, shared_from_this()));
  }

  void on_drip_timer(beast::error_code ec) {
    if (ec) return;
    stream_->expires_after(write_timeout);
    net::async_write(*stream_, net::buffer(plan_.res.body().data() + body_sent_, 1),
                     beast::bind_front_handler(&http_session::on_drip_byte, shared_from_this()));
  }

  void on_drip_byte(beast::error_code ec, std::size_t) {
    if (ec) return;
    ++body_sent_;
    drip_next();
  }

  // -- closing --

  void do_close() {
    stream_->expires_after(linger_timeout);
    stream_->start_shutdown(beast::bind_front_handler(&http_session::on_shutdown, shared_from_this()));
  }

  void on_shutdown(beast::error_code ec) {
    // Clients often close without answering close_notify, so a failed TLS shutdown is
    // normal. Otherwise read out whatever the client is still sending (the body of a
    // refused 413 upload, say) before the socket closes: closing with unread input sends a
    // reset, which can destroy the response before the client has read it.
    if (!ec) do_drain();
  }

  std::unique_ptr<transport> stream_;
  beast::flat_buffer buffer_;
  target_state& state_;
  connection_token token_;
  std::optional<http::request_parser<http::string_body>> parser_;
  reply_plan plan_;
  std::optional<http::response_serializer<http::string_body>> serializer_;
  net::steady_timer timer_;
  std::size_t body_sent_ = 0;
  std::array<char, 4096> scratch_{};
};

}  // namespace

void start_session(std::unique_ptr<transport> stream, beast::flat_buffer already_read, target_state& state,
                   connection_token token) {
  std::make_shared<http_session>(std::move(stream), std::move(already_read), state, std::move(token))->run();
}

}  // namespace fake_target
