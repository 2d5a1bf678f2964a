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
  /// extra_args go to redis-server as they are (a replica's --replicaof).
  explicit redis_server(std::optional<redis_tls_files> tls = std::nullopt,
                        std::string password = {}, std::vector<std::string> extra_args = {});
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
  /// Its working directory (--dir): a replica writes the master's copy there as dump.rdb,
  /// which any server started in the same directory would load.
  temp_dir dir_;
  std::optional<redis_tls_files> tls_;
  std::string password_;
  std::vector<std::string> extra_args_;
  std::unique_ptr<child_process> process_;
};

/// A Sentinel deployment on loopback, as operators run one: a master, replicas of it (one
/// unless asked for more), and three sentinels (redis-server --sentinel) monitoring it as
/// "netherscope" with a quorum of two, a master down after 1 s and failovers allowed every
/// 5 s. Each ended by its PID.
class redis_sentinels {
public:
  /// Starts them all and waits until every sentinel knows every replica; throws
  /// std::runtime_error when that does not happen within 20 s.
  explicit redis_sentinels(const std::string& dir, std::size_t replicas = 1);
  ~redis_sentinels();

  /// redis+sentinel://127.0.0.1:S1,127.0.0.1:S2,127.0.0.1:S3/netherscope
  std::string url() const;

  redis_server& master() {
    return *master_;
  }
  /// Replica i (from 0) of the master the deployment started with.
  redis_server& replica(std::size_t i = 0) {
    return *replicas_.at(i);
  }
  /// The port of sentinel i (0 to 2).
  unsigned sentinel_port(std::size_t i) const {
    return sentinel_ports_.at(i);
  }

  /// Ends sentinel i (0 to 2) with SIGKILL.
  void kill_sentinel(std::size_t i);

  /// The port the sentinels name as the master now (0 when they name none).
  unsigned named_master() const;

private:
  std::unique_ptr<redis_server> master_;
  std::vector<std::unique_ptr<redis_server>> replicas_;
  std::vector<unsigned> sentinel_ports_;
  std::vector<std::unique_ptr<child_process>> sentinels_;
};

/// Runs one command on a Redis directly (hiredis, not the code under test) and returns its
/// reply as text: the status or bulk string, an error's message, or the integer. The test
/// fails when no reply comes.
std::string redis_command(unsigned port, const std::vector<std::string>& args,
                          const std::string& password = {}, unsigned db = 0);

/// As redis_command, for several commands in turn on one connection; their replies.
std::vector<std::string> redis_commands(unsigned port,
                                        const std::vector<std::vector<std::string>>& cmds,
                                        const std::string& password = {}, unsigned db = 0);

/// As redis_command, but nullopt instead of a failed test when the connection or the reply
/// fails: for polling a server that may be starting, or whose clients a sentinel kills when
/// it makes the server a replica.
std::optional<std::string> try_redis_command(unsigned port, const std::vector<std::string>& args);

/// "master" or "slave" as the Redis at port's INFO says, or empty while it gives no answer.
std::string redis_role(unsigned port);

/// How many replicas the Redis at port has online now (INFO replication); 0 while it gives
/// no answer.
std::size_t online_replicas(unsigned port);

/// How many replicas acknowledge a write to the Redis at port within 200 ms, up to wanted.
/// A replica is online a moment before it acknowledges anything, and a write that waits
/// for replicas (WAIT) needs the latter. None when the server is no master (yet), or when
/// the reply is lost, as when a sentinel kills the clients of a server it reconfigures.
std::size_t acknowledging_replicas(unsigned port, std::size_t wanted);

/// Whether redis-server is installed; the tests that need it are skipped with a message
/// otherwise.
bool have_redis_server();

} // namespace netherscope::test
