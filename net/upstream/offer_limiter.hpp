// The per-target limit on upstream offers, keyed by the address actually connected to; on a
// store shared across hosts, the replicas' own limits are followed by one they share.
//
// Keying by the caller's spelling of a target would let "127.0.0.1", "::ffff:127.0.0.1",
// "localhost" and every name a wildcard DNS zone offers each have their own allowance, and
// each offer may hold one of the server's UDP ports. So the limit counts per resolved
// address and port, after the address policy, across every spelling and TLS mode.
//
// It has one owner: the client to targets (net/upstream/http_client) keeps it and uses it
// only on its strand, where every fetch of that client runs, so it needs no lock.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace netherscope::net::upstream {

/// The part of the limit that replicas on a shared store (Redis) keep together, wired by
/// app/: start asks whether an offer to these servers may go, for every replica at once, and
/// calls done, on any thread, with how long to wait (zero: go; owner then holds each server's
/// in-flight mark until finish frees it, or until it expires by itself).
struct shared_offer_gate {
  using done_fn = std::function<void(std::chrono::seconds wait)>;
  /// in_flight_limit: how many offers to a server may be in flight with this one (the
  /// fetch's, as offer_limiter::try_start takes it).
  std::function<void(const std::vector<std::string>& servers, const std::string& owner,
                     unsigned in_flight_limit, done_fn done)>
    start;
  std::function<void(const std::vector<std::string>& servers, const std::string& owner)> finish;
};

/// The per-server counts of one process; not thread-safe (its owner serializes every use).
class offer_limiter {
public:
  using clock_type = std::chrono::steady_clock;

  explicit offer_limiter(unsigned per_minute) : per_minute_(per_minute) {
    // nop
  }

  /// Starts an offer to whichever of these "address:port" servers answers, if each is below
  /// its per-minute limit and has fewer than in_flight_limit offers in flight (1 for an offer;
  /// the players of a join, which must meet the server together); returns zero then, and
  /// records it. Otherwise returns how long to wait (at least one second) and records nothing.
  std::chrono::seconds try_start(const std::vector<std::string>& servers,
                                 clock_type::time_point now, unsigned in_flight_limit = 1);

  /// Ends the offer started for these servers (in flight no more).
  void finish(const std::vector<std::string>& servers);

  /// Takes back a start that the shared gate refused: as if it had never been recorded.
  void cancel(const std::vector<std::string>& servers);

  /// Lets a shared gate have the last word after this process's own limit (set once, before
  /// any fetch).
  void share(shared_offer_gate gate) {
    gate_ = std::move(gate);
  }

  /// The shared gate, when replicas share the limit; null start otherwise.
  const shared_offer_gate& gate() const noexcept {
    return gate_;
  }

  unsigned per_minute() const noexcept {
    return per_minute_;
  }

  /// Servers tracked now (for tests: stale ones are dropped).
  std::size_t tracked();

private:
  struct server {
    std::deque<clock_type::time_point> sent;
    unsigned in_flight = 0;
  };

  void forget_old(clock_type::time_point now);

  unsigned per_minute_;
  shared_offer_gate gate_;
  std::map<std::string, server> servers_;
  clock_type::time_point last_sweep_{};
};

} // namespace netherscope::net::upstream
