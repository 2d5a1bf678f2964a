// Test support: a real redis-server on a free loopback port, without persistence, ended by
// its PID.
#pragma once

#include <memory>
#include <string>

#include "support/process.hpp"

namespace netherscope::test {

/// A redis-server child process (Debian's redis-server, which tools/setup.sh installs).
class redis_server {
public:
  /// Starts one on a free 127.0.0.1 port and waits until it answers PING; throws
  /// std::runtime_error when it never does.
  redis_server();
  ~redis_server();

  unsigned port() const noexcept {
    return port_;
  }

  /// redis://127.0.0.1:PORT
  std::string url() const;

  /// Ends the server with SIGKILL (a crash, as far as clients can tell) and waits for it.
  void kill();

  /// Starts it again on the same port and waits until it answers PING.
  void start();

  /// Whether a fresh connection gets PONG now.
  bool answers() const;

private:
  unsigned port_ = 0;
  std::unique_ptr<child_process> process_;
};

/// Whether redis-server is installed; the tests that need it are skipped with a message
/// otherwise.
bool have_redis_server();

} // namespace netherscope::test
