// Test support: a webhook receiver, a real HTTP server on 127.0.0.1 (OS-chosen port) with its
// own io thread, that records every request and answers with the status a test sets.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace netherscope::test {

/// One request as the receiver read it.
struct received_webhook {
  std::string method;
  std::string target;
  std::string content_type;
  std::string user_agent;
  /// X-Netherscope-Signature.
  std::string signature;
  std::string body;
};

/// A whole answer, for a receiver that plays a service (support/fake_discord.hpp).
struct webhook_answer {
  int status = 200;
  std::string content_type = "text/plain";
  std::string body = "received";
  std::vector<std::pair<std::string, std::string>> headers;
};

/// Decides the answer to a request; called on the receiver's io thread, one at a time.
using webhook_answerer = std::function<webhook_answer(const received_webhook&)>;

/// Records requests and answers each with the status set last (200 at first), or as the
/// answerer set last decides, closing the connection after each answer.
class webhook_receiver {
public:
  /// Binds 127.0.0.1:0 and starts serving; throws std::runtime_error if it cannot listen.
  webhook_receiver();
  /// Stops its thread and closes every socket.
  ~webhook_receiver();

  webhook_receiver(const webhook_receiver&) = delete;
  webhook_receiver& operator=(const webhook_receiver&) = delete;

  unsigned port() const;

  /// "http://127.0.0.1:<port>" and path.
  std::string url(const std::string& path = "/hook") const;

  /// Answers later requests with status, and a Location header when location is not empty.
  void answer_with(int status, const std::string& location = {});

  /// Answers later requests as answerer decides (an empty one: as answer_with set).
  void answer_by(webhook_answerer answerer);

  /// Every request so far, in order.
  std::vector<received_webhook> received() const;

  /// Waits until at least count requests arrived, at most for timeout; whether they did.
  bool wait_for(std::size_t count, std::chrono::milliseconds timeout) const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace netherscope::test
