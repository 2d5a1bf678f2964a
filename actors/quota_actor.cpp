#include "actors/quota_actor.hpp"

#include <algorithm>

#include <caf/all.hpp>

#include "core/telemetry.hpp"

namespace netherscope::actors {


namespace {

using quota_pointer = actors::quota_actor::stateful_pointer<quota_state>;

// Counts a verdict that refused its call, by the quota that refused it.
void count_refusal(core::telemetry& counters, const core::quota_verdict& verdict) {
  if (verdict.error.code == core::error_code::quota_exhausted)
    counters.count_refusal(verdict.scope == core::quota_scope::key ? core::refusal_scope::key
                                                             : core::refusal_scope::ip);
  else if (verdict.error.code == core::error_code::signin_rate_limited)
    counters.count_refusal(core::refusal_scope::signin);
}

void schedule_flush(quota_pointer self) {
  auto& st = self->state;
  // The flush message queues behind every charge already in the mailbox, so all of them
  // share its batch: group commit without a timer.
  if (!st.flush_scheduled) {
    st.flush_scheduled = true;
    self->send(self, flush_atom::value);
  }
}

void schedule_sweep(quota_pointer self) {
  auto& st = self->state;
  if (!st.sweep_scheduled) {
    st.sweep_scheduled = true;
    self->delayed_send(self, st.settings.reserve_ttl, sweep_atom::value);
  }
}

// Asks the edges holding leases of reservations that ended for what they did not use.
void send_recalls(quota_pointer self) {
  for (auto& r : self->state.reservations.take_recalls())
    r.edge->recall(std::move(r.id));
}

// Hands one verdict to whoever waits for it; a refill has nobody.
void answer(quota_state::waiting& entry, core::quota_verdict&& verdict) {
  if (entry.then)
    entry.then(std::move(verdict));
  else if (entry.promise.pending())
    entry.promise.deliver(std::move(verdict));
}

// Answers every caller of a durable batch with its verdict, in order, and settles what it
// counted ahead with the callers' reservations.
void deliver(quota_pointer self, std::vector<quota_state::waiting>& callers,
             charged_batch& charged) {
  auto& st = self->state;
  auto now = std::chrono::steady_clock::now();
  auto now_unix = st.settings.now();
  for (std::size_t i = 0; i < callers.size(); ++i) {
    auto& entry = callers[i];
    auto& verdict = charged.verdicts[i];
    if (!entry.reservation.empty())
      st.reservations.settle(entry.reservation, entry.charge, entry.reserve, entry.has_caller(),
                             verdict, charged, i, now, now_unix);
    answer(entry, std::move(verdict));
  }
  send_recalls(self);
  if (!st.reservations.empty())
    schedule_sweep(self);
}

// Answers the held batch. durable says a commit since it already made it durable; otherwise
// the store is flushed first, and if that fails the batch is answered unavailable (it may
// have been counted, but nothing is promised that the disk does not hold).
void release_held(quota_pointer self, bool durable) {
  auto& st = self->state;
  auto held = std::move(st.held);
  st.held = {};
  if (held.callers.empty())
    return;
  if (!durable) {
    if (auto err = st.store->settle_counters()) {
      log_store_failure(err);
      held.charged = failed_batch(held.charges, st.settings.limits, st.settings.now());
    }
  }
  deliver(self, held.callers, held.charged);
}

void flush(quota_pointer self) {
  auto& st = self->state;
  st.flush_scheduled = false;
  auto batch = std::move(st.pending);
  st.pending.clear();
  // The next batch is likely as large as this one: grown once, not doubling per charge.
  st.pending.reserve(batch.size());
  auto returned = st.reservations.take_give_backs();
  if (batch.empty() && returned.empty()) {
    // No charge came while the held batch waited: make it durable now.
    release_held(self, false);
    return;
  }
  std::vector<core::quota_charge> charges;
  std::vector<std::uint64_t> reserve;
  std::vector<bool> with_caller;
  charges.reserve(batch.size());
  reserve.reserve(batch.size());
  with_caller.reserve(batch.size());
  for (auto& entry : batch) {
    charges.push_back(entry.charge);
    reserve.push_back(entry.reserve);
    with_caller.push_back(entry.has_caller());
  }
  auto charged = apply_charges(*st.store, st.settings.limits, charges, reserve, with_caller,
                               returned, st.settings.now());
  // The batch is one store operation (one transaction or one script call); a failed one
  // answered every charge unavailable and counted nothing.
  auto& counters = core::process_telemetry();
  bool failed = charged.failed;
  counters.count_store(st.store->backend(), failed);
  if (!failed)
    for (std::size_t i = 0; i < batch.size(); ++i)
      if (batch[i].has_caller())
        count_refusal(counters, charged.verdicts[i]);
  if (!st.store->defers_durability() || failed) {
    // A failed batch made nothing durable, the held one included.
    release_held(self, !failed);
    deliver(self, batch, charged);
    return;
  }
  // This batch's commit made the held one durable; this one waits for the next commit, or
  // for the flush scheduled here when no charge comes before it. Under load each batch so
  // costs one fsync instead of two; an idle service pays the second one at once.
  release_held(self, true);
  st.held = {std::move(batch), std::move(charges), std::move(charged)};
  schedule_flush(self);
}

// Adds a charge to the next batch, unless its caller's reservation answers it at once.
void enqueue(quota_pointer self, quota_state::waiting&& entry) {
  auto& st = self->state;
  auto& book = st.reservations;
  // A look-up (peek) has a reservation too: deliver shows its unused calls as remaining.
  entry.reservation = book.id_of(entry.charge);
  auto* r = entry.reservation.empty() || entry.charge.mode == core::charge_mode::peek
              ? nullptr
              : book.find(entry.reservation);
  if (r != nullptr) {
    auto now_unix = st.settings.now();
    auto live = quota_reservations::usable(*r, std::chrono::steady_clock::now(), now_unix);
    if (entry.charge.refunds()) {
      if (live)
        if (auto verdict = book.take_refund(*r, entry.charge))
          return answer(entry, std::move(*verdict));
    } else if (live) {
      if (auto used = book.answer_call(*r, entry.reservation, entry.edge)) {
        if (used->refill > 0) {
          st.pending.push_back({r->charge, {}, nullptr, entry.reservation, used->refill, {}});
          schedule_flush(self);
        }
        // The lease reaches the edge's io thread before the verdict: both go through its
        // reply inbox, in this order.
        if (used->lease)
          entry.edge->grant(std::move(*used->lease));
        return answer(entry, std::move(used->verdict));
      }
      // A caller counted within reserve_ttl is busy: count some of its next calls ahead.
      entry.reserve = book.next_size(*r);
    } else if (now_unix < r->verdict.reset) {
      // A reservation that ran out of time goes back first, in the same batch ahead of this
      // charge, so its calls count for the caller rather than against it.
      book.give_back(*r);
    }
  }
  st.pending.push_back(std::move(entry));
  schedule_flush(self);
}

// Gives back the reservations nobody used within reserve_ttl.
void sweep(quota_pointer self) {
  auto& st = self->state;
  st.sweep_scheduled = false;
  st.reservations.sweep(std::chrono::steady_clock::now(), st.settings.now());
  send_recalls(self);
  if (st.reservations.has_give_backs())
    schedule_flush(self);
  if (!st.reservations.empty())
    schedule_sweep(self);
}

} // namespace

actors::quota_actor::behavior_type quota_on(quota_pointer self, std::shared_ptr<storage::store> store,
                                    quota_settings settings) {
  self->state.store = std::move(store);
  self->state.reservations = quota_reservations{settings.reserve_max, settings.reserve_ttl};
  self->state.settings = std::move(settings);
  // Charges still waiting when the service stops are committed before the actor goes, so a
  // call that was answered is never lost to a SIGTERM, and unused reservations are given back.
  self->set_exit_handler([self](const caf::exit_msg& msg) {
    // The last batch counts no more ahead (a refill has no caller to wait for it), and once it
    // is durable what is counted ahead and unused goes back.
    auto& st = self->state;
    st.pending.erase(std::remove_if(st.pending.begin(), st.pending.end(),
                                    [](const quota_state::waiting& w) { return !w.has_caller(); }),
                     st.pending.end());
    for (auto& entry : st.pending)
      entry.reserve = 0;
    flush(self);
    release_held(self, false);
    st.reservations.give_back_all(st.settings.now());
    flush(self);
    release_held(self, false);
    if (auto err = self->state.store->flush())
      log_store_failure(err);
    self->quit(msg.reason);
  });
  return {
    [=](charge_atom, core::quota_charge& charge) -> caf::typed_response_promise<core::quota_verdict> {
      auto promise = self->make_response_promise<core::quota_verdict>();
      enqueue(self, {std::move(charge), promise, nullptr, {}, 0, {}});
      return promise;
    },
    [=](charge_atom, core::quota_charge& charge, verdict_fn& then) {
      enqueue(self, {std::move(charge), {}, std::move(then), {}, 0, {}});
    },
    [=](charge_atom, core::quota_charge& charge, verdict_fn& then, edge_link_ptr& edge) {
      enqueue(self, {std::move(charge), {}, std::move(then), {}, 0, std::move(edge)});
    },
    [=](give_back_atom, edge_return& rest) {
      auto& st = self->state;
      st.reservations.take_back(rest, std::chrono::steady_clock::now(), st.settings.now());
      if (st.reservations.has_give_backs())
        schedule_flush(self);
    },
    [=](flush_atom) { flush(self); },
    [=](sweep_atom) { sweep(self); },
  };
}

} // namespace netherscope::actors
