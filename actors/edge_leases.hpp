// Leases: calls of a busy caller's reservation handed to one io thread's edge.
//
// The quota actor counts calls ahead for a busy caller (actors/quota_actor.hpp,
// "Reservations"), but each of those calls still crossed to the quota actor's thread and back
// before its reply: two wake-ups per cached offer, the largest cost left on the hot path. With
// a lease the quota actor hands part of a reservation to the io thread whose call it answered,
// and that thread answers the caller's next calls itself, without crossing at all.
//
// A lease holds only calls the store has already counted and made durable, so a reply from a
// lease never runs ahead of the disk. It lasts no longer than the reservation it came from did
// when it was given, and never past the month it was counted in. What is left when it ends
// goes back to the quota actor as a value (edge_return): the edge sends it when it finds the
// lease ended, when the quota actor recalls it (the reservation was swept or its key stopped
// working), and when the edge goes away. Every message between the two is a value; the quota
// actor reaches the edge only through an edge_link, whose functions hand a value to the io
// thread's reply inbox.
//
// A call answered from a lease shows the calls its caller made as this edge knows them: what
// the quota actor had answered when it gave the lease, plus the lease's calls used since. The
// calls the same caller made meanwhile through other io threads are not in it, so a caller
// whose calls are spread over several connections may see the figure of one reply higher
// than that of another, by what it made elsewhere within the lease's time.
//
// A lease is at most half of what its reservation held, and an edge holds one per caller, so
// each io thread adds at most half of the reservation's bound to a caller's calls counted
// ahead. A lease left on an io thread the caller no longer uses comes back when the quota
// actor sweeps the reservation, once the caller has paused for its time.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/quota.hpp"
#include "storage/store.hpp"

namespace netherscope::actors {


/// Calls of one reservation given to an edge.
struct edge_grant {
  /// The reservation's id (actors::reservation_id).
  std::string id;
  std::uint64_t calls = 0;
  /// The calls the caller had made, as the quota actor knew them, when it gave the lease.
  std::uint64_t made = 0;
  /// The verdict the store last gave the caller (scope, limit, reset, user id).
  core::quota_verdict verdict;
  /// The counter the calls were counted on, for giving back what is not used.
  storage::counter_op counter;
  std::chrono::steady_clock::time_point expires;
};

/// The unused calls of a lease, going back to the quota actor.
struct edge_return {
  std::string id;
  std::uint64_t calls = 0;
  /// The month the calls were counted in (the verdict's reset).
  std::int64_t reset = 0;
  storage::counter_op counter;
};

/// How the quota actor reaches one io thread's edge. Both functions are called on the quota
/// actor's thread and only hand their value to the edge's io thread.
struct edge_link {
  std::function<void(edge_grant)> grant;
  /// Asks the edge to end the lease of a reservation id and send back what is left of it.
  std::function<void(std::string)> recall;
};

using edge_link_ptr = std::shared_ptr<const edge_link>;

/// The leases one io thread holds; used by that thread alone.
class edge_leases {
public:
  using clock_type = std::chrono::steady_clock;

  /// What a call found: a verdict when a lease answered it, and the rest of a lease that
  /// ended, to send back.
  struct lookup {
    std::optional<core::quota_verdict> verdict;
    std::optional<edge_return> ended;
  };

  /// Answers one call of the reservation id from its lease if the lease is still usable at
  /// now (steady clock) and now_unix (its month); a lease that is used up or ended is dropped.
  lookup answer(const std::string& id, clock_type::time_point now, std::int64_t now_unix);

  /// Takes a grant. A lease the id held already ends, and its rest is returned.
  std::optional<edge_return> add(edge_grant grant);

  /// Ends the lease of id; its rest, if it had one.
  std::optional<edge_return> recall(const std::string& id);

  /// Ends every lease (the edge goes away); the rests of those with calls left.
  std::vector<edge_return> take_all();

  std::size_t size() const noexcept {
    return leases_.size();
  }

private:
  struct lease {
    std::uint64_t left = 0;
    std::uint64_t made = 0;
    core::quota_verdict verdict;
    storage::counter_op counter;
    clock_type::time_point expires;
  };

  static std::optional<edge_return> rest_of(const std::string& id, const lease& l);

  std::unordered_map<std::string, lease> leases_;
};

} // namespace netherscope::actors
