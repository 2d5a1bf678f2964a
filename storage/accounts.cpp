#include "storage/accounts.hpp"

#include <algorithm>
#include <cctype>

#include <caf/sec.hpp>

#include "net/api/api_key.hpp"

namespace netherscope::storage {

namespace {

// Marks the key with this hash revoked; its record stays, so a revoked key is told apart from
// an unknown one.
caf::error mark_revoked(txn& t, MDB_dbi accounts, const std::string& key_hash) {
  auto old = get_key(t, accounts, key_hash);
  if (!old)
    return old.error();
  if (!*old)
    return {};
  (*old)->revoked = true;
  return t.put(accounts, key_key(key_hash), encode(**old));
}

} // namespace

caf::expected<issued_key> issue_key(txn& t, MDB_dbi accounts, std::uint64_t user_id,
                                    const std::string& login, std::int64_t now_unix) {
  auto existing = get_account(t, accounts, user_id);
  if (!existing)
    return existing.error();
  account_record account;
  if (*existing) {
    account = std::move(**existing);
  } else {
    account.user_id = user_id;
    account.created_unix = now_unix;
  }
  // Logins can be renamed on the provider; the numeric id is the account.
  account.login = login;
  if (!account.active_key_hash.empty()) {
    if (auto err = mark_revoked(t, accounts, account.active_key_hash))
      return err;
  }
  auto key = net::make_api_key();
  if (!key)
    return caf::make_error(caf::sec::runtime_error, "cannot draw random bytes for a key");
  account.active_key_hash = net::hash_api_key(*key);
  key_record record;
  record.user_id = user_id;
  record.created_unix = now_unix;
  if (auto err = t.put(accounts, key_key(account.active_key_hash), encode(record)))
    return err;
  if (auto err = t.put(accounts, account_key(user_id), encode(account)))
    return err;
  return issued_key{std::move(*key), std::move(account)};
}

caf::expected<bool> revoke_active_key(txn& t, MDB_dbi accounts, std::uint64_t user_id) {
  auto existing = get_account(t, accounts, user_id);
  if (!existing)
    return existing.error();
  if (!*existing || (*existing)->active_key_hash.empty())
    return false;
  auto account = std::move(**existing);
  if (auto err = mark_revoked(t, accounts, account.active_key_hash))
    return err;
  account.active_key_hash.clear();
  if (auto err = t.put(accounts, account_key(user_id), encode(account)))
    return err;
  return true;
}

caf::expected<std::optional<account_record>> account_by_key(txn& t, MDB_dbi accounts,
                                                            const std::string& key_hash) {
  auto key = get_key(t, accounts, key_hash);
  if (!key)
    return key.error();
  if (!*key || (*key)->revoked)
    return std::optional<account_record>{};
  return get_account(t, accounts, (*key)->user_id);
}

caf::expected<std::vector<account_record>> list_accounts(txn& t, MDB_dbi accounts) {
  std::vector<account_record> result;
  bool corrupt = false;
  auto err = t.for_each_prefix(accounts, "a|", [&](std::string_view, std::string_view value) {
    auto record = decode_account(value);
    if (!record) {
      corrupt = true;
      return false;
    }
    result.push_back(std::move(*record));
    return true;
  });
  if (err)
    return err;
  if (corrupt)
    return caf::make_error(caf::sec::runtime_error, "unreadable account record");
  return result;
}

caf::expected<std::optional<account_record>> find_by_login(txn& t, MDB_dbi accounts,
                                                           const std::string& login) {
  auto all = list_accounts(t, accounts);
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

caf::expected<account_usage> usage_of(txn& t, MDB_dbi usage, std::uint64_t user_id,
                                      const std::string& month) {
  auto subject = std::to_string(user_id);
  auto info = read_count(t, usage, usage_key("info", "key", subject, month));
  if (!info)
    return info.error();
  auto offer = read_count(t, usage, usage_key("offer", "key", subject, month));
  if (!offer)
    return offer.error();
  return account_usage{*info, *offer};
}

} // namespace netherscope::storage
