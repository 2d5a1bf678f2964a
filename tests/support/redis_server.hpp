// Test support: a real redis-server on a free loopback port, without persistence, ended by
// its PID.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/process.hpp"

namespace netherscope::test {

/// PEM files for a Redis that speaks TLS: a CA made for the occasion, and a certificate for
/// IP 127.0.0.1 that it signed.
struct redis_tls_files {
  std::string ca;
  std::string cert;
  std::string key;
};

/// Makes them in dir with the openssl command (ECDSA P-256, valid for a day); throws
/// std::runtime_error when openssl fails.
redis_tls_files make_redis_tls_files(const std::string& dir, const std::string& name = "redis");

/// A redis-server child process (Debian's redis-server, which tools/setup.sh installs).
class redis_server {
public:
  /// Starts one on a free 127.0.0.1 port and waits until it answers PING (with tls, until
  /// its TLS port accepts, and then it has no plain port); throws std::runtime_error when it
  /// never does.
  /// A password makes it require AUTH (requirepass), and url() carries it.
  explicit redis_server(std::optional<redis_tls_files> tls = std::nullopt,
                        std::string password = {});
  ~redis_server();

  unsigned port() const noexcept {
    return port_;
  }

  /// redis://[:PASSWORD@]127.0.0.1:PORT, or rediss://...?ssl_ca_certs=CA with tls.
  std::string url() const;

  /// Ends the server with SIGKILL (a crash, as far as clients can tell) and waits for it.
  void kill();

  /// Starts it again on the same port and waits until it answers PING.
  void start();

  /// Whether a fresh connection gets PONG now.
  bool answers() const;

private:
  unsigned port_ = 0;
  std::optional<redis_tls_files> tls_;
  std::string password_;
  std::unique_ptr<child_process> process_;
};

/// Runs one command on a Redis directly (hiredis, not the code under test) and returns its
/// reply as text: the status or bulk string, an error's message, or the integer. The test
/// fails when no reply comes.
std::string redis_command(unsigned port, const std::vector<std::string>& args,
                          const std::string& password = {}, unsigned db = 0);

/// Whether redis-server is installed; the tests that need it are skipped with a message
/// otherwise.
bool have_redis_server();

} // namespace netherscope::test
