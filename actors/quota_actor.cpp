#include "actors/quota_actor.hpp"

#include <algorithm>

#include <caf/all.hpp>

#include "net/api/telemetry.hpp"
#include "net/base/log.hpp"
#include "storage/records.hpp"

namespace netherscope {

namespace {

using quota_pointer = quota_actor::stateful_pointer<quota_state>;

void log_store_failure(const caf::error& err) {
  // A store that is down fails every batch: one line per 10 s, with how many it stands for.
  static log::sampler failures{std::chrono::seconds{10}};
  log::write_sampled(failures, log::level::error, "quota_store_failed",
                     {{"error", caf::to_string(err)}});
}

// The store failed and nothing was counted. What is still known comes along so the reply can
// carry it: the scope the call asked for (key when it sent one: whether the key is good may be
// what could not be read), its limit and the reset. How many calls are left is not known.
quota_verdict store_failed(const quota_charge& charge, const quota_limits& limits,
                           std::int64_t now_unix) {
  quota_verdict verdict;
  verdict.error = make_failure(error_code::unavailable,
                               "usage could not be recorded; try again shortly");
  verdict.scope = charge.key_hash.empty() ? quota_scope::ip : quota_scope::key;
  verdict.limit = limits.of(charge.what, verdict.scope);
  verdict.reset = storage::window_of(now_unix).reset_unix;
  return verdict;
}

// One charge as a counter operation, with what its verdict needs besides the count.
struct planned_charge {
  storage::counter_op op;
  quota_scope scope = quota_scope::ip;
  std::uint64_t user_id = 0;
  /// Set for a key that is unknown or revoked: the call counts against the address and is
  /// refused with this.
  std::string key_refusal;
};

storage::counter_op counter(std::string_view endpoint, quota_scope scope, std::string subject,
                            std::string window, std::int64_t reset, std::uint64_t limit,
                            storage::counter_mode mode) {
  storage::counter_op op;
  op.endpoint = std::string{endpoint};
  op.scope = scope == quota_scope::key ? "key" : "ip";
  op.subject = std::move(subject);
  op.window = std::move(window);
  op.expires_unix = reset;
  op.limit = limit;
  op.mode = mode;
  return op;
}

// What to count for one charge, given its key record when it sent a key.
planned_charge plan(const quota_limits& limits, const quota_charge& charge,
                    const std::optional<storage::key_record>* key, std::int64_t now_unix,
                    const storage::month_window& month) {
  using storage::counter_mode;
  auto mode = charge.count ? counter_mode::count : counter_mode::peek;
  planned_charge out;
  if (charge.what == endpoint::signin) {
    // Sign-in callbacks: per address and clock hour, with a code of their own, so a shared
    // address that spent its monthly info quota can still sign in.
    auto hour = storage::hour_of(now_unix);
    out.op = counter("signin", quota_scope::ip, charge.client, hour.label, hour.reset_unix,
                     limits.signin_ip, mode);
    return out;
  }
  if (charge.refund) {
    // Gives a call back to exactly the counter its charge counted it against: the month of
    // the charge, which its verdict's reset names; the key is not looked up again.
    auto window = storage::window_of(charge.charged_reset > 0 ? charge.charged_reset - 1
                                                              : now_unix);
    auto key_scope = charge.charged_scope == quota_scope::key;
    out.scope = charge.charged_scope;
    out.user_id = key_scope ? charge.charged_user_id : 0;
    out.op = counter(endpoint_name(charge.what), charge.charged_scope,
                     key_scope ? std::to_string(charge.charged_user_id) : charge.client,
                     window.label, window.reset_unix,
                     limits.of(charge.what, charge.charged_scope), counter_mode::refund);
    return out;
  }
  auto name = endpoint_name(charge.what);
  if (key && (!*key || (*key)->revoked)) {
    // Never silently anonymous: the caller meant to use a key, so say it does not work, and
    // count the call against the address it came from.
    out.key_refusal = *key ? "this API key was revoked" : "unknown API key";
  }
  if (!key || !out.key_refusal.empty()) {
    out.op = counter(name, quota_scope::ip, charge.client, month.label, month.reset_unix,
                     limits.of(charge.what, quota_scope::ip), mode);
    return out;
  }
  out.scope = quota_scope::key;
  out.user_id = (*key)->user_id;
  out.op = counter(name, quota_scope::key, std::to_string(out.user_id), month.label,
                   month.reset_unix, limits.of(charge.what, quota_scope::key), mode);
  return out;
}

// The verdict of one planned charge once the store counted it.
quota_verdict verdict_of(const quota_charge& charge, const planned_charge& planned,
                         const storage::counter_result& result, std::int64_t now_unix) {
  quota_verdict verdict;
  verdict.scope = planned.scope;
  verdict.user_id = planned.user_id;
  verdict.limit = planned.op.limit;
  verdict.reset = planned.op.expires_unix;
  verdict.remaining = result.used >= verdict.limit ? 0 : verdict.limit - result.used;
  if (result.refused) {
    verdict.remaining = 0;
    auto retry = static_cast<std::uint32_t>(std::max<std::int64_t>(1, verdict.reset - now_unix));
    if (charge.what == endpoint::signin)
      verdict.error = make_failure(error_code::signin_rate_limited,
                                   "at most " + std::to_string(verdict.limit)
                                     + " sign-in attempts per address per hour; try again "
                                       "after the hour");
    else
      verdict.error = make_failure(error_code::quota_exhausted,
                                   "monthly quota of " + std::to_string(verdict.limit)
                                     + " calls exhausted; it resets at the start of next "
                                       "month (UTC)");
    verdict.error.retry_after = retry;
  }
  if (!planned.key_refusal.empty())
    verdict.error = make_failure(error_code::unauthorized, planned.key_refusal);
  return verdict;
}

// Counts a verdict that refused its call, by the quota that refused it.
void count_refusal(telemetry& counters, const quota_verdict& verdict) {
  if (verdict.error.code == error_code::quota_exhausted)
    counters.count_refusal(verdict.scope == quota_scope::key ? refusal_scope::key
                                                             : refusal_scope::ip);
  else if (verdict.error.code == error_code::signin_rate_limited)
    counters.count_refusal(refusal_scope::signin);
}

// The reservation a charge may use, refill or give a call back to: one per endpoint and caller
// (an address, or a key by its hash). Sign-ins are never counted ahead.
std::string reservation_id(const quota_charge& charge) {
  if (charge.what == endpoint::signin)
    return {};
  // A refund goes to the counter its call was charged to, which is the address's when the
  // key was refused.
  auto by_key = charge.refund ? charge.charged_scope == quota_scope::key
                              : !charge.key_hash.empty();
  auto name = endpoint_name(charge.what);
  std::string id;
  id.reserve(name.size() + 5 + (by_key ? charge.key_hash.size() : charge.client.size()));
  id.append(name).append(by_key ? "|key|" : "|ip|");
  id.append(by_key ? charge.key_hash : charge.client);
  return id;
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

// Queues the unused part of a reservation to be given back with the next batch. Losing it to
// a crash or a failed batch only keeps calls counted that were never made.
void give_back(quota_state& st, quota_state::reservation& r) {
  if (r.unused == 0)
    return;
  auto op = r.counter;
  op.mode = storage::counter_mode::refund;
  op.amount = r.unused;
  st.give_back.push_back(std::move(op));
  r.counted -= std::min(r.counted, r.unused);
  r.unused = 0;
}

// The calls a caller made as this replica knows them: what the store counted for it, less
// what is counted ahead and unused (never below zero, should the counter have been reset).
std::uint64_t made_calls(const quota_state::reservation& r) {
  return r.counted > r.unused ? r.counted - r.unused : 0;
}

// The most calls counted ahead for a caller at once.
std::uint64_t most_ahead(const quota_settings& settings, const quota_state::reservation& r) {
  auto most = settings.reserve_max;
  if (r.verdict.limit > 0)
    most = std::min(most, r.verdict.limit / reserve_share);
  return most;
}

// A verdict answered from a reservation: the last one the store gave, with the calls made.
quota_verdict reserved_verdict(const quota_state::reservation& r) {
  auto verdict = r.verdict;
  auto used = made_calls(r);
  verdict.remaining = used >= verdict.limit ? 0 : verdict.limit - used;
  return verdict;
}

// The size of the next reservation for a caller: twice the last, from 4, such that no more than
// reserve_max calls (and the limit's share) are counted ahead at once; none while one is still
// on its way to the store.
std::uint64_t next_reservation(const quota_settings& settings, quota_state::reservation& r) {
  if (r.in_flight > 0)
    return 0;
  auto most = most_ahead(settings, r);
  auto target = std::min(most, std::max<std::uint64_t>(4, 2 * r.last_size));
  r.last_size = target;
  auto size = most > r.unused ? std::min(target, most - r.unused) : 0;
  r.in_flight = size;
  return size;
}

// A reservation that may still answer calls: within its time and its month.
bool usable(const quota_state::reservation& r, std::chrono::steady_clock::time_point now,
            std::int64_t now_unix) {
  return now < r.expires && now_unix < r.verdict.reset;
}

// Hands one verdict to whoever waits for it; a refill has nobody.
void answer(quota_state::waiting& entry, quota_verdict&& verdict) {
  if (entry.then)
    entry.then(std::move(verdict));
  else if (entry.promise.pending())
    entry.promise.deliver(std::move(verdict));
}

// Adds what the store counted ahead for a caller to its reservation, once the batch is durable.
void credit(quota_pointer self, const quota_state::waiting& entry, const quota_verdict& verdict,
            const charged_batch& charged, std::size_t i) {
  auto& st = self->state;
  auto it = st.reservations.find(entry.reservation);
  if (it != st.reservations.end())
    it->second.in_flight -= std::min(it->second.in_flight, entry.reserve);
  if (verdict.error.code != error_code::none || charged.failed) {
    // Refused or not counted: nothing was reserved. A key that no longer works loses what it
    // had reserved, so a revoked key stops at once.
    if (it != st.reservations.end() && verdict.error.code == error_code::unauthorized) {
      give_back(st, it->second);
      st.reservations.erase(it);
    }
    return;
  }
  if (it == st.reservations.end())
    it = st.reservations.emplace(entry.reservation, quota_state::reservation{}).first;
  auto& r = it->second;
  auto now = std::chrono::steady_clock::now();
  // What goes back now leaves the counter with the next batch; the count this batch read
  // still holds it.
  std::uint64_t returned = 0;
  if (r.verdict.reset != verdict.reset) {
    r.unused = 0; // Counted ahead in a month that is over: nothing to give back.
  } else if (now >= r.expires) {
    returned = r.unused;
    give_back(st, r);
  }
  r.unused += charged.reserved[i];
  r.counted = charged.results[i].used - std::min(charged.results[i].used, returned);
  r.verdict = verdict;
  r.counter = charged.counters[i];
  r.charge = entry.charge;
  r.expires = now + st.settings.reserve_ttl;
  schedule_sweep(self);
}

// Answers every caller of a durable batch with its verdict, in order, and credits what it
// counted ahead to the callers' reservations.
void deliver(quota_pointer self, std::vector<quota_state::waiting>& callers,
             charged_batch& charged) {
  auto& st = self->state;
  for (std::size_t i = 0; i < callers.size(); ++i) {
    auto& entry = callers[i];
    auto& verdict = charged.verdicts[i];
    if (!entry.reservation.empty()) {
      if (entry.charge.count)
        credit(self, entry, verdict, charged, i);
      // A caller with calls counted ahead has used only what it was answered: the unused
      // part of its reservation still counts as remaining.
      auto it = st.reservations.find(entry.reservation);
      if (it != st.reservations.end() && verdict.error.code == error_code::none
          && it->second.verdict.reset == verdict.reset) {
        auto& r = it->second;
        // A refund the store took (the reservation had no room for it) lowered the counter
        // this reservation counts on.
        if (entry.charge.refund && !charged.failed && r.verdict.scope == verdict.scope)
          r.counted = charged.results[i].used;
        if (entry.charge.count) {
          auto used = made_calls(r);
          verdict.remaining = used >= verdict.limit ? 0 : verdict.limit - used;
        } else {
          verdict.remaining = std::min(verdict.limit, verdict.remaining + r.unused);
        }
      }
      // The counter is full, but partly with this caller's own calls counted ahead (a refill
      // ahead of it in the batch took the last ones): the call is one of those.
      if (it != st.reservations.end() && entry.has_caller()
          && verdict.error.code == error_code::quota_exhausted && it->second.unused > 0
          && usable(it->second, std::chrono::steady_clock::now(), st.settings.now())) {
        --it->second.unused;
        process_telemetry().count_reserved_call();
        verdict = reserved_verdict(it->second);
      }
    }
    answer(entry, std::move(verdict));
  }
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
      auto now = st.settings.now();
      for (std::size_t i = 0; i < held.charges.size(); ++i)
        held.charged.verdicts[i] = store_failed(held.charges[i], st.settings.limits, now);
      held.charged.results.clear();
      held.charged.failed = true;
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
  auto returned = std::move(st.give_back);
  st.give_back.clear();
  if (batch.empty() && returned.empty()) {
    // No charge came while the held batch waited: make it durable now.
    release_held(self, false);
    return;
  }
  std::vector<quota_charge> charges;
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
  auto& counters = process_telemetry();
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

// Answers a charge from its caller's usable reservation when it has an unused call, and asks
// for the next reservation early, when half of this one is used, so a busy caller rarely waits.
bool answer_from_reservation(quota_pointer self, quota_state::reservation& r,
                             quota_state::waiting& entry) {
  if (r.unused == 0)
    return false;
  auto& st = self->state;
  --r.unused;
  auto verdict = reserved_verdict(r);
  process_telemetry().count_reserved_call();
  if (r.unused <= r.last_size / 2) {
    if (auto size = next_reservation(st.settings, r)) {
      st.pending.push_back({r.charge, {}, nullptr, entry.reservation, size});
      schedule_flush(self);
    }
  }
  answer(entry, std::move(verdict));
  return true;
}

// Gives a refunded call back to its caller's usable reservation, when the refund names the
// counter that reservation counts ahead on: the store keeps it counted, and the next call
// uses it.
bool refund_to_reservation(const quota_settings& settings, quota_state::reservation& r,
                           quota_state::waiting& entry) {
  auto& charge = entry.charge;
  if (r.verdict.reset != charge.charged_reset || r.verdict.scope != charge.charged_scope
      || (charge.charged_scope == quota_scope::key && r.verdict.user_id != charge.charged_user_id)
      || made_calls(r) == 0 || r.unused + r.in_flight >= most_ahead(settings, r))
    return false;
  ++r.unused;
  answer(entry, reserved_verdict(r));
  return true;
}

// Adds a charge to the next batch, unless its caller's reservation answers it at once.
void enqueue(quota_pointer self, quota_state::waiting&& entry) {
  auto& st = self->state;
  // A look-up (peek) has a reservation too: deliver shows its unused calls as remaining.
  if (st.settings.reserve_max > 0)
    entry.reservation = reservation_id(entry.charge);
  auto uses_reservation = entry.charge.count || entry.charge.refund;
  auto it = entry.reservation.empty() || !uses_reservation
              ? st.reservations.end()
              : st.reservations.find(entry.reservation);
  if (it != st.reservations.end()) {
    auto& r = it->second;
    auto now_unix = st.settings.now();
    auto live = usable(r, std::chrono::steady_clock::now(), now_unix);
    if (entry.charge.refund) {
      if (live && refund_to_reservation(st.settings, r, entry))
        return;
    } else if (live) {
      if (answer_from_reservation(self, r, entry))
        return;
      // A caller counted within reserve_ttl is busy: count some of its next calls ahead.
      entry.reserve = next_reservation(st.settings, r);
    } else if (now_unix < r.verdict.reset) {
      // A reservation that ran out of time goes back first, in the same batch ahead of this
      // charge, so its calls count for the caller rather than against it.
      give_back(st, r);
    }
  }
  st.pending.push_back(std::move(entry));
  schedule_flush(self);
}

// Gives back the reservations nobody used within reserve_ttl.
void sweep(quota_pointer self) {
  auto& st = self->state;
  st.sweep_scheduled = false;
  auto now = std::chrono::steady_clock::now();
  auto now_unix = st.settings.now();
  for (auto it = st.reservations.begin(); it != st.reservations.end();) {
    auto& r = it->second;
    if (now < r.expires || r.in_flight > 0) {
      ++it;
      continue;
    }
    if (now_unix < r.verdict.reset)
      give_back(st, r);
    it = st.reservations.erase(it);
  }
  if (!st.give_back.empty())
    schedule_flush(self);
  if (!st.reservations.empty())
    schedule_sweep(self);
}

} // namespace

std::string_view endpoint_name(endpoint what) {
  switch (what) {
    case endpoint::info:
      return "info";
    case endpoint::offer:
      return "offer";
    case endpoint::signin:
      return "signin";
  }
  return "info";
}

std::vector<quota_verdict> apply_charges(storage::store& store, const quota_limits& limits,
                                         const std::vector<quota_charge>& charges,
                                         std::int64_t now_unix) {
  return apply_charges(store, limits, charges, {}, std::vector<bool>(charges.size(), true), {},
                       now_unix)
    .verdicts;
}

charged_batch apply_charges(storage::store& store, const quota_limits& limits,
                            const std::vector<quota_charge>& charges,
                            const std::vector<std::uint64_t>& reserve,
                            const std::vector<bool>& with_caller,
                            const std::vector<storage::counter_op>& extra,
                            std::int64_t now_unix) {
  charged_batch out;
  auto all_failed = [&](const caf::error& err) {
    log_store_failure(err);
    out.verdicts.clear();
    for (auto& charge : charges)
      out.verdicts.push_back(store_failed(charge, limits, now_unix));
    out.counters.clear();
    out.results.clear();
    out.reserved.assign(charges.size(), 0);
    out.failed = true;
    return std::move(out);
  };
  // The key lookups of the whole batch in one call.
  std::vector<std::string> hashes;
  std::vector<std::size_t> key_index(charges.size(), SIZE_MAX);
  for (std::size_t i = 0; i < charges.size(); ++i) {
    auto& c = charges[i];
    if (c.what != endpoint::signin && !c.refund && !c.key_hash.empty()) {
      key_index[i] = hashes.size();
      hashes.push_back(c.key_hash);
    }
  }
  std::vector<std::optional<storage::key_record>> keys;
  if (!hashes.empty()) {
    auto found = store.find_keys(hashes);
    if (!found)
      return all_failed(found.error());
    keys = std::move(*found);
  }
  // The month is the same for the whole batch: worked out once (it formats a date).
  auto month = storage::window_of(now_unix);
  std::vector<planned_charge> plans;
  plans.reserve(charges.size());
  // Give-backs go first, so a charge behind them in the batch may use what they free.
  out.counters.reserve(extra.size() + charges.size());
  out.counters = extra;
  for (std::size_t i = 0; i < charges.size(); ++i) {
    const std::optional<storage::key_record>* key = key_index[i] == SIZE_MAX
                                                      ? nullptr
                                                      : &keys[key_index[i]];
    plans.push_back(plan(limits, charges[i], key, now_unix, month));
    auto& op = plans.back().op;
    if (op.mode == storage::counter_mode::count) {
      // Calls counted ahead, never more than the limit's share; a charge without a caller
      // counts only those, and nothing at all against an address its key fell back to.
      auto ahead = i < reserve.size() ? std::min(reserve[i], op.limit / reserve_share) : 0;
      if (!plans.back().key_refusal.empty())
        ahead = 0;
      op.amount = (with_caller[i] ? 1 : 0) + ahead;
      if (op.amount == 0)
        op.mode = storage::counter_mode::peek;
    }
    out.counters.push_back(op);
  }
  // One batch, acknowledged by the store before any reply leaves. A failed batch counted
  // nothing, so every charge of it gets the same answer.
  auto counted = store.apply_counters(out.counters);
  if (!counted)
    return all_failed(counted.error());
  out.counters.erase(out.counters.begin(), out.counters.begin() + extra.size());
  out.results.assign(counted->begin() + extra.size(), counted->end());
  out.verdicts.reserve(charges.size());
  out.reserved.reserve(charges.size());
  for (std::size_t i = 0; i < charges.size(); ++i) {
    auto& result = out.results[i];
    auto own = with_caller[i] && result.granted > 0 ? 1 : 0;
    auto reserved = plans[i].op.mode == storage::counter_mode::count ? result.granted - own : 0;
    out.reserved.push_back(reserved);
    // The verdict shows the calls made, not the ones counted ahead.
    auto made = result;
    made.used -= std::min(made.used, reserved);
    out.verdicts.push_back(verdict_of(charges[i], plans[i], made, now_unix));
  }
  return out;
}

quota_actor::behavior_type quota_on(quota_pointer self, std::shared_ptr<storage::store> store,
                                    quota_settings settings) {
  self->state.store = std::move(store);
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
    auto now_unix = st.settings.now();
    for (auto& [id, r] : st.reservations)
      if (now_unix < r.verdict.reset)
        give_back(st, r);
    flush(self);
    release_held(self, false);
    if (auto err = self->state.store->flush())
      log_store_failure(err);
    self->quit(msg.reason);
  });
  return {
    [=](charge_atom, quota_charge& charge) -> caf::typed_response_promise<quota_verdict> {
      auto promise = self->make_response_promise<quota_verdict>();
      enqueue(self, {std::move(charge), promise, nullptr, {}, 0});
      return promise;
    },
    [=](charge_atom, quota_charge& charge, verdict_fn& then) {
      enqueue(self, {std::move(charge), {}, std::move(then), {}, 0});
    },
    [=](flush_atom) { flush(self); },
    [=](sweep_atom) { sweep(self); },
  };
}

} // namespace netherscope
