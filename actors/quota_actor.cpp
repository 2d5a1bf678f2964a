#include "actors/quota_actor.hpp"

#include <caf/all.hpp>

#include "net/base/log.hpp"
#include "storage/records.hpp"

namespace netherscope {

namespace {

using quota_pointer = quota_actor::stateful_pointer<quota_state>;

void log_store_failure(const caf::error& err) {
  log::write(log::level::error, "quota_store_failed", {{"error", caf::to_string(err)}});
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

// Counts (or only reads, or gives back) one counter; a full counter is never incremented.
caf::expected<quota_verdict> count_against(storage::txn& t, const store_handles& store,
                                           const std::string& key, std::uint64_t limit,
                                           bool count, bool refund, std::int64_t now_unix,
                                           std::int64_t reset) {
  auto used = storage::read_count(t, store.usage, key);
  if (!used)
    return used.error();
  quota_verdict verdict;
  verdict.limit = limit;
  verdict.reset = reset;
  if (refund) {
    auto after = *used > 0 ? *used - 1 : 0;
    if (auto err = storage::write_count(t, store.usage, key, after))
      return err;
    verdict.remaining = after >= limit ? 0 : limit - after;
    return verdict;
  }
  if (count && *used >= limit) {
    verdict.remaining = 0;
    verdict.error = make_failure(error_code::quota_exhausted,
                                 "monthly quota of " + std::to_string(limit)
                                   + " calls exhausted; it resets at the start of next month "
                                     "(UTC)");
    verdict.error.retry_after = static_cast<std::uint32_t>(std::max<std::int64_t>(
      1, reset - now_unix));
    return verdict;
  }
  auto after = count ? *used + 1 : *used;
  if (count) {
    if (auto err = storage::write_count(t, store.usage, key, after))
      return err;
  }
  verdict.remaining = after >= limit ? 0 : limit - after;
  return verdict;
}

void flush(quota_pointer self) {
  auto& st = self->state;
  st.flush_scheduled = false;
  auto batch = std::move(st.pending);
  st.pending.clear();
  if (batch.empty())
    return;
  auto now = st.settings.now();
  std::vector<quota_verdict> verdicts;
  verdicts.reserve(batch.size());
  caf::error failed;
  auto t = storage::txn::begin(*st.store.env, true);
  if (!t) {
    failed = t.error();
    log_store_failure(failed);
  } else {
    for (auto& [charge, promise] : batch) {
      auto verdict = apply_charge(*t, st.store, st.settings.limits, charge, now);
      if (verdict.error.code == error_code::unavailable) {
        // apply_charge logged the cause.
        failed = make_error(caf::sec::runtime_error, verdict.error.message);
        break;
      }
      verdicts.push_back(std::move(verdict));
    }
    // One commit, one fsync, for the whole batch; no reply leaves before it.
    if (!failed) {
      failed = t->commit();
      if (failed)
        log_store_failure(failed);
    }
  }
  // A failed transaction counted nothing, so every charge of the batch gets the same answer.
  for (std::size_t i = 0; i < batch.size(); ++i)
    batch[i].second.deliver(failed ? store_failed(batch[i].first, st.settings.limits, now)
                                   : std::move(verdicts[i]));
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

namespace {

// Sign-in callbacks: per address and clock hour, with a code of their own, so a shared
// address that spent its monthly info quota can still sign in, and a stream of made-up
// callbacks stops costing requests to the provider after a few.
quota_verdict charge_signin(storage::txn& t, const store_handles& store,
                            const quota_limits& limits, const quota_charge& charge,
                            std::int64_t now_unix) {
  auto hour = storage::hour_of(now_unix);
  auto verdict = count_against(t, store,
                               storage::usage_key("signin", "ip", charge.client, hour.label),
                               limits.signin_ip, charge.count, false, now_unix,
                               hour.reset_unix);
  if (!verdict) {
    log_store_failure(verdict.error());
    return store_failed(charge, limits, now_unix);
  }
  if (verdict->error.code == error_code::quota_exhausted) {
    auto retry = verdict->error.retry_after;
    verdict->error = make_failure(error_code::signin_rate_limited,
                                  "at most " + std::to_string(limits.signin_ip)
                                    + " sign-in attempts per address per hour; try again "
                                      "after the hour");
    verdict->error.retry_after = retry;
  }
  verdict->scope = quota_scope::ip;
  return *verdict;
}

// Gives a call back to exactly the counter its charge counted it against.
quota_verdict refund_charged(storage::txn& t, const store_handles& store,
                             const quota_limits& limits, const quota_charge& charge,
                             std::int64_t now_unix) {
  // The month of the charge, which its verdict's reset names; a refund that names none is
  // for the current month.
  auto window = storage::window_of(charge.charged_reset > 0 ? charge.charged_reset - 1
                                                            : now_unix);
  auto key_scope = charge.charged_scope == quota_scope::key;
  auto subject = key_scope ? std::to_string(charge.charged_user_id) : charge.client;
  auto verdict = count_against(t, store,
                               storage::usage_key(endpoint_name(charge.what),
                                                  key_scope ? "key" : "ip", subject,
                                                  window.label),
                               limits.of(charge.what, charge.charged_scope), false, true,
                               now_unix, window.reset_unix);
  if (!verdict) {
    log_store_failure(verdict.error());
    return store_failed(charge, limits, now_unix);
  }
  verdict->scope = charge.charged_scope;
  verdict->user_id = key_scope ? charge.charged_user_id : 0;
  return *verdict;
}

} // namespace

quota_verdict apply_charge(storage::txn& t, const store_handles& store,
                           const quota_limits& limits, const quota_charge& charge,
                           std::int64_t now_unix) {
  if (charge.what == endpoint::signin)
    return charge_signin(t, store, limits, charge, now_unix);
  if (charge.refund)
    return refund_charged(t, store, limits, charge, now_unix);
  auto window = storage::window_of(now_unix);
  auto name = endpoint_name(charge.what);
  auto failed = [&](const caf::error& err) {
    log_store_failure(err);
    return store_failed(charge, limits, now_unix);
  };
  auto ip_charge = [&]() -> quota_verdict {
    auto verdict = count_against(t, store,
                                 storage::usage_key(name, "ip", charge.client, window.label),
                                 limits.of(charge.what, quota_scope::ip), charge.count,
                                 false, now_unix, window.reset_unix);
    if (!verdict)
      return failed(verdict.error());
    verdict->scope = quota_scope::ip;
    return *verdict;
  };
  if (charge.key_hash.empty())
    return ip_charge();
  auto key = storage::get_key(t, store.accounts, charge.key_hash);
  if (!key)
    return failed(key.error());
  if (!*key || (*key)->revoked) {
    // Never silently anonymous: the caller meant to use a key, so say it does not work, and
    // count the call against the address it came from.
    auto verdict = ip_charge();
    if (verdict.error.code == error_code::unavailable)
      return verdict;
    verdict.error = make_failure(error_code::unauthorized,
                                 *key ? "this API key was revoked"
                                      : "unknown API key");
    return verdict;
  }
  auto subject = std::to_string((*key)->user_id);
  auto verdict = count_against(t, store, storage::usage_key(name, "key", subject, window.label),
                               limits.of(charge.what, quota_scope::key), charge.count,
                               false, now_unix, window.reset_unix);
  if (!verdict)
    return failed(verdict.error());
  verdict->scope = quota_scope::key;
  verdict->user_id = (*key)->user_id;
  return *verdict;
}

quota_actor::behavior_type quota(quota_pointer self, store_handles store,
                                 quota_settings settings) {
  self->state.store = std::move(store);
  self->state.settings = std::move(settings);
  return {
    [=](charge_atom, quota_charge& charge) -> caf::typed_response_promise<quota_verdict> {
      auto& st = self->state;
      auto promise = self->make_response_promise<quota_verdict>();
      st.pending.emplace_back(std::move(charge), promise);
      // The flush message queues behind every charge already in the mailbox, so all of
      // them share its transaction: group commit without a timer.
      if (!st.flush_scheduled) {
        st.flush_scheduled = true;
        self->send(self, flush_atom::value);
      }
      return promise;
    },
    [=](flush_atom) { flush(self); },
  };
}

} // namespace netherscope
