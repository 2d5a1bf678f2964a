// Name lookups for the outbound client: c-ares driven by Asio, so no thread ever blocks.
//
// A lookup asks for the A and AAAA records of a name at once and hands back every address,
// or why there is none. IP literals are answered without a query, and so are "localhost"
// and the names under it: loopback by RFC 6761 §6.3, with or without a hosts file. Other
// names: the hosts file is read before DNS, as the system resolver does. Names are asked as written: resolv.conf's search list is not applied.
// Answers are kept for their TTL (capped), "no such name" briefly, and concurrent lookups
// of one name share one query. c-ares stays inside dns.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/address.hpp>

namespace boost::asio {
class io_context;
} // namespace boost::asio

namespace netherscope::net::upstream {

/// True for "localhost" and every name under it ("a.localhost"), in any case, with or
/// without the final dot: names that are loopback by RFC 6761 §6.3 and never looked up.
bool is_localhost_name(std::string_view host);

/// A name server to ask instead of those in /etc/resolv.conf.
struct dns_server {
  boost::asio::ip::address address;
  /// UDP and TCP port (default 53).
  std::uint16_t port = 53;
};

/// Parses a comma-separated list of name servers, each `ip`, `ip:port`, or `[ipv6]:port`
/// (a bare IPv6 address means port 53). Returns nullopt and sets error on a bad entry or an
/// empty list.
std::optional<std::vector<dns_server>> parse_dns_servers(std::string_view text,
                                                         std::string& error);

/// How the resolver asks and what it remembers.
struct dns_settings {
  /// The name servers to ask; empty for those in /etc/resolv.conf.
  std::vector<dns_server> servers;
  /// How long the first query to a server may take before it is sent again (or to the next
  /// server); c-ares doubles it on each later round over the servers (default 1 s).
  std::chrono::milliseconds timeout{1000};
  /// Queries sent per server before a lookup fails with a timeout (default 2). With one
  /// server, the longest a lookup can take is timeout × (2^tries − 1).
  unsigned tries = 2;
  /// Names whose answers are remembered at most (default 1024).
  std::size_t cache_entries = 1024;
  /// The longest an answer is kept, whatever TTL the name server gave (default 60 s); zero
  /// turns the cache off.
  std::chrono::seconds max_ttl{60};
  /// How long "no such name" and "no address for this name" are kept (default 5 s).
  std::chrono::seconds negative_ttl{5};
};

/// The outcome of a lookup.
enum class dns_status {
  ok,             ///< At least one address.
  not_found,      ///< NXDOMAIN, or the name has neither A nor AAAA records.
  timeout,        ///< No name server answered within the tries.
  server_failure, ///< SERVFAIL, REFUSED, a malformed answer, or no server reachable.
  bad_name,       ///< Not a name DNS can carry.
  failure,        ///< Anything else: out of memory, an unreadable hosts file, shut down.
};

/// What a lookup found.
struct dns_answer {
  dns_status status = dns_status::ok;
  /// Every address, in the order to try them (RFC 6724); empty unless status is ok.
  std::vector<boost::asio::ip::address> addresses;
  /// c-ares's words for a failure, for error messages; empty when status is ok.
  std::string detail;
};

/// Resolves names on an io_context without blocking a thread; thread-safe, cheap to share.
class dns_resolver {
public:
  using callback = std::function<void(dns_answer)>;

  /// Creates a resolver on ioc; returns null and sets error when c-ares cannot start or
  /// refuses the server list.
  static std::shared_ptr<dns_resolver> make(boost::asio::io_context& ioc, dns_settings settings,
                                            std::string& error);

  /// Looks up the addresses of host (A and AAAA). done runs exactly once, posted to ex, never
  /// inside this call, unless the resolver is stopped first. An IP literal is answered as
  /// itself without a query; a localhost name as 127.0.0.1 and ::1, also without one.
  void resolve(const std::string& host, boost::asio::any_io_executor ex, callback done);

  /// Ends every lookup and closes the resolver's sockets; pending lookups are dropped
  /// without calling back. Call only while the io_context runs no handler (after it
  /// stopped), and before it is destroyed.
  void stop();

  struct impl;

private:
  explicit dns_resolver(std::shared_ptr<impl> impl) : impl_(std::move(impl)) {
    // nop
  }

  std::shared_ptr<impl> impl_;
};

} // namespace netherscope::net::upstream
