// Test support: a tiny authoritative DNS server over UDP on 127.0.0.1, answering from a table.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace netherscope::test {

/// How the server treats queries for a name.
enum class dns_behaviour {
  answer,   ///< Its A/AAAA records (NOERROR with no answer when it has none of the type).
  silent,   ///< Counts the query and sends nothing.
  servfail, ///< SERVFAIL.
  nxdomain, ///< NXDOMAIN.
  hold,     ///< Counts the query and keeps it until release(), then answers from the table.
};

/// A DNS server on 127.0.0.1 (OS-chosen port) with its own io thread. Names not in the table
/// get NXDOMAIN. Every method is thread-safe.
class dns_server {
public:
  dns_server();
  ~dns_server();
  dns_server(const dns_server&) = delete;
  dns_server& operator=(const dns_server&) = delete;

  /// The UDP port it listens on.
  std::uint16_t port() const;

  /// Adds an A record (IPv4 address) or an AAAA record (IPv6 address) for name with ttl.
  void add(const std::string& name, const std::string& address, std::uint32_t ttl);

  /// Sets how queries for name are treated (default answer).
  void set(const std::string& name, dns_behaviour behaviour);

  /// Answers every held query for name from the table, and stops holding new ones.
  void release(const std::string& name);

  /// Queries received for name (any type, any case), answered or not.
  std::size_t queries(const std::string& name) const;

  /// Queries received for every name.
  std::size_t total_queries() const;

  /// Waits until at least count queries for name have arrived; false after limit.
  bool wait_for_queries(const std::string& name, std::size_t count,
                        std::chrono::milliseconds limit) const;

  struct state;

private:
  std::shared_ptr<state> state_;
};

} // namespace netherscope::test
