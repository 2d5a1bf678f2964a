#include "actors/watch_caller.hpp"

#include "storage/accounts.hpp"
#include "storage/auth_records.hpp"

namespace netherscope::actors {


caf::expected<watch_caller> find_watch_caller(storage::record_txn& t, const std::string& key_hash,
                                              const std::string& session_hash, std::int64_t now) {
  watch_caller out;
  if (!key_hash.empty()) {
    auto account = storage::account_by_key(t, key_hash);
    if (!account)
      return account.error();
    if (*account)
      out.user_id = (*account)->user_id;
    else
      out.refusal = core::make_failure(core::error_code::unauthorized, "unknown or revoked API key");
    return out;
  }
  auto session = storage::find_session(t, session_hash, now);
  if (!session)
    return session.error();
  if (*session) {
    out.user_id = (*session)->user_id;
    out.csrf = (*session)->csrf;
  } else
    out.refusal = core::make_failure(
      core::error_code::unauthorized,
      "you are not signed in, or your session expired; sign in or send an API key");
  return out;
}

} // namespace netherscope::actors
