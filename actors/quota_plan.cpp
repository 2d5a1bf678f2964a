#include "actors/quota_plan.hpp"

#include <algorithm>
#include <chrono>

#include "base/log.hpp"

namespace netherscope::actors {


namespace {

storage::counter_op counter(std::string_view endpoint, core::quota_scope scope, std::string subject,
                            std::string window, std::int64_t reset, std::uint64_t limit,
                            core::charge_mode mode) {
  storage::counter_op op;
  op.endpoint = std::string{endpoint};
  op.scope = scope == core::quota_scope::key ? "key" : "ip";
  op.subject = std::move(subject);
  op.window = std::move(window);
  op.expires_unix = reset;
  op.limit = limit;
  op.mode = mode;
  return op;
}

} // namespace

std::string_view endpoint_name(core::endpoint what) {
  switch (what) {
    case core::endpoint::info:
      return "info";
    case core::endpoint::offer:
      return "offer";
    case core::endpoint::signin:
      return "signin";
  }
  return "info";
}

planned_charge plan_charge(const quota_limits& limits, const core::quota_charge& charge,
                           const std::optional<storage::key_record>* key, std::int64_t now_unix,
                           const storage::month_window& month) {
  auto mode = charge.counts() ? core::charge_mode::count : core::charge_mode::peek;
  planned_charge out;
  if (charge.what == core::endpoint::signin) {
    // Sign-in callbacks: per address and clock hour, with a code of their own, so a shared
    // address that spent its monthly info quota can still sign in.
    auto hour = storage::hour_of(now_unix);
    out.op = counter("signin", core::quota_scope::ip, charge.client, hour.label, hour.reset_unix,
                     limits.signin_ip, mode);
    return out;
  }
  if (charge.refunds()) {
    // Gives a call back to exactly the counter its charge counted it against: the month of
    // the charge, which its verdict's reset names; the key is not looked up again.
    auto window = storage::window_of(charge.charged_reset > 0 ? charge.charged_reset - 1
                                                              : now_unix);
    auto key_scope = charge.charged_scope == core::quota_scope::key;
    out.scope = charge.charged_scope;
    out.user_id = key_scope ? charge.charged_user_id : 0;
    out.op = counter(endpoint_name(charge.what), charge.charged_scope,
                     key_scope ? std::to_string(charge.charged_user_id) : charge.client,
                     window.label, window.reset_unix,
                     limits.of(charge.what, charge.charged_scope), core::charge_mode::refund);
    return out;
  }
  auto name = endpoint_name(charge.what);
  if (key && (!*key || (*key)->revoked)) {
    // Never silently anonymous: the caller meant to use a key, so say it does not work, and
    // count the call against the address it came from.
    out.key_refusal = *key ? "this API key was revoked" : "unknown API key";
  }
  if (!key || !out.key_refusal.empty()) {
    out.op = counter(name, core::quota_scope::ip, charge.client, month.label, month.reset_unix,
                     limits.of(charge.what, core::quota_scope::ip), mode);
    return out;
  }
  out.scope = core::quota_scope::key;
  out.user_id = (*key)->user_id;
  out.op = counter(name, core::quota_scope::key, std::to_string(out.user_id), month.label,
                   month.reset_unix, limits.of(charge.what, core::quota_scope::key), mode);
  return out;
}

core::quota_verdict verdict_of(const core::quota_charge& charge, const planned_charge& planned,
                         const storage::counter_result& result, std::int64_t now_unix) {
  core::quota_verdict verdict;
  verdict.scope = planned.scope;
  verdict.user_id = planned.user_id;
  verdict.limit = planned.op.limit;
  verdict.reset = planned.op.expires_unix;
  verdict.remaining = result.used >= verdict.limit ? 0 : verdict.limit - result.used;
  if (result.refused) {
    verdict.remaining = 0;
    auto retry = static_cast<std::uint32_t>(std::max<std::int64_t>(1, verdict.reset - now_unix));
    if (charge.what == core::endpoint::signin)
      verdict.error = core::make_failure(core::error_code::signin_rate_limited,
                                   "at most " + std::to_string(verdict.limit)
                                     + " sign-in attempts per address per hour; try again "
                                       "after the hour");
    else
      verdict.error = core::make_failure(core::error_code::quota_exhausted,
                                   "monthly quota of " + std::to_string(verdict.limit)
                                     + " calls exhausted; it resets at the start of next "
                                       "month (UTC)");
    verdict.error.retry_after = retry;
  }
  if (!planned.key_refusal.empty())
    verdict.error = core::make_failure(core::error_code::unauthorized, planned.key_refusal);
  return verdict;
}

core::quota_verdict store_failed(const core::quota_charge& charge, const quota_limits& limits,
                           std::int64_t now_unix) {
  // The scope is key when the call sent one: whether the key is good may be what could not
  // be read.
  core::quota_verdict verdict;
  verdict.error = core::make_failure(core::error_code::unavailable,
                               "usage could not be recorded; try again shortly");
  verdict.scope = charge.key_hash.empty() ? core::quota_scope::ip : core::quota_scope::key;
  verdict.limit = limits.of(charge.what, verdict.scope);
  verdict.reset = storage::window_of(now_unix).reset_unix;
  return verdict;
}

key_lookups keys_to_find(const std::vector<core::quota_charge>& charges) {
  key_lookups out;
  out.index.reserve(charges.size());
  for (auto& c : charges) {
    if (c.what != core::endpoint::signin && !c.refunds() && !c.key_hash.empty()) {
      out.index.emplace_back(out.hashes.size());
      out.hashes.push_back(c.key_hash);
    } else {
      out.index.emplace_back();
    }
  }
  return out;
}

batch_plan plan_batch(const quota_limits& limits, const std::vector<core::quota_charge>& charges,
                      const std::vector<std::uint64_t>& reserve,
                      const std::vector<bool>& with_caller,
                      std::vector<storage::counter_op> give_backs, const key_lookups& lookups,
                      const std::vector<std::optional<storage::key_record>>& keys,
                      std::int64_t now_unix) {
  batch_plan out;
  // The month is the same for the whole batch: worked out once (it formats a date).
  auto month = storage::window_of(now_unix);
  out.charges.reserve(charges.size());
  out.give_backs = give_backs.size();
  out.ops = std::move(give_backs);
  out.ops.reserve(out.give_backs + charges.size());
  for (std::size_t i = 0; i < charges.size(); ++i) {
    auto at = i < lookups.index.size() ? lookups.index[i] : std::nullopt;
    const std::optional<storage::key_record>* key = at ? &keys[*at] : nullptr;
    out.charges.push_back(plan_charge(limits, charges[i], key, now_unix, month));
    auto& planned = out.charges.back();
    auto& op = planned.op;
    if (op.mode == core::charge_mode::count) {
      // Calls counted ahead, never more than the limit's share; a charge without a caller
      // counts only those, and nothing at all against an address its key fell back to.
      auto ahead = i < reserve.size() ? std::min(reserve[i], op.limit / reserve_share) : 0;
      if (!planned.key_refusal.empty())
        ahead = 0;
      op.amount = (with_caller[i] ? 1 : 0) + ahead;
      if (op.amount == 0)
        op.mode = core::charge_mode::peek;
    }
    out.ops.push_back(op);
  }
  return out;
}

charged_batch read_batch(batch_plan&& plan, const std::vector<core::quota_charge>& charges,
                         const std::vector<bool>& with_caller,
                         const std::vector<storage::counter_result>& results,
                         std::int64_t now_unix) {
  charged_batch out;
  out.counters.assign(std::make_move_iterator(plan.ops.begin() + plan.give_backs),
                      std::make_move_iterator(plan.ops.end()));
  out.results.assign(results.begin() + plan.give_backs, results.end());
  out.verdicts.reserve(charges.size());
  out.reserved.reserve(charges.size());
  for (std::size_t i = 0; i < charges.size(); ++i) {
    auto& result = out.results[i];
    auto own = with_caller[i] && result.granted > 0 ? 1 : 0;
    auto reserved = out.counters[i].mode == core::charge_mode::count ? result.granted - own : 0;
    out.reserved.push_back(reserved);
    auto made = result;
    made.used -= std::min(made.used, reserved);
    out.verdicts.push_back(actors::verdict_of(charges[i], plan.charges[i], made, now_unix));
  }
  return out;
}

charged_batch failed_batch(const std::vector<core::quota_charge>& charges, const quota_limits& limits,
                           std::int64_t now_unix) {
  charged_batch out;
  out.verdicts.reserve(charges.size());
  for (auto& charge : charges)
    out.verdicts.push_back(actors::store_failed(charge, limits, now_unix));
  out.reserved.assign(charges.size(), 0);
  out.failed = true;
  return out;
}

std::vector<core::quota_verdict> apply_charges(storage::store& store, const quota_limits& limits,
                                         const std::vector<core::quota_charge>& charges,
                                         std::int64_t now_unix) {
  return apply_charges(store, limits, charges, {}, std::vector<bool>(charges.size(), true), {},
                       now_unix)
    .verdicts;
}

charged_batch apply_charges(storage::store& store, const quota_limits& limits,
                            const std::vector<core::quota_charge>& charges,
                            const std::vector<std::uint64_t>& reserve,
                            const std::vector<bool>& with_caller,
                            const std::vector<storage::counter_op>& extra,
                            std::int64_t now_unix) {
  // The key lookups of the whole batch in one call.
  auto lookups = keys_to_find(charges);
  std::vector<std::optional<storage::key_record>> keys;
  if (!lookups.hashes.empty()) {
    auto found = store.find_keys(lookups.hashes);
    if (!found) {
      log_store_failure(found.error());
      return failed_batch(charges, limits, now_unix);
    }
    keys = std::move(*found);
  }
  auto plan = plan_batch(limits, charges, reserve, with_caller, extra, lookups, keys, now_unix);
  // One batch, acknowledged by the store before any reply leaves. A failed batch is answered
  // as counting nothing, so every charge of it gets the same answer; it may still have been
  // counted (on a Redis master whose replicas did not acknowledge it), which errs against
  // the caller, never against the quota.
  auto counted = store.apply_counters(plan.ops);
  if (!counted) {
    log_store_failure(counted.error());
    return failed_batch(charges, limits, now_unix);
  }
  return read_batch(std::move(plan), charges, with_caller, *counted, now_unix);
}

void log_store_failure(const caf::error& err) {
  // A store that is down fails every batch: one line per 10 s, with how many it stands for.
  static base::log::sampler failures{std::chrono::seconds{10}};
  base::log::write_sampled(failures, base::log::level::error, "quota_store_failed",
                     {{"error", caf::to_string(err)}});
}

} // namespace netherscope::actors
