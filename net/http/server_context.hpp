// What every connection of our HTTP server shares: settings, counters, and the way calls leave
// the edge. That way is a callback app/ wires to the actors, so nothing here includes them.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <boost/asio/ip/address.hpp>

#include "core/call.hpp"
#include "base/cidr.hpp"
#include "net/http/access_log.hpp"
#include "net/http/connection_slots.hpp"
#include "net/http/metrics.hpp"

namespace netherscope::net::http {

/// Settings of the HTTP server, taken from the service configuration.
struct server_settings {
  std::chrono::milliseconds read_timeout{30000};
  std::chrono::milliseconds write_timeout{30000};
  std::size_t pipeline_limit = 16;
  std::size_t max_connections = 10000;
  /// Connections one client (an IPv4 address or an IPv6 /64) may hold at once; trusted
  /// proxies are exempt.
  std::size_t max_connections_per_ip = 100;
  /// The share of max_connections kept for clients that hold few connections: past the
  /// rest, a client holding busy_connections_per_ip or more is refused.
  unsigned connection_reserve_percent = 10;
  /// What one client may hold once the reserve is being used.
  std::size_t busy_connections_per_ip = 8;
  std::size_t header_limit = 8 * 1024;
  /// The largest request body: /api/offer takes at most 16 KiB (PRODUCT.md "Input").
  std::size_t body_limit = 16 * 1024;
  std::vector<base::cidr> trusted_proxies;
  bool access_log = true;
  /// Whether the access log also has the probes' routes (/healthz, /readyz, /metrics).
  bool access_log_probes = false;
  /// Whether cookies get the Secure attribute and __Host- names (the public base URL is HTTPS).
  bool secure_cookies = false;
  /// Our origin as browsers write it (net/http/signin.hpp origin_of the public base URL).
  std::string public_origin;
};

/// The connection accounting's limits for these settings.
slot_limits slot_limits_of(const server_settings& settings);

/// Calls with the actors whose reply has not come back, so that shutdown can answer the ones
/// still waiting at the end of its grace period instead of closing their connections bare.
class pending_calls {
public:
  using id = std::uint64_t;

  /// Registers a call; abandon answers it (it is called at most once, never under a lock).
  id add(std::function<void()> abandon);

  /// Forgets a call that was answered.
  void remove(id call);

  /// Answers every registered call through its abandon function and forgets them all;
  /// returns how many there were.
  std::size_t abandon_all();

private:
  std::mutex mutex_;
  id next_ = 1;
  std::unordered_map<id, std::function<void()>> calls_;
};

/// State shared by the listener and all sessions; it outlives both.
class server_context {
public:
  server_context(server_settings settings, std::string openapi_json);

  /// Where calls go: one sink per io_context, in the order the listener deals connections to
  /// them (sinks[i] serves the connections of its session_contexts[i]), each a function that
  /// enqueues and never blocks. A sink is called only on its io_context's one thread, so what
  /// it owns needs no lock. Set once before the listener starts, and emptied at shutdown so no
  /// actor handle they hold outlives the actor system.
  void set_call_sinks(std::vector<core::call_sink> sinks);

  const server_settings& settings() const noexcept {
    return settings_;
  }

  const std::string& openapi_json() const noexcept {
    return openapi_;
  }

  /// Hands a call on through the call sink of the io_context it was read on (its index in the
  /// listener's contexts), on that context's thread. Never blocks: the sink only enqueues a
  /// message. Without a sink the call is dropped, and its reply guard answers it.
  void submit(core::api_call&& call, std::size_t context);

  /// Marks the shutdown signal: /readyz gets 503 and connections stop being kept alive,
  /// while every call is still served (the drain period, for load balancers to see).
  void begin_leaving() noexcept {
    leaving_.store(true, std::memory_order_relaxed);
  }

  bool leaving() const noexcept {
    return leaving_.load(std::memory_order_relaxed);
  }

  /// Marks the start of shutdown: API calls get 503 and connections stop being kept alive.
  void begin_draining() noexcept {
    draining_.store(true, std::memory_order_relaxed);
  }

  bool draining() const noexcept {
    return draining_.load(std::memory_order_relaxed);
  }

  // -- counters ---------------------------------------------------------------

  /// Calls handed to the actors whose response is not yet written.
  std::atomic<std::size_t> in_flight{0};
  /// Open client connections.
  std::atomic<std::size_t> connections{0};
  /// Responses sent, by route and status class.
  request_counters requests;

  /// Calls waiting for the actors (shutdown answers those left at the end of its grace).
  pending_calls pending;

  /// The ids of requests, sent as X-Request-Id.
  request_ids ids;

  /// Takes a connection slot for a peer under the rules of connection_slots; a trusted proxy
  /// carries many clients and is bound by the global cap only. The caller closes the evicted
  /// connection, if any, through the admission's evict function.
  connection_slots::admission admit(const boost::asio::ip::address& peer);

  /// The accounting itself: sessions mark themselves idle or busy and release their slot.
  connection_slots& slots() noexcept {
    return slots_;
  }

private:
  server_settings settings_;
  std::vector<core::call_sink> sinks_;
  std::string openapi_;
  std::atomic<bool> leaving_{false};
  std::atomic<bool> draining_{false};
  connection_slots slots_;
};

} // namespace netherscope::net::http
