// The quota actor's reservations: calls counted ahead for busy callers (actors/quota_actor.hpp,
// "Reservations"), as bookkeeping without the actor. It says which reservation a charge may
// use, answers a call from one, sizes the next one, credits what a durable batch counted
// ahead, and collects what goes back to the store. The actor owns one and calls it from its
// handlers; every figure here is what the store has counted and made durable.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "actors/edge_leases.hpp"
#include "actors/quota_plan.hpp"
#include "core/quota.hpp"
#include "storage/store.hpp"

namespace netherscope::actors {


/// The reservation a charge may use, refill or give a call back to: one per endpoint and
/// caller (an address, or a key by its hash). Sign-ins, which are never counted ahead, have
/// one too; quota_reservations::id_of leaves them out.
std::string reservation_id(const core::quota_charge& charge);

/// Calls counted ahead for one caller (one endpoint, and one address or one key).
struct reservation {
  /// Calls the store counted and no reply has used yet; only durable ones are added.
  std::uint64_t unused = 0;
  /// The counter's value after the store last counted for this caller.
  std::uint64_t counted = 0;
  /// Asked of the store and not yet durable.
  std::uint64_t in_flight = 0;
  /// The size of the last reservation asked, which the next one doubles.
  std::uint64_t last_size = 0;
  /// The verdict of the call the store last counted (scope, limit, reset, user id).
  core::quota_verdict verdict;
  /// That call's counter, to give the unused part back.
  storage::counter_op counter;
  /// The call that refills the reservation.
  core::quota_charge charge;
  std::chrono::steady_clock::time_point expires;
  /// The edges holding a lease of this reservation, to recall when it ends.
  std::vector<edge_link_ptr> holders;
};

/// The reservations of every busy caller, and what goes back to the store with the next
/// batch.
class quota_reservations {
public:
  using clock_type = std::chrono::steady_clock;

  quota_reservations() = default;

  /// reserve_max: the most calls counted ahead for one caller (0 turns reservations off);
  /// ttl: how long a reservation lasts after the store last counted for it.
  quota_reservations(std::uint64_t reserve_max, std::chrono::milliseconds ttl)
    : reserve_max_(reserve_max), ttl_(ttl) {
    // nop
  }

  /// The reservation_id of a charge; empty for sign-ins, which are never counted ahead, and
  /// when reservations are off.
  std::string id_of(const core::quota_charge& charge) const;

  /// The reservation of id, or null.
  reservation* find(const std::string& id);

  /// Whether r may still answer calls: within its time and its month.
  static bool usable(const reservation& r, clock_type::time_point now, std::int64_t now_unix);

  /// A call answered from a reservation, the size of the refill to ask for now (0 for none):
  /// the next one is asked when half is used, so a busy caller rarely waits; and a lease for
  /// the edge that sent the call, if it gets one.
  struct answered_call {
    core::quota_verdict verdict;
    std::uint64_t refill = 0;
    std::optional<edge_grant> lease;
  };

  /// Answers a counted call from r's unused calls; nothing when none is left. When the call
  /// came from an edge (edge not null) and at least lease_least calls are left after it, half
  /// of them go to that edge as a lease (actors/edge_leases.hpp).
  std::optional<answered_call> answer_call(reservation& r, const std::string& id = {},
                                           const edge_link_ptr& edge = nullptr);

  /// Takes back the rest of an edge's lease: into its reservation while that is live and of
  /// the same month, otherwise to the store with the next batch (nothing once the month is
  /// over).
  void take_back(const edge_return& rest, clock_type::time_point now, std::int64_t now_unix);

  /// Takes a refunded call back into r when the refund names the counter r counts ahead on
  /// and r has room: the store keeps the call counted, and the next call uses it. Returns the
  /// verdict to answer the refund with; nothing when the refund must go to the store.
  std::optional<core::quota_verdict> take_refund(reservation& r, const core::quota_charge& refund);

  /// The size of the next reservation for r: twice the last, from 4, such that no more than
  /// reserve_max calls (and the limit's share) are counted ahead at once; none while one is
  /// still on its way to the store. Marks it in flight.
  std::uint64_t next_size(reservation& r);

  /// Queues the unused part of r to go back with the next batch. Losing it to a crash or a
  /// failed batch only keeps calls counted that were never made.
  void give_back(reservation& r);

  /// Settles one charge of a durable batch for its caller's reservation id: credits what the
  /// store counted ahead (asked: the calls this charge asked to count ahead), and makes the
  /// verdict show the calls made rather than those counted ahead. A counted call refused
  /// because the counter is full of the caller's own calls counted ahead is answered from
  /// them (with_caller: the charge has a caller to answer).
  void settle(const std::string& id, const core::quota_charge& charge, std::uint64_t asked,
              bool with_caller, core::quota_verdict& verdict, const charged_batch& charged,
              std::size_t i, clock_type::time_point now, std::int64_t now_unix);

  /// Gives back and forgets the reservations nobody used within the ttl.
  void sweep(clock_type::time_point now, std::int64_t now_unix);

  /// Gives back every unused call still in its month (the service stops).
  void give_back_all(std::int64_t now_unix);

  /// An edge to ask for the rest of its lease of a reservation that ended.
  struct recall {
    edge_link_ptr edge;
    std::string id;
  };

  /// The recalls of the reservations that ended since the last call; empties the queue.
  std::vector<recall> take_recalls();

  /// The fewest calls left in a reservation, after a call, for half of them to go to an
  /// edge as a lease.
  static constexpr std::uint64_t lease_least = 8;

  /// What goes back to the store with the next batch; empties the queue.
  std::vector<storage::counter_op> take_give_backs();

  bool has_give_backs() const noexcept {
    return !give_backs_.empty();
  }

  bool empty() const noexcept {
    return reservations_.empty();
  }

private:
  /// Adds what the store counted ahead for a caller to its reservation.
  void credit(const std::string& id, const core::quota_charge& charge, std::uint64_t asked,
              const core::quota_verdict& verdict, const charged_batch& charged, std::size_t i,
              clock_type::time_point now);

  /// The most calls counted ahead for r's caller at once.
  std::uint64_t most_ahead(const reservation& r) const;

  /// Queues the recall of every lease of r, whose reservation id is id.
  void recall_leases(const std::string& id, reservation& r);

  std::uint64_t reserve_max_ = 0;
  std::chrono::milliseconds ttl_{1000};
  std::unordered_map<std::string, reservation> reservations_;
  std::vector<storage::counter_op> give_backs_;
  std::vector<recall> recalls_;
};

} // namespace netherscope::actors
