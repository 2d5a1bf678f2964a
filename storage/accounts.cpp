#include "storage/accounts.hpp"

#include <algorithm>
#include <cctype>

#include <caf/sec.hpp>

#include "core/api_key.hpp"

namespace netherscope::storage {

namespace {

// Marks the key with this hash revoked and remembers it in the account's list of recent
// revoked keys; the record stays, so a revoked key is told apart from an unknown one. The
// oldest records past keep_revoked_keys are deleted here, so rotating in a loop cannot grow
// the store. The caller writes the account back.
caf::error mark_revoked(record_txn& t, account_record& account,
                        const std::string& key_hash, std::int64_t now_unix) {
  auto old = get_key(t, key_hash);
  if (!old)
    return old.error();
  if (*old) {
    (*old)->revoked = true;
    (*old)->revoked_unix = now_unix;
    if (auto err = t.put(record_table::accounts, key_key(key_hash), encode(**old)))
      return err;
    account.revoked_key_hashes.push_back(key_hash);
  }
  auto& kept = account.revoked_key_hashes;
  while (kept.size() > keep_revoked_keys) {
    if (auto err = t.del(record_table::accounts, key_key(kept.front())))
      return err;
    kept.erase(kept.begin());
  }
  return {};
}

caf::expected<account_record> load_or_new(record_txn& t, std::uint64_t user_id,
                                          std::int64_t now_unix) {
  auto existing = get_account(t, user_id);
  if (!existing)
    return existing.error();
  if (*existing)
    return std::move(**existing);
  account_record account;
  account.user_id = user_id;
  account.created_unix = now_unix;
  return account;
}

// Issues a key to an account in memory and stores the key's record; the caller writes the
// account.
caf::expected<std::string> add_key(record_txn& t, account_record& account,
                                   std::int64_t now_unix) {
  if (!account.active_key_hash.empty()) {
    if (auto err = mark_revoked(t, account, account.active_key_hash, now_unix))
      return err;
  }
  auto key = core::make_api_key();
  if (!key)
    return caf::make_error(caf::sec::runtime_error, "cannot draw random bytes for a key");
  account.active_key_hash = core::hash_api_key(*key);
  key_record record;
  record.user_id = account.user_id;
  record.created_unix = now_unix;
  if (auto err = t.put(record_table::accounts, key_key(account.active_key_hash), encode(record)))
    return err;
  return std::move(*key);
}

} // namespace

caf::expected<issued_key> issue_key(record_txn& t, std::uint64_t user_id,
                                    const std::string& login, std::int64_t now_unix) {
  auto account = load_or_new(t, user_id, now_unix);
  if (!account)
    return account.error();
  // Logins can be renamed on the provider; the numeric id is the account.
  account->login = login;
  auto key = add_key(t, *account, now_unix);
  if (!key)
    return key.error();
  if (auto err = t.put(record_table::accounts, account_key(user_id), encode(*account)))
    return err;
  return issued_key{std::move(*key), std::move(*account)};
}

caf::expected<signed_in> sign_in(record_txn& t, std::uint64_t user_id,
                                 const std::string& login, std::int64_t now_unix) {
  auto existing = get_account(t, user_id);
  if (!existing)
    return existing.error();
  if (!*existing) {
    auto issued = issue_key(t, user_id, login, now_unix);
    if (!issued)
      return issued.error();
    return signed_in{std::move(issued->account), std::move(issued->key)};
  }
  auto account = std::move(**existing);
  if (account.login != login) {
    account.login = login;
    if (auto err = t.put(record_table::accounts, account_key(user_id), encode(account)))
      return err;
  }
  return signed_in{std::move(account), {}};
}

caf::expected<bool> revoke_active_key(record_txn& t, std::uint64_t user_id,
                                      std::int64_t now_unix) {
  auto existing = get_account(t, user_id);
  if (!existing)
    return existing.error();
  if (!*existing || (*existing)->active_key_hash.empty())
    return false;
  auto account = std::move(**existing);
  if (auto err = mark_revoked(t, account, account.active_key_hash, now_unix))
    return err;
  account.active_key_hash.clear();
  if (auto err = t.put(record_table::accounts, account_key(user_id), encode(account)))
    return err;
  return true;
}

caf::expected<core::failure> take_rotation(record_txn& t, std::uint64_t user_id,
                                     std::int64_t now_unix, std::uint64_t limit) {
  auto hour = hour_of(now_unix);
  auto key = usage_key("rotate", "key", std::to_string(user_id), hour.label);
  auto used = read_count(t, key);
  if (!used)
    return used.error();
  if (*used >= limit) {
    auto refused = core::make_failure(core::error_code::rotation_limited,
                                "at most " + std::to_string(limit)
                                  + " new keys per account per hour; try again after the hour");
    refused.retry_after = static_cast<std::uint32_t>(std::max<std::int64_t>(
      1, hour.reset_unix - now_unix));
    return refused;
  }
  if (auto err = write_count(t, key, *used + 1))
    return err;
  return core::failure{};
}

caf::expected<std::size_t> prune_revoked_keys(record_txn& t, std::int64_t cutoff_unix,
                                              std::size_t budget) {
  std::vector<std::string> doomed;
  bool corrupt = false;
  auto visit = [&](std::string_view key, std::string_view value) {
    if (doomed.size() >= budget)
      return false;
    auto record = decode_key(value);
    if (!record) {
      corrupt = true;
      return false;
    }
    if (record->revoked && record->revoked_unix < cutoff_unix)
      doomed.emplace_back(key);
    return true;
  };
  auto err = t.for_each_prefix(record_table::accounts, "k|", visit);
  if (err)
    return err;
  if (corrupt)
    return caf::make_error(caf::sec::runtime_error, "unreadable key record");
  // Collected first: deleting under an open cursor would move it. An account's list may keep
  // a hash whose record is gone; it falls out of the list as newer keys are revoked.
  for (auto& key : doomed)
    if (auto del = t.del(record_table::accounts, key))
      return del;
  return doomed.size();
}

caf::expected<std::size_t> prune_hourly_counters(record_txn& t, std::int64_t now_unix,
                                                 std::size_t budget) {
  auto current = hour_of(now_unix).label;
  std::vector<std::string> doomed;
  // Hourly counters are the only ones whose window label has a 'T' (2026-11-23T14).
  for (std::string_view prefix : {"u|rotate|", "u|signin|"}) {
    auto visit = [&](std::string_view key, std::string_view) {
      if (doomed.size() >= budget)
        return false;
      auto label = key.substr(key.rfind('|') + 1);
      if (label.find('T') != std::string_view::npos && label < current)
        doomed.emplace_back(key);
      return true;
    };
    auto err = t.for_each_prefix(record_table::usage, prefix, visit);
    if (err)
      return err;
  }
  for (auto& key : doomed)
    if (auto del = t.del(record_table::usage, key))
      return del;
  return doomed.size();
}

caf::expected<std::optional<account_record>> account_by_key(record_txn& t,
                                                            const std::string& key_hash) {
  auto key = get_key(t, key_hash);
  if (!key)
    return key.error();
  if (!*key || (*key)->revoked)
    return std::optional<account_record>{};
  return get_account(t, (*key)->user_id);
}

caf::expected<std::vector<account_record>> list_accounts(record_txn& t) {
  std::vector<account_record> result;
  bool corrupt = false;
  auto visit = [&](std::string_view, std::string_view value) {
    auto record = decode_account(value);
    if (!record) {
      corrupt = true;
      return false;
    }
    result.push_back(std::move(*record));
    return true;
  };
  auto err = t.for_each_prefix(record_table::accounts, "a|", visit);
  if (err)
    return err;
  if (corrupt)
    return caf::make_error(caf::sec::runtime_error, "unreadable account record");
  return result;
}

caf::expected<std::optional<account_record>> find_by_login(record_txn& t,
                                                           const std::string& login) {
  auto all = list_accounts(t);
  if (!all)
    return all.error();
  auto same = [&](const account_record& a) {
    return a.login.size() == login.size()
           && std::equal(a.login.begin(), a.login.end(), login.begin(), [](char x, char y) {
                return std::tolower(static_cast<unsigned char>(x))
                       == std::tolower(static_cast<unsigned char>(y));
              });
  };
  auto i = std::find_if(all->begin(), all->end(), same);
  if (i == all->end())
    return std::optional<account_record>{};
  return std::optional<account_record>{std::move(*i)};
}

caf::expected<account_usage> usage_of(store& s, std::uint64_t user_id,
                                      const std::string& month) {
  auto subject = std::to_string(user_id);
  std::vector<counter_op> ops(2);
  ops[0].endpoint = "info";
  ops[1].endpoint = "offer";
  for (auto& op : ops) {
    op.scope = "key";
    op.subject = subject;
    op.window = month;
  }
  auto used = s.read_counters(ops);
  if (!used)
    return used.error();
  return account_usage{(*used)[0], (*used)[1]};
}

} // namespace netherscope::storage
