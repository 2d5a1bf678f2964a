#include "actors/keys_actor.hpp"

#include <caf/all.hpp>

#include "base/crypto.hpp"
#include "base/log.hpp"
#include "storage/accounts.hpp"
#include "storage/auth_records.hpp"

namespace netherscope::actors {


namespace {

using keys_pointer = actors::keys_actor::stateful_pointer<keys_state>;

core::account_view account_failed(core::failure error) {
  core::account_view view;
  view.error = std::move(error);
  return view;
}

core::account_view account_failed(core::error_code code, std::string message) {
  return account_failed(make_failure(code, std::move(message)));
}

core::account_view store_failed(const caf::error& err) {
  base::log::write(base::log::level::error, "keys_store_failed", {{"error", caf::to_string(err)}});
  return account_failed(core::error_code::unavailable, "the account store failed; try again shortly");
}

// Describes an account and its limits; add_usage fills in its usage once the record
// transaction is over (the counters live outside the record tables on Redis).
core::account_view describe(const quota_limits& limits, const storage::account_record& account,
                      std::int64_t now) {
  auto window = storage::window_of(now);
  core::account_view view;
  view.user_id = account.user_id;
  view.login = account.login;
  view.created = account.created_unix;
  view.month = window.label;
  view.reset = window.reset_unix;
  view.info_limit = limits.info_key;
  view.offer_limit = limits.offer_key;
  view.key_active = !account.active_key_hash.empty();
  return view;
}

// Fills in this month's usage of a view that describes an account.
core::account_view add_usage(storage::store& store, core::account_view view) {
  if (!view.error.ok() || view.month.empty())
    return view;
  auto used = storage::usage_of(store, view.user_id, view.month);
  if (!used) {
    // A change that was committed (a key issued, a session opened) is shown whatever the
    // usage read does: failing the reply would lose a key that is already the account's only
    // one, or a session whose cookie is never set.
    if (view.new_key.empty() && view.session.empty())
      return store_failed(used.error());
    base::log::write(base::log::level::warn, "account_usage_unread",
               {{"error", caf::to_string(used.error())}});
    view.usage_known = false;
    return view;
  }
  view.info_used = used->info;
  view.offer_used = used->offer;
  return view;
}

// Runs fn in one record transaction and keeps its writes when it succeeded. A refusal (a
// limit, a wrong token) is an answer too, but nothing it may have written is kept. On Redis
// fn may run again when another replica changed the records first.
template <class F>
core::account_view in_records(storage::store& store, bool write, F fn) {
  core::account_view view;
  auto err = store.with_records(write, [&](storage::record_txn& t) -> caf::expected<bool> {
    view = fn(t);
    return view.error.ok();
  });
  if (err)
    return store_failed(err);
  return add_usage(store, std::move(view));
}

core::account_view unknown_key() {
  return account_failed(core::error_code::unauthorized, "unknown or revoked API key");
}

// Runs fn(account) for the account whose active key has this hash, or says why not.
template <class F>
core::account_view with_account(storage::record_txn& t, const std::string& key_hash, F fn) {
  auto account = storage::account_by_key(t, key_hash);
  if (!account)
    return store_failed(account.error());
  if (!*account)
    return unknown_key();
  return fn(**account);
}

// Issues a new key for an account within the hourly limit, and shows it once.
core::account_view rotate(storage::record_txn& t, const keys_settings& cfg,
                    const storage::account_record& account, std::int64_t now) {
  auto allowed = storage::take_rotation(t, account.user_id, now, cfg.rotations_per_hour);
  if (!allowed)
    return store_failed(allowed.error());
  if (!allowed->ok())
    return account_failed(std::move(*allowed));
  auto issued = storage::issue_key(t, account.user_id, account.login, now);
  if (!issued)
    return store_failed(issued.error());
  auto view = describe(cfg.limits, issued->account, now);
  view.new_key = std::move(issued->key);
  return view;
}

core::account_view revoke(storage::record_txn& t, const keys_settings& cfg,
                    storage::account_record& account, std::int64_t now) {
  auto revoked = storage::revoke_active_key(t, account.user_id, now);
  if (!revoked)
    return store_failed(revoked.error());
  account.active_key_hash.clear();
  return describe(cfg.limits, account, now);
}

core::account_view sign_in(storage::record_txn& t, const keys_settings& cfg, std::uint64_t user_id,
                     const std::string& login, const std::string& old_session_hash,
                     std::int64_t now) {
  auto result = storage::sign_in(t, user_id, login, now);
  if (!result)
    return store_failed(result.error());
  // A new session id at every sign-in: a session id an attacker planted in this browser
  // before the sign-in (session fixation) ends here and never becomes signed in.
  if (auto err = storage::end_session(t, old_session_hash))
    return store_failed(err);
  auto session = storage::open_session(t, user_id, now);
  if (!session)
    return store_failed(session.error());
  auto view = describe(cfg.limits, result->account, now);
  view.new_key = std::move(result->first_key);
  view.session = std::move(session->id);
  view.csrf = std::move(session->csrf);
  return view;
}

core::account_view signed_out_page() {
  return account_failed(core::error_code::unauthorized,
                "you are not signed in, or your session expired; sign in to see your account");
}

// One request of the account page, in one write transaction: the session is looked up in the
// same transaction that acts on it, so a sign-out and an action never cross.
core::account_view serve_page(storage::record_txn& t, const keys_settings& cfg,
                        const page_request& req, std::int64_t now) {
  auto session = storage::find_session(t, req.session_hash, now);
  if (!session)
    return store_failed(session.error());
  if (!*session)
    return signed_out_page();
  // The token is checked in constant time: it is a secret of the page, like a password.
  if (req.action != page_action::view && !base::same_secret(req.csrf, (*session)->csrf))
    return account_failed(core::error_code::csrf_rejected,
                  "this form is not from your current account page; reload the page and try "
                  "again");
  if (req.action == page_action::sign_out) {
    if (auto err = storage::end_session(t, req.session_hash))
      return store_failed(err);
    return core::account_view{};
  }
  auto account = storage::get_account(t, (*session)->user_id);
  if (!account)
    return store_failed(account.error());
  if (!*account)
    return signed_out_page();
  core::account_view view;
  switch (req.action) {
    case page_action::new_key:
      view = rotate(t, cfg, **account, now);
      break;
    case page_action::revoke:
      view = revoke(t, cfg, **account, now);
      break;
    default:
      view = describe(cfg.limits, **account, now);
  }
  view.csrf = (*session)->csrf;
  return view;
}

void schedule_sweep(keys_pointer self, bool soon) {
  auto interval = self->state.settings.sweep_interval;
  if (interval.count() <= 0)
    return;
  // A prune that ran out of budget goes on after a short pause, so a backlog (a store from
  // before pruning existed) drains without holding the writer lock for long at a time.
  self->delayed_send(self, soon ? std::chrono::milliseconds(200) : interval, sweep_atom::value);
}

void sweep(keys_pointer self) {
  auto& st = self->state;
  auto now = st.settings.now();
  storage::prune_report report;
  auto err = st.store->with_records(true, [&](storage::record_txn& t) -> caf::expected<bool> {
    auto pruned = storage::prune_expired(t, now, now - storage::revoked_key_retention_seconds,
                                         st.settings.sweep_limit);
    if (!pruned)
      return pruned.error();
    report = *pruned;
    return report.total() > 0;
  });
  if (err) {
    store_failed(err);
    return schedule_sweep(self, false);
  }
  if (report.total() > 0)
    base::log::write(base::log::level::debug, "keys_pruned",
               {{"states", report.states},
                {"sessions", report.sessions},
                {"revoked_keys", report.revoked_keys},
                {"counters", report.counters}});
  schedule_sweep(self, report.more);
}

} // namespace

actors::keys_actor::behavior_type keys(keys_pointer self, std::shared_ptr<storage::store> store,
                               keys_settings settings) {
  self->state.store = std::move(store);
  self->state.settings = std::move(settings);
  schedule_sweep(self, false);
  return {
    [=](signin_atom, std::uint64_t user_id, const std::string& login,
        const std::string& old_session_hash) {
      auto& st = self->state;
      return in_records(*st.store, true, [&](storage::record_txn& t) {
        return sign_in(t, st.settings, user_id, login, old_session_hash, st.settings.now());
      });
    },
    [=](claim_atom, const std::string& canonical_state, std::int64_t expires) -> core::failure {
      auto& st = self->state;
      core::failure answer;
      // Committed before the code goes to the provider: a replica or a restarted service
      // that sees the same callback finds the state used.
      auto err = st.store->with_records(true, [&](storage::record_txn& t) -> caf::expected<bool> {
        auto claimed = storage::claim_state(t, canonical_state, expires, st.settings.now());
        if (!claimed)
          return claimed.error();
        answer = *claimed ? core::failure{}
                          : core::make_failure(core::error_code::invalid_input,
                                         "this sign-in was completed already; start again");
        return *claimed;
      });
      if (err)
        return store_failed(err).error;
      return answer;
    },
    [=](account_atom, const std::string& key_hash) {
      auto& st = self->state;
      return in_records(*st.store, false, [&](storage::record_txn& t) {
        return with_account(t, key_hash, [&](storage::account_record& account) {
          return describe(st.settings.limits, account, st.settings.now());
        });
      });
    },
    [=](rotate_atom, const std::string& key_hash) {
      auto& st = self->state;
      return in_records(*st.store, true, [&](storage::record_txn& t) {
        return with_account(t, key_hash, [&](storage::account_record& account) {
          return rotate(t, st.settings, account, st.settings.now());
        });
      });
    },
    [=](revoke_atom, const std::string& key_hash) {
      auto& st = self->state;
      return in_records(*st.store, true, [&](storage::record_txn& t) {
        return with_account(t, key_hash, [&](storage::account_record& account) {
          return revoke(t, st.settings, account, st.settings.now());
        });
      });
    },
    [=](page_atom, const page_request& req) {
      auto& st = self->state;
      // Showing the page changes nothing, so it needs no writer lock.
      return in_records(*st.store, req.action != page_action::view,
                        [&](storage::record_txn& t) {
                          return serve_page(t, st.settings, req, st.settings.now());
                        });
    },
    [=](sweep_atom) { sweep(self); },
  };
}

} // namespace netherscope::actors
