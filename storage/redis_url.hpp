// Redis URLs (--store): where Redis is and how to log in, parsed, refused with a reason, and
// shown in logs without the user and the password.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace netherscope::storage {

/// One host and port.
struct redis_endpoint {
  std::string host;
  std::uint16_t port = 0;
};

/// Where Redis is, from a redis:// URL.
struct redis_address {
  /// The server, or under Sentinel nothing: the master is asked for at each connect.
  std::string host;
  std::uint16_t port = 6379;
  /// redis+sentinel://: the sentinels to ask for the master (SENTINEL
  /// get-master-addr-by-name), and the name they monitor it by. Empty otherwise.
  std::vector<redis_endpoint> sentinels;
  std::string master_name;
  unsigned db = 0;
  /// An ACL user (Redis 6 and later), sent with AUTH before the password; empty for Redis's
  /// default user.
  std::string user;
  /// Sent with AUTH after connecting; empty for none. Never logged.
  std::string password;
  /// rediss://: TLS through storage/redis_tls, the certificate checked against ca_file (the
  /// system's CAs when empty).
  bool tls = false;
  std::string ca_file;
};

/// Parses redis://[[USER]:PASSWORD@]HOST[:PORT][/DB] and
/// rediss://[[USER]:PASSWORD@]HOST[:PORT][/DB][?ssl_ca_certs=PATH], and under Sentinel
/// redis+sentinel://[[USER]:PASSWORD@]HOST1[:PORT1][,HOST2[:PORT2]...]/MASTER_NAME[/DB] (the
/// sentinels' port 26379 by default; rediss+sentinel:// for TLS to the sentinels and the
/// master alike, with the same ?ssl_ca_certs). The credentials are the master's and, when they
/// require one, the sentinels'. A user without a password is refused: it is most often a
/// password written without its colon, which would otherwise be ignored and then logged.
/// Nullopt, with the reason as text in problem, when the URL is refused.
std::optional<redis_address> read_redis_url(std::string_view url, std::string& problem);

/// Why url is refused, or "" when it is a usable redis:// URL (for option checks).
std::string redis_url_problem(std::string_view url);

/// The URL with its user and password replaced, fit for logs; the input unchanged when it has
/// none or does not parse (an unparsable URL is refused before anything is logged).
std::string redacted_store_url(std::string_view url);

} // namespace netherscope::storage
