#include "net/http/listener.hpp"

#include <boost/asio/strand.hpp>
#include <boost/beast/core/bind_handler.hpp>

#include "base/log.hpp"

namespace netherscope::net::http {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

listener::listener(asio::io_context& ioc, const tcp::endpoint& endpoint, server_context& ctx,
                   boost::system::error_code& ec,
                   std::vector<asio::io_context*> session_contexts)
  : ioc_(ioc), session_contexts_(std::move(session_contexts)),
    acceptor_(asio::make_strand(ioc)), backoff_(acceptor_.get_executor()), ctx_(ctx) {
  if (session_contexts_.empty())
    session_contexts_.push_back(&ioc_);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec)
    acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec)
    acceptor_.bind(endpoint, ec);
  if (!ec)
    acceptor_.listen(asio::socket_base::max_listen_connections, ec);
}

void listener::run() {
  do_accept();
}

void listener::stop() {
  asio::post(acceptor_.get_executor(), [self = shared_from_this()] {
    boost::system::error_code ignored;
    // Closing cancels the pending accept; an error here only means it was already closed.
    self->acceptor_.close(ignored);
  });
}

tcp::endpoint listener::local_endpoint() const {
  boost::system::error_code ignored;
  return acceptor_.local_endpoint(ignored);
}

void listener::do_accept() {
  // Connections are dealt round robin to io_contexts that each run on one thread: one context
  // shared by all threads left the first thread doing most of the work (TOOLCHAIN.md §6).
  // Each connection still gets its own strand, since actor replies post onto it from other
  // threads.
  auto context = next_context_++ % session_contexts_.size();
  acceptor_.async_accept(asio::make_strand(*session_contexts_[context]),
                         boost::beast::bind_front_handler(&listener::on_accept,
                                                          shared_from_this(), context));
}

void listener::on_accept(std::size_t context, boost::system::error_code ec, tcp::socket socket) {
  if (ec == asio::error::operation_aborted || !acceptor_.is_open())
    return;
  if (ec) {
    // Out of descriptors, most likely. Accepting again at once would spin, so pause, and log
    // at most once a second.
    auto now = std::chrono::steady_clock::now();
    if (now - last_error_log_ >= std::chrono::seconds(1)) {
      last_error_log_ = now;
      base::log::write(base::log::level::warn, "accept_failed", {{"error", ec.message()}});
    }
    backoff_.expires_after(std::chrono::milliseconds(50));
    backoff_.async_wait([self = shared_from_this()](boost::system::error_code wait_ec) {
      if (!wait_ec)
        self->do_accept();
    });
    return;
  }
  boost::system::error_code peer_ec;
  auto peer = socket.remote_endpoint(peer_ec).address();
  // Without a peer the client left already; there is nothing to serve.
  if (!peer_ec)
    admit(std::move(socket), peer, context);
  do_accept();
}

void listener::admit(tcp::socket&& socket, const asio::ip::address& peer, std::size_t context) {
  auto admission = ctx_.admit(peer);
  switch (admission.verdict) {
    case admission_verdict::admitted_by_eviction:
      // Posts the close onto the idle connection's own strand; its slot is already ours.
      if (admission.evict)
        admission.evict();
      log_pressure();
      [[fallthrough]];
    case admission_verdict::admitted:
      start_session(std::move(socket), ctx_,
                    asio::use_service<reply_inbox>(*session_contexts_[context]), context, peer,
                    admission.id);
      return;
    case admission_verdict::refused_source_full:
    case admission_verdict::refused_over_fair_share:
    case admission_verdict::refused_full:
      reject_connection(std::move(socket), refusal_message(admission.verdict));
      log_pressure();
      return;
  }
}

// Refusals and evictions come in floods, so they are logged as running totals at most once a
// second, which says as much as a line each without letting a flood fill the disk.
void listener::log_pressure() {
  auto now = std::chrono::steady_clock::now();
  if (now - last_pressure_log_ < std::chrono::seconds(1))
    return;
  last_pressure_log_ = now;
  auto stats = ctx_.slots().stats();
  base::log::write(base::log::level::warn, "connection_pressure",
             {{"open", stats.open},
              {"idle", stats.idle},
              {"evicted", stats.evicted},
              {"refused_per_ip", stats.refused_source_full},
              {"refused_fair_share", stats.refused_over_fair_share},
              {"refused_full", stats.refused_full}});
}

std::string refusal_message(admission_verdict verdict) {
  switch (verdict) {
    case admission_verdict::refused_source_full:
      return "too many connections from this address; close some or try again shortly";
    case admission_verdict::refused_over_fair_share:
      return "the server is nearly full and this address holds its share of connections; "
             "try again shortly";
    default:
      return "every connection slot is busy; try again shortly";
  }
}

} // namespace netherscope::net::http
