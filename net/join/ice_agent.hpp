// ICE as the joining client runs it (RFC 8445, full ICE, controlling, regular nomination:
// the first pair that answers is nominated with one more check carrying USE-CANDIDATE, so the
// server uses the pair we use, whatever priorities it gives its candidates), as a pure state
// machine: the caller owns the socket and the clock, hands every
// STUN datagram in, and sends what the agent asks. The server's own checks are answered, which
// is what makes every real stack go on to DTLS (PROTOCOL.md "ICE").
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "net/nethernet/stun.hpp"

namespace netherscope::net::join {

/// Both sides' ICE credentials: ours from the offer, the server's from its answer.
struct ice_credentials {
  std::string local_ufrag;
  std::string local_pwd;
  std::string remote_ufrag;
  std::string remote_pwd;
};

/// A remote candidate the caller's address policy allowed, with the raw line for the report.
struct remote_candidate {
  nethernet::stun::transport_address where;
  std::string raw;
};

/// What happened on one pair (our socket of the family, their candidate).
struct pair_state {
  /// Checks we sent (first transmissions and retransmissions).
  unsigned checks_sent = 0;
  /// Our check got a success whose integrity verified.
  bool answered_us = false;
  /// It got an error answer with a valid integrity (a role conflict, a bad request).
  bool error_answer = false;
  /// Answers to this check with a wrong integrity.
  unsigned bad_integrity = 0;
  /// Valid checks the server sent us from this candidate's address, which we answered.
  unsigned checked_us = 0;
  /// Milliseconds from our first check to its success.
  double rtt_ms = -1;
};

/// A datagram to send to one candidate.
struct outgoing {
  std::size_t pair = 0;
  std::string bytes;
};

/// The agent.
class ice_agent {
public:
  using clock = std::chrono::steady_clock;

  ice_agent(ice_credentials credentials, std::uint64_t tie_breaker,
            std::vector<remote_candidate> remotes);

  /// The checks due at now: each pair's first check at once, then a retransmission every
  /// interval until it is answered (the same transaction, as RFC 8489 §6.2.1 resends).
  std::vector<outgoing> due(clock::time_point now);

  /// When due() next has something to send, or nullopt when every pair is answered.
  std::optional<clock::time_point> next_due() const;

  /// Takes a STUN datagram that came from `from`. Returns the answer to send back when it was a
  /// valid check of ours to answer (from a candidate's address), else an empty string.
  std::string on_stun(std::string_view datagram, const nethernet::stun::transport_address& from,
                      clock::time_point now);

  /// The pair whose nominating check (USE-CANDIDATE) succeeded: the pair both sides use.
  std::optional<std::size_t> selected() const {
    return selected_;
  }

  /// The pair whose candidate has this address and port, if any.
  std::optional<std::size_t> pair_of(const nethernet::stun::transport_address& from) const;

  const std::vector<remote_candidate>& remotes() const {
    return remotes_;
  }
  const std::vector<pair_state>& pairs() const {
    return pairs_;
  }

  /// How often an unanswered check is sent again.
  static constexpr std::chrono::milliseconds interval{100};

private:
  ice_credentials credentials_;
  std::uint64_t tie_breaker_;
  std::vector<remote_candidate> remotes_;
  std::vector<pair_state> pairs_;
  std::vector<nethernet::stun::transaction_id> transactions_;
  std::vector<std::string> requests_;
  std::vector<std::optional<clock::time_point>> first_sent_;
  std::vector<clock::time_point> next_send_;
  std::optional<std::size_t> selected_;
  /// The pair being nominated, and its check.
  std::optional<std::size_t> nominee_;
  nethernet::stun::transaction_id nomination_id_{};
  std::string nomination_request_;
  std::optional<clock::time_point> nomination_first_;
  clock::time_point nomination_next_;
  unsigned nomination_sent_ = 0;

  void nominate(std::size_t pair);
};

/// Whether two transport addresses are the same (an IPv4-mapped IPv6 address equals its IPv4).
bool same_address(const nethernet::stun::transport_address& a,
                  const nethernet::stun::transport_address& b);

} // namespace netherscope::net::join
