#include "actors/quota_actor.hpp"

#include <caf/all.hpp>

#include "net/api/telemetry.hpp"
#include "net/base/log.hpp"
#include "storage/lmdb_store.hpp"
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

// Answers every caller of a batch with its verdict, in order.
void deliver(std::vector<quota_state::waiting>& callers, std::vector<quota_verdict>& verdicts) {
  for (std::size_t i = 0; i < callers.size(); ++i) {
    if (callers[i].then)
      callers[i].then(std::move(verdicts[i]));
    else
      callers[i].promise.deliver(std::move(verdicts[i]));
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
        held.verdicts[i] = store_failed(held.charges[i], st.settings.limits, now);
    }
  }
  deliver(held.callers, held.verdicts);
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

void flush(quota_pointer self) {
  auto& st = self->state;
  st.flush_scheduled = false;
  auto batch = std::move(st.pending);
  st.pending.clear();
  // The next batch is likely as large as this one: grown once, not doubling per charge.
  st.pending.reserve(batch.size());
  if (batch.empty()) {
    // No charge came while the held batch waited: make it durable now.
    release_held(self, false);
    return;
  }
  std::vector<quota_charge> charges;
  charges.reserve(batch.size());
  for (auto& entry : batch)
    charges.push_back(entry.charge);
  auto verdicts = apply_charges(*st.store, st.settings.limits, charges, st.settings.now());
  // The batch is one store operation (one transaction or one script call); a failed one
  // answered every charge unavailable and counted nothing.
  auto& counters = process_telemetry();
  bool failed = !verdicts.empty() && verdicts.front().error.code == error_code::unavailable;
  counters.count_store(st.store->backend(), failed);
  if (!failed)
    for (const auto& verdict : verdicts)
      count_refusal(counters, verdict);
  if (!st.store->defers_durability() || failed) {
    // A failed batch made nothing durable, the held one included.
    release_held(self, !failed);
    deliver(batch, verdicts);
    return;
  }
  // This batch's commit made the held one durable; this one waits for the next commit, or
  // for the flush scheduled here when no charge comes before it. Under load each batch so
  // costs one fsync instead of two; an idle service pays the second one at once.
  release_held(self, true);
  st.held = {std::move(batch), std::move(charges), std::move(verdicts)};
  schedule_flush(self);
}

// Adds a charge to the next batch.
void enqueue(quota_pointer self, quota_state::waiting&& entry) {
  self->state.pending.push_back(std::move(entry));
  schedule_flush(self);
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
  auto all_failed = [&](const caf::error& err) {
    log_store_failure(err);
    std::vector<quota_verdict> out;
    for (auto& charge : charges)
      out.push_back(store_failed(charge, limits, now_unix));
    return out;
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
  std::vector<storage::counter_op> ops;
  plans.reserve(charges.size());
  ops.reserve(charges.size());
  for (std::size_t i = 0; i < charges.size(); ++i) {
    const std::optional<storage::key_record>* key = key_index[i] == SIZE_MAX
                                                      ? nullptr
                                                      : &keys[key_index[i]];
    plans.push_back(plan(limits, charges[i], key, now_unix, month));
    ops.push_back(plans.back().op);
  }
  // One batch, acknowledged by the store before any reply leaves. A failed batch counted
  // nothing, so every charge of it gets the same answer.
  auto counted = store.apply_counters(ops);
  if (!counted)
    return all_failed(counted.error());
  std::vector<quota_verdict> out;
  out.reserve(charges.size());
  for (std::size_t i = 0; i < charges.size(); ++i)
    out.push_back(verdict_of(charges[i], plans[i], (*counted)[i], now_unix));
  return out;
}

std::shared_ptr<storage::store> lmdb_store_of(const store_handles& handles) {
  storage::lmdb_parts parts;
  parts.main = handles.env;
  parts.usage = handles.usage;
  parts.accounts = handles.accounts;
  parts.auth = handles.auth;
  return std::make_shared<storage::lmdb_store>(std::move(parts));
}

quota_actor::behavior_type quota_on(quota_pointer self, std::shared_ptr<storage::store> store,
                                    quota_settings settings) {
  self->state.store = std::move(store);
  self->state.settings = std::move(settings);
  // Charges still waiting when the service stops are committed before the actor goes, so a
  // call that was answered is never lost to a SIGTERM.
  self->set_exit_handler([self](const caf::exit_msg& msg) {
    flush(self);
    release_held(self, false);
    if (auto err = self->state.store->flush())
      log_store_failure(err);
    self->quit(msg.reason);
  });
  return {
    [=](charge_atom, quota_charge& charge) -> caf::typed_response_promise<quota_verdict> {
      auto promise = self->make_response_promise<quota_verdict>();
      enqueue(self, {std::move(charge), promise, nullptr});
      return promise;
    },
    [=](charge_atom, quota_charge& charge, verdict_fn& then) {
      enqueue(self, {std::move(charge), {}, std::move(then)});
    },
    [=](flush_atom) { flush(self); },
  };
}

quota_actor::behavior_type quota(quota_pointer self, store_handles store,
                                 quota_settings settings) {
  return quota_on(self, lmdb_store_of(store), std::move(settings));
}

} // namespace netherscope
