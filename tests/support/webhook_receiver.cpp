#include "support/webhook_receiver.hpp"
#include "support/loopback_listen.hpp"

#include <condition_variable>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace netherscope::test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

/// What the receiver's io thread and the test threads share, under mu.
struct receiver_shared {
  mutable std::mutex mu;
  mutable std::condition_variable arrived;
  std::vector<received_webhook> requests;
  int status = 200;
  std::string location;
  webhook_answerer answerer;
};

namespace {

// One connection: read one request, record it, answer, close.
class receiver_session : public std::enable_shared_from_this<receiver_session> {
public:
  receiver_session(tcp::socket&& socket, receiver_shared& shared)
    : stream_(std::move(socket)), shared_(shared) {
    // nop
  }

  void start() {
    parser_.body_limit(1024 * 1024);
    stream_.expires_after(std::chrono::seconds(30));
    http::async_read(stream_, buffer_, parser_,
                     beast::bind_front_handler(&receiver_session::on_read, shared_from_this()));
  }

private:
  void on_read(beast::error_code ec, std::size_t) {
    if (ec)
      return; // The client went away; there is no one to answer.
    auto& req = parser_.get();
    received_webhook seen;
    seen.method = std::string{req.method_string()};
    seen.target = std::string{req.target()};
    seen.content_type = std::string{req[http::field::content_type]};
    seen.user_agent = std::string{req[http::field::user_agent]};
    seen.signature = std::string{req["X-Netherscope-Signature"]};
    seen.body = req.body();
    webhook_answer answer;
    {
      std::lock_guard<std::mutex> lock{shared_.mu};
      if (shared_.answerer) {
        answer = shared_.answerer(seen);
      } else {
        answer.status = shared_.status;
        if (!shared_.location.empty())
          answer.headers.emplace_back("Location", shared_.location);
      }
      shared_.requests.push_back(std::move(seen));
    }
    shared_.arrived.notify_all();
    res_.result(static_cast<unsigned>(answer.status));
    for (auto& [name, value] : answer.headers)
      res_.set(name, value);
    res_.version(11);
    res_.keep_alive(false);
    // 204 and 304 answers have no body (RFC 9110 15.3.5, 15.4.5).
    auto status = res_.result_int();
    if (status != 204 && status != 304) {
      res_.set(http::field::content_type, answer.content_type);
      res_.body() = answer.body;
    }
    res_.prepare_payload();
    http::async_write(stream_, res_,
                      beast::bind_front_handler(&receiver_session::on_write, shared_from_this()));
  }

  void on_write(beast::error_code, std::size_t) {
    beast::error_code ignored;
    // The answer is written, or the client went away: the connection is done either way.
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
  }

  beast::tcp_stream stream_;
  receiver_shared& shared_;
  beast::flat_buffer buffer_;
  http::request_parser<http::string_body> parser_;
  http::response<http::string_body> res_;
};

} // namespace

struct webhook_receiver::impl {
  void accept_next() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open())
        return; // Stopping.
      if (!ec)
        std::make_shared<receiver_session>(std::move(socket), shared)->start();
      accept_next();
    });
  }

  receiver_shared shared;
  asio::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
  unsigned port = 0;
  std::thread thread;
};

webhook_receiver::webhook_receiver() : impl_(std::make_unique<impl>()) {
  impl_->port = listen_on_loopback(impl_->acceptor, "webhook_receiver");
  impl_->accept_next();
  impl_->thread = std::thread([i = impl_.get()] { i->ioc.run(); });
}

webhook_receiver::~webhook_receiver() {
  asio::post(impl_->ioc, [i = impl_.get()] {
    beast::error_code ignored;
    i->acceptor.close(ignored); // Can only fail when closed already.
    i->ioc.stop();
  });
  impl_->thread.join();
  // Sessions still reading are destroyed with ioc's pending handlers, closing their sockets.
}

unsigned webhook_receiver::port() const {
  return impl_->port;
}

std::string webhook_receiver::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(impl_->port) + path;
}

void webhook_receiver::answer_with(int status, const std::string& location) {
  std::lock_guard<std::mutex> lock{impl_->shared.mu};
  impl_->shared.status = status;
  impl_->shared.location = location;
}

void webhook_receiver::answer_by(webhook_answerer answerer) {
  std::lock_guard<std::mutex> lock{impl_->shared.mu};
  impl_->shared.answerer = std::move(answerer);
}

std::vector<received_webhook> webhook_receiver::received() const {
  std::lock_guard<std::mutex> lock{impl_->shared.mu};
  return impl_->shared.requests;
}

bool webhook_receiver::wait_for(std::size_t count, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock{impl_->shared.mu};
  return impl_->shared.arrived.wait_for(lock, timeout,
                                        [&] { return impl_->shared.requests.size() >= count; });
}

} // namespace netherscope::test
