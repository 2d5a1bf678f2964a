// Quotas and accounts: what a call is charged against and where the caller stands.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "core/failure.hpp"

namespace netherscope::core {

/// The public endpoints whose calls are counted: info and offer per month, sign-in callbacks
/// per address and hour.
enum class endpoint : std::uint8_t { info, offer, signin };

/// Whose quota a call counts against (SPEC §5).
enum class quota_scope : std::uint8_t { ip, key };

/// Where a caller stands: SPEC 8.2's four headers, and whether the call may proceed.
struct quota_verdict {
  /// quota_exhausted (not counted), unauthorized (counted against the IP), or
  /// unavailable (the store failed, nothing counted); none when the call may proceed.
  failure error;
  quota_scope scope = quota_scope::ip;
  std::uint64_t limit = 0;
  std::uint64_t remaining = 0;
  /// Unix time of the first second of next month (UTC).
  std::int64_t reset = 0;
  /// The account's user id, for scope key.
  std::uint64_t user_id = 0;
};

/// What a charge does to its caller's counter; the store's counter operations take the same
/// modes (storage::counter_op).
enum class charge_mode : std::uint8_t {
  /// Counts the call (or an amount of calls), as far as the limit leaves room, unless the
  /// counter already reached its limit.
  count,
  /// Only looks up where the caller stands; counts nothing.
  peek,
  /// Gives back calls that were counted (never below zero).
  refund,
};

/// One call to count, to look up, or to give back, against the quota of its caller.
struct quota_charge {
  endpoint what = endpoint::info;
  /// The client's address (IPv4) or /64 prefix (IPv6).
  std::string client;
  /// SHA-256 of the API key sent, or empty for anonymous calls. The key never travels.
  std::string key_hash;
  charge_mode mode = charge_mode::count;
  /// For a refund: the counter the call was charged to, from the charge's verdict (scope,
  /// user id for scope key, and the reset that names its month). The key is not looked up
  /// again, so a key revoked during the call cannot send the refund to a counter that was
  /// never charged.
  quota_scope charged_scope = quota_scope::ip;
  std::uint64_t charged_user_id = 0;
  std::int64_t charged_reset = 0;

  /// A call to count against the quota of its caller.
  static quota_charge count_call(endpoint what, std::string client, std::string key_hash) {
    return {what, std::move(client), std::move(key_hash), charge_mode::count};
  }

  /// A look-up of where the caller stands, which counts nothing.
  static quota_charge look_up(endpoint what, std::string client, std::string key_hash) {
    return {what, std::move(client), std::move(key_hash), charge_mode::peek};
  }

  /// Gives back a call to the counter that charged, its charge's verdict, names: a call
  /// refused with 429 by the per-target limit does not count (PRODUCT.md "Quotas").
  static quota_charge refund_call(endpoint what, std::string client, std::string key_hash,
                                  const quota_verdict& charged) {
    return {what,           std::move(client), std::move(key_hash), charge_mode::refund,
            charged.scope,  charged.user_id,   charged.reset};
  }

  /// Whether the charge counts calls.
  bool counts() const noexcept {
    return mode == charge_mode::count;
  }

  /// Whether the charge gives a call back.
  bool refunds() const noexcept {
    return mode == charge_mode::refund;
  }
};

/// An account and this month's usage, as GET /api/account shows it.
struct account_view {
  failure error;
  std::uint64_t user_id = 0;
  std::string login;
  std::int64_t created = 0;
  std::string month;
  std::uint64_t info_used = 0;
  std::uint64_t info_limit = 0;
  std::uint64_t offer_used = 0;
  std::uint64_t offer_limit = 0;
  std::int64_t reset = 0;
  /// Whether info_used and offer_used were read. False only on a reply whose change was
  /// committed (a new key, a new session) when the usage could not be read after it: the
  /// reply still shows what was committed, without usage, rather than failing and losing it.
  bool usage_known = true;
  /// A newly issued key, shown once; empty otherwise.
  std::string new_key;
  /// Whether the account has an active key (the account page says so).
  bool key_active = false;
  /// For the account page: a session opened by this sign-in (the cookie's value; empty when
  /// none was opened), and the form token of the page's session.
  std::string session;
  std::string csrf;
};

} // namespace netherscope::core
