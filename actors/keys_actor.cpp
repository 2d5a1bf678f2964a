#include "actors/keys_actor.hpp"

#include <caf/all.hpp>

#include "net/base/log.hpp"
#include "storage/accounts.hpp"

namespace netherscope {

namespace {

account_view failed(error_code code, std::string message) {
  account_view view;
  view.error = make_failure(code, std::move(message));
  return view;
}

account_view store_failed(const caf::error& err) {
  log::write(log::level::error, "keys_store_failed", {{"error", caf::to_string(err)}});
  return failed(error_code::unavailable, "the account store failed; try again shortly");
}

// Fills in usage and limits; the transaction is the one that made any change, so the view
// and the change agree.
account_view describe(storage::txn& t, const store_handles& store, const quota_limits& limits,
                      const storage::account_record& account, std::int64_t now) {
  auto window = storage::window_of(now);
  account_view view;
  view.user_id = account.user_id;
  view.login = account.login;
  view.created = account.created_unix;
  view.month = window.label;
  view.reset = window.reset_unix;
  view.info_limit = limits.info_key;
  view.offer_limit = limits.offer_key;
  auto used = storage::usage_of(t, store.usage, account.user_id, window.label);
  if (!used)
    return store_failed(used.error());
  view.info_used = used->info;
  view.offer_used = used->offer;
  return view;
}

template <class F>
account_view in_write_txn(const store_handles& store, F fn) {
  auto t = storage::txn::begin(*store.env, true);
  if (!t)
    return store_failed(t.error());
  auto view = fn(*t);
  if (!view.error.ok())
    return view;
  if (auto err = t->commit())
    return store_failed(err);
  return view;
}

account_view unknown_key() {
  return failed(error_code::unauthorized, "unknown or revoked API key");
}

// Runs fn(account) for the account whose active key has this hash, or says why not.
template <class F>
account_view with_account(storage::txn& t, const store_handles& store,
                          const std::string& key_hash, F fn) {
  auto account = storage::account_by_key(t, store.accounts, key_hash);
  if (!account)
    return store_failed(account.error());
  if (!*account)
    return unknown_key();
  return fn(**account);
}

// Issues a new key for an account and shows it once.
account_view issue(storage::txn& t, const store_handles& store, const quota_limits& limits,
                   std::uint64_t user_id, const std::string& login, std::int64_t now) {
  auto issued = storage::issue_key(t, store.accounts, user_id, login, now);
  if (!issued)
    return store_failed(issued.error());
  auto view = describe(t, store, limits, issued->account, now);
  view.new_key = std::move(issued->key);
  return view;
}

} // namespace

keys_actor::behavior_type keys(keys_actor::pointer self, store_handles store,
                               quota_limits limits, std::function<std::int64_t()> now) {
  (void) self;
  return {
    [=](signin_atom, std::uint64_t user_id, const std::string& login) {
      return in_write_txn(store, [&](storage::txn& t) {
        return issue(t, store, limits, user_id, login, now());
      });
    },
    [=](account_atom, const std::string& key_hash) {
      auto t = storage::txn::begin(*store.env, false);
      if (!t)
        return store_failed(t.error());
      return with_account(*t, store, key_hash, [&](storage::account_record& account) {
        return describe(*t, store, limits, account, now());
      });
    },
    [=](rotate_atom, const std::string& key_hash) {
      return in_write_txn(store, [&](storage::txn& t) {
        return with_account(t, store, key_hash, [&](storage::account_record& account) {
          return issue(t, store, limits, account.user_id, account.login, now());
        });
      });
    },
    [=](revoke_atom, const std::string& key_hash) {
      return in_write_txn(store, [&](storage::txn& t) {
        return with_account(t, store, key_hash, [&](storage::account_record& account) {
          auto revoked = storage::revoke_active_key(t, store.accounts, account.user_id);
          if (!revoked)
            return store_failed(revoked.error());
          account.active_key_hash.clear();
          return describe(t, store, limits, account, now());
        });
      });
    },
  };
}

} // namespace netherscope
