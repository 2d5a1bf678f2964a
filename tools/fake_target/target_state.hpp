// The state every connection of the fake target shares: configuration, counters, keys,
// the UDP port pool and the event sink. The fake runs one io_context on one thread, so
// nothing here needs locking.
#pragma once

#include "config.hpp"
#include "crypto.hpp"
#include "stun_responder.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>

namespace fake_target {

/// The numbers GET /_fake/stats reports.
struct counters {
  std::uint64_t status_requests = 0;         ///< GET and HEAD /v1/join, faulted or not
  std::uint64_t offers = 0;                  ///< POSTs that reached the SDP check
  std::uint64_t offers_rejected = 0;         ///< of those, the ones refused (13, 37, no candidate)
  std::uint64_t offers_unauthenticated = 0;  ///< of those, the ones refused by --auth online
  std::uint64_t offers_signed_in = 0;        ///< offers admitted with a verified GameServerToken
  std::uint64_t offers_not_allowlisted = 0;  ///< verified offers refused by --allowlist
  std::uint64_t tls_alerts = 0;              ///< handshake_failure alerts sent in --tls bds
  std::uint64_t tls_handshake_failures = 0;  ///< failed handshakes in --tls on
  std::uint64_t tls_hellos_ignored = 0;      ///< ClientHellos left unanswered in --tls silent
  std::uint64_t connections = 0;             ///< TCP connections accepted since start
  std::uint64_t connections_open = 0;        ///< of those, the ones still open
  std::uint64_t stun_requests = 0;           ///< datagrams received on answered offers' ports
  std::uint64_t stun_answers = 0;            ///< of those, the ones answered
  std::uint64_t raknet_pings = 0;            ///< RakNet unconnected pings received on UDP
  std::uint64_t raknet_pongs = 0;            ///< of those, the ones answered (from any port)
  std::uint64_t joins_started = 0;           ///< DTLS handshakes begun after a nominating check
  std::uint64_t dtls_established = 0;        ///< of those, with the offer's certificate
  std::uint64_t dtls_srtp = 0;               ///< of those, with an SRTP profile agreed
  std::uint64_t dtls_failures = 0;           ///< handshakes that failed or met another certificate
  std::uint64_t channels_opened = 0;         ///< DATA_CHANNEL_OPENs acknowledged
  std::uint64_t game_requests = 0;           ///< RequestNetworkSettings read
};

/// Hands out UDP ports for answer candidates; the Asio implementation lives in port_pool.cpp
/// so that the router stays free of sockets.
class port_source {
 public:
  virtual ~port_source() = default;
  /// Binds a UDP socket for an answer with these ICE credentials and holds it for a while,
  /// answering connectivity checks on it; std::nullopt when the pool is drained.
  /// peer_fingerprint is the offer's sha-256 a=fingerprint, which a client joining on the
  /// port must present.
  virtual std::optional<std::uint16_t> lease(const ice_credentials& credentials,
                                             const std::string& peer_fingerprint) = 0;
  /// How many leased ports are currently held.
  virtual std::size_t in_use() const = 0;
};

struct issuer_keys;

/// The issuer's keys for online verification (--xbox-issuer); the fetching lives in
/// issuer_fetch.cpp so that the router stays free of sockets.
class key_source {
 public:
  virtual ~key_source() = default;
  /// The keys and issuers as last fetched.
  virtual const issuer_keys& keys() const = 0;
  /// Fetches the JWKS again and runs done when that ends, whether or not it worked; false
  /// (and done never runs) when the last refetch was too recent.
  virtual bool refresh(std::function<void()> done) = 0;
};

/// Everything the request handlers read or change.
struct target_state {
  config cfg;
  counters stats;
  port_source* ports = nullptr;
  /// With --xbox-issuer, where offers' GameServerTokens are verified; null otherwise.
  key_source* issuer = nullptr;
  pkey_ptr identity_key;         ///< the P-384 key behind our a=identity
  std::string dtls_fingerprint;  ///< sha-256 of our DTLS certificate, which joins present
  std::mt19937_64 random{std::random_device{}()};
  std::function<std::int64_t()> now;             ///< Unix seconds
  std::function<void(const std::string&)> emit;  ///< writes one event line
  /// With --raknet only, the HTTP listener serves only GET /_fake/stats, on a port of its own.
  bool stats_only = false;
};

/// Counts a connection while it lives, so that the stats can tell open ones from closed ones.
class connection_token {
 public:
  explicit connection_token(target_state& state) : state_(&state) {
    ++state.stats.connections;
    ++state.stats.connections_open;
  }
  connection_token(connection_token&& other) noexcept : state_(other.state_) { other.state_ = nullptr; }
  connection_token& operator=(connection_token&&) = delete;
  connection_token(const connection_token&) = delete;
  connection_token& operator=(const connection_token&) = delete;
  ~connection_token() {
    if (state_) --state_->stats.connections_open;
  }

 private:
  target_state* state_;
};

}  // namespace fake_target
