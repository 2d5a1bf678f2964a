#include "storage/auth_records.hpp"

#include <vector>

#include <caf/sec.hpp>

#include "base/bytes.hpp"
#include "base/crypto.hpp"
#include "storage/accounts.hpp"
#include "storage/records.hpp"

namespace netherscope::storage {

namespace {

constexpr std::uint8_t used_state_version = 1;
constexpr std::uint8_t session_version = 1;
constexpr std::size_t session_id_bytes = 32;
constexpr std::size_t csrf_bytes = 32;

std::string used_state_key(std::string_view canonical_state) {
  return "o|" + std::string{canonical_state};
}

std::string session_key(std::string_view id_hash) {
  return "s|" + std::string{id_hash};
}

std::string encode_expiry(std::int64_t expires_unix) {
  std::string out;
  out.push_back(static_cast<char>(used_state_version));
  base::put_le(out, static_cast<std::uint64_t>(expires_unix));
  return out;
}

std::optional<std::int64_t> decode_expiry(std::string_view in) {
  std::uint64_t expires = 0;
  if (in.empty() || static_cast<std::uint8_t>(in[0]) != used_state_version)
    return std::nullopt;
  in.remove_prefix(1);
  if (!base::take_le(in, expires) || !in.empty())
    return std::nullopt;
  return static_cast<std::int64_t>(expires);
}

// Deletes up to budget records under prefix whose expiry (read by expiry_of) is at or before
// now_unix; an unreadable record is deleted too, since nothing could ever use it.
template <class ExpiryOf>
caf::expected<std::size_t> prune_prefix(record_txn& t, std::string_view prefix,
                                        std::int64_t now_unix, std::size_t budget,
                                        ExpiryOf expiry_of) {
  std::vector<std::string> doomed;
  auto visit = [&](std::string_view key, std::string_view value) {
    if (doomed.size() >= budget)
      return false;
    auto expires = expiry_of(value);
    if (!expires || *expires <= now_unix)
      doomed.emplace_back(key);
    return true;
  };
  auto err = t.for_each_prefix(record_table::auth, prefix, visit);
  if (err)
    return err;
  // Collected first: deleting under an open cursor would move it.
  for (auto& key : doomed)
    if (auto del = t.del(record_table::auth, key))
      return del;
  return doomed.size();
}

} // namespace

caf::expected<bool> claim_state(record_txn& t, std::string_view canonical_state,
                                std::int64_t expires_unix, std::int64_t now_unix) {
  auto key = used_state_key(canonical_state);
  auto stored = t.get(record_table::auth, key);
  if (!stored)
    return stored.error();
  if (*stored) {
    auto expires = decode_expiry(**stored);
    // An unreadable record counts as used: refusing one sign-in is the safe side.
    if (!expires || *expires > now_unix)
      return false;
  }
  if (auto err = t.put(record_table::auth, key, encode_expiry(expires_unix)))
    return err;
  return true;
}

std::string encode(const session_record& x) {
  std::string out;
  out.push_back(static_cast<char>(session_version));
  base::put_le(out, x.user_id);
  base::put_le(out, static_cast<std::uint64_t>(x.created_unix));
  base::put_le(out, static_cast<std::uint64_t>(x.expires_unix));
  base::put_le(out, static_cast<std::uint64_t>(x.csrf.size()));
  out += x.csrf;
  return out;
}

std::optional<session_record> decode_session(std::string_view in) {
  session_record x;
  std::uint64_t created = 0;
  std::uint64_t expires = 0;
  std::uint64_t csrf_length = 0;
  if (in.empty() || static_cast<std::uint8_t>(in[0]) != session_version)
    return std::nullopt;
  in.remove_prefix(1);
  if (!base::take_le(in, x.user_id) || !base::take_le(in, created) || !base::take_le(in, expires)
      || !base::take_le(in, csrf_length) || in.size() != csrf_length)
    return std::nullopt;
  x.created_unix = static_cast<std::int64_t>(created);
  x.expires_unix = static_cast<std::int64_t>(expires);
  x.csrf = std::string{in};
  return x;
}

std::string session_id_hash(std::string_view id) {
  return base::sha256(id);
}

caf::expected<opened_session> open_session(record_txn& t, std::uint64_t user_id,
                                           std::int64_t now_unix) {
  auto id = base::random_bytes(session_id_bytes);
  auto csrf = base::random_bytes(csrf_bytes);
  if (!id || !csrf)
    return caf::make_error(caf::sec::runtime_error, "cannot draw random bytes for a session");
  opened_session opened;
  opened.id = base::base64url_encode(*id);
  opened.csrf = base::base64url_encode(*csrf);
  opened.expires_unix = now_unix + core::session_lifetime_seconds;
  auto hash = session_id_hash(opened.id);
  if (hash.empty())
    return caf::make_error(caf::sec::runtime_error, "cannot hash a session id");
  session_record record{user_id, now_unix, opened.expires_unix, opened.csrf};
  if (auto err = t.put(record_table::auth, session_key(hash), encode(record)))
    return err;
  return opened;
}

caf::expected<std::optional<session_record>> find_session(record_txn& t, std::string_view id_hash,
                                                          std::int64_t now_unix) {
  if (id_hash.empty())
    return std::optional<session_record>{};
  auto stored = t.get(record_table::auth, session_key(id_hash));
  if (!stored)
    return stored.error();
  if (!*stored)
    return std::optional<session_record>{};
  auto record = decode_session(**stored);
  if (!record)
    return corrupt("session");
  if (record->expires_unix <= now_unix)
    return std::optional<session_record>{};
  return std::optional<session_record>{std::move(*record)};
}

caf::error end_session(record_txn& t, std::string_view id_hash) {
  if (id_hash.empty())
    return {};
  return t.del(record_table::auth, session_key(id_hash));
}

caf::expected<prune_report> prune_expired(record_txn& t, std::int64_t now_unix,
                                          std::int64_t revoked_cutoff_unix, std::size_t budget) {
  prune_report report;
  auto left = [&] { return budget - std::min(budget, report.total()); };
  auto states = prune_prefix(t, "o|", now_unix, left(), decode_expiry);
  if (!states)
    return states.error();
  report.states = *states;
  auto sessions = prune_prefix(t, "s|", now_unix, left(),
                               [](std::string_view value) -> std::optional<std::int64_t> {
                                 auto record = decode_session(value);
                                 if (!record)
                                   return std::nullopt;
                                 return record->expires_unix;
                               });
  if (!sessions)
    return sessions.error();
  report.sessions = *sessions;
  auto keys = prune_revoked_keys(t, revoked_cutoff_unix, left());
  if (!keys)
    return keys.error();
  report.revoked_keys = *keys;
  auto counters = prune_hourly_counters(t, now_unix, left());
  if (!counters)
    return counters.error();
  report.counters = *counters;
  report.more = report.total() >= budget;
  return report;
}

} // namespace netherscope::storage
