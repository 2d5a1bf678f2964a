// Our HTTP server's accept loop and its connections.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/system/error_code.hpp>

#include "net/http/reply_inbox.hpp"
#include "net/http/server_context.hpp"

namespace netherscope::net::http {

/// Accepts connections and starts a session for each; stop() closes the acceptor.
class listener : public std::enable_shared_from_this<listener> {
public:
  /// Binds and listens; ec reports a failure (address in use, permission). Connections are
  /// dealt round robin to session_contexts (each run by one thread of its own), or served on
  /// ioc when none are given; a connection of session_contexts[i] hands its calls to the
  /// server context's call sink i.
  listener(boost::asio::io_context& ioc, const boost::asio::ip::tcp::endpoint& endpoint,
           server_context& ctx, boost::system::error_code& ec,
           std::vector<boost::asio::io_context*> session_contexts = {});

  /// Starts accepting.
  void run();

  /// Stops accepting; open connections are not touched.
  void stop();

  /// The bound endpoint (with the OS-chosen port when 0 was asked for).
  boost::asio::ip::tcp::endpoint local_endpoint() const;

private:
  void do_accept();
  void on_accept(std::size_t context, boost::system::error_code ec,
                 boost::asio::ip::tcp::socket socket);
  void admit(boost::asio::ip::tcp::socket&& socket, const boost::asio::ip::address& peer,
             std::size_t context);
  void log_pressure();

  boost::asio::io_context& ioc_;
  std::vector<boost::asio::io_context*> session_contexts_;
  std::size_t next_context_ = 0;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer backoff_;
  std::chrono::steady_clock::time_point last_error_log_{};
  std::chrono::steady_clock::time_point last_pressure_log_{};
  server_context& ctx_;
};

/// Starts serving one accepted connection from peer, which holds the slot ticket (released
/// when the session ends). The socket belongs to the listener's io_context number context,
/// whose reply inbox is inbox and whose call sink the session's calls go to.
void start_session(boost::asio::ip::tcp::socket&& socket, server_context& ctx, reply_inbox& inbox,
                   std::size_t context, const boost::asio::ip::address& peer,
                   connection_slots::ticket ticket);

/// Answers an accepted connection with a 503 that says why, and closes it.
void reject_connection(boost::asio::ip::tcp::socket&& socket, std::string why);

/// What a refused client is told, by the rule that refused it.
std::string refusal_message(admission_verdict verdict);

} // namespace netherscope::net::http
