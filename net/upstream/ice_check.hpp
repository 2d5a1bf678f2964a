// UDP connectivity checks toward the candidates of an answer: one request datagram per
// candidate, retransmitted on a schedule, each answer judged by the caller, all under one
// deadline (RFC 8445 §7.2 checks over RFC 8489 §6.2.1 retransmissions).
//
// What the datagrams say is not known here: the caller gives each check its request bytes and
// a function that judges a datagram (net/report/reachability builds STUN Binding requests with
// net/nethernet/stun). This room sends only to addresses the address policy allows, the same
// policy that guards connections to targets, so a hostile answer cannot point the service's
// UDP at a private network.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "net/upstream/address_policy.hpp"

namespace boost::asio {
class io_context;
} // namespace boost::asio

namespace netherscope::net::upstream {

/// How a received datagram answers a check, as the check's judge says.
enum class check_reply : std::uint8_t {
  /// Not an answer to this check (another transaction, not STUN): ignored.
  unrelated,
  /// A success that proves the peer holds the credentials.
  success,
  /// An error answer that proves the peer holds the credentials (it is there, but refused).
  error,
  /// Looks like an answer to this check, but its integrity is wrong.
  bad_integrity,
};

/// One check: where to, what to send, how to judge what comes back.
struct udp_check {
  /// An IP literal (the candidate's address as the answer wrote it).
  std::string address;
  std::uint16_t port = 0;
  /// The datagram, sent again unchanged on every retransmission (same transaction).
  std::string request;
  /// Judges a datagram that came from exactly this address and port.
  std::function<check_reply(std::string_view)> judge;
};

/// How a check ended.
enum class check_outcome : std::uint8_t {
  /// A success from the candidate's address and port: the port is open from here.
  reachable,
  /// Nothing came back before the deadline (a closed port, a firewall, a wrong address).
  timeout,
  /// Only answers with a wrong integrity came back: whoever answered lacks the credentials.
  bad_integrity,
  /// An error answer with a valid integrity (the peer is there but refused the check).
  error_response,
  /// The address policy refused the address; nothing was sent.
  refused,
  /// The address is not an IP literal; nothing was sent.
  not_an_address,
  /// Past the most destinations one run sends to; nothing was sent.
  over_limit,
  /// The datagram could not be sent (no route, no socket for its address family).
  send_failed,
};

/// The end of one check.
struct udp_check_result {
  check_outcome outcome = check_outcome::timeout;
  /// For reachable: milliseconds from the first transmission to the answer (an answer to a
  /// retransmission is timed from the first too, which overstates rather than understates).
  double rtt_ms = -1;
  /// For refused: the policy's words ("10.0.0.5 is private-use (10.0.0.0/8)").
  std::string reason;
};

/// The retransmission schedule and the deadline.
struct ice_check_settings {
  /// When each transmission leaves, from the start: RFC 8489 §6.2.1 doubles the interval from
  /// an initial RTO; 100 ms suits a single check toward a game server better than 500 ms.
  std::vector<std::chrono::milliseconds> schedule{std::chrono::milliseconds{0},
                                                  std::chrono::milliseconds{100},
                                                  std::chrono::milliseconds{300},
                                                  std::chrono::milliseconds{700}};
  /// When every check still open counts as unanswered (RFC 8445 leaves it to the agent).
  std::chrono::milliseconds deadline{1500};
  /// The most checks one run sends, counted among those the policy allows, in order: a
  /// hostile answer must not make the service send to hundreds of places, nor use up this
  /// budget with addresses it would not send to anyway.
  std::size_t max_destinations = 8;
};

/// Runs sets of checks on an io_context; thread-safe, cheap to share.
class ice_checker {
public:
  /// A checker that sends only where policy allows.
  ice_checker(boost::asio::io_context& ioc, address_policy policy,
              ice_check_settings settings = {});

  /// Runs the checks at once (each its own transaction, all on one socket per address
  /// family); done runs exactly once, on an io thread, with one result per check in order,
  /// when every check has ended or at the deadline. It must not block.
  void run(std::vector<udp_check> checks, std::function<void(std::vector<udp_check_result>&&)> done);

  struct state;

private:
  std::shared_ptr<state> state_;
};

/// The outcome as the API writes it: "reachable", "timeout", "integrity", "error_response",
/// "policy", "not_ip", "limit", "send_failed".
std::string_view to_string(check_outcome outcome);

} // namespace netherscope::net::upstream
