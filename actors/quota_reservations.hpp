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

#include "actors/quota_plan.hpp"
#include "net/api/quota.hpp"
#include "storage/store.hpp"

namespace netherscope::actors {

namespace api = net::api;

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
  api::quota_verdict verdict;
  /// That call's counter, to give the unused part back.
  storage::counter_op counter;
  /// The call that refills the reservation.
  api::quota_charge charge;
  std::chrono::steady_clock::time_point expires;
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

  /// The reservation a charge may use, refill or give a call back to: one per endpoint and
  /// caller (an address, or a key by its hash). Empty for sign-ins, which are never counted
  /// ahead, and when reservations are off.
  std::string id_of(const api::quota_charge& charge) const;

  /// The reservation of id, or null.
  reservation* find(const std::string& id);

  /// Whether r may still answer calls: within its time and its month.
  static bool usable(const reservation& r, clock_type::time_point now, std::int64_t now_unix);

  /// A call answered from a reservation, and the size of the refill to ask for now (0 for
  /// none): the next one is asked when half is used, so a busy caller rarely waits.
  struct answered_call {
    api::quota_verdict verdict;
    std::uint64_t refill = 0;
  };

  /// Answers a counted call from r's unused calls; nothing when none is left.
  std::optional<answered_call> answer_call(reservation& r);

  /// Takes a refunded call back into r when the refund names the counter r counts ahead on
  /// and r has room: the store keeps the call counted, and the next call uses it. Returns the
  /// verdict to answer the refund with; nothing when the refund must go to the store.
  std::optional<api::quota_verdict> take_refund(reservation& r, const api::quota_charge& refund);

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
  void settle(const std::string& id, const api::quota_charge& charge, std::uint64_t asked,
              bool with_caller, api::quota_verdict& verdict, const charged_batch& charged,
              std::size_t i, clock_type::time_point now, std::int64_t now_unix);

  /// Gives back and forgets the reservations nobody used within the ttl.
  void sweep(clock_type::time_point now, std::int64_t now_unix);

  /// Gives back every unused call still in its month (the service stops).
  void give_back_all(std::int64_t now_unix);

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
  void credit(const std::string& id, const api::quota_charge& charge, std::uint64_t asked,
              const api::quota_verdict& verdict, const charged_batch& charged, std::size_t i,
              clock_type::time_point now);

  /// The most calls counted ahead for r's caller at once.
  std::uint64_t most_ahead(const reservation& r) const;

  std::uint64_t reserve_max_ = 0;
  std::chrono::milliseconds ttl_{1000};
  std::unordered_map<std::string, reservation> reservations_;
  std::vector<storage::counter_op> give_backs_;
};

} // namespace netherscope::actors
