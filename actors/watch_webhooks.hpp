// The webhook actions of the watch actor (docs/WATCHES.md, "Alerts"): add a webhook to a watch
// of the calling account, delete one, find one before a test, and show each watch's webhooks
// in its list. The watch actor has found the account already; these functions run inside its
// record transaction. A new webhook's secret is drawn and sealed before the transaction
// (prepare_webhook), since on Redis the transaction may run again and must store the same one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "actors/watch_actor.hpp"
#include "storage/record_txn.hpp"
#include "storage/webhook_records.hpp"

namespace netherscope::actors {

/// Refuses a webhook before the store is asked: a URL check_webhook_url refuses
/// (invalid_input, its sentence), one whose host the address policy refuses without a lookup
/// (forbidden_target), or a service without a secrets key to seal its secret (unavailable).
/// No failure when it may be made.
core::failure refuse_webhook(const core::webhook_spec& spec, const watch_settings& settings);

/// A new webhook, ready to store: its record (the secret sealed) and the secret to show once.
struct prepared_webhook {
  storage::webhook_record record;
  std::string secret;
};

/// Draws the webhook's id and secret and seals the secret; nullopt when no random bytes could
/// be drawn or sealing failed (the settings' key is set: refuse_webhook passed).
std::optional<prepared_webhook> prepare_webhook(const core::webhook_spec& spec,
                                                const watch_settings& settings,
                                                std::int64_t now);

/// Adds the prepared webhook to the owner's watch watch_id: the watch and the webhook as
/// made, and the secret; unknown_watch or webhook_limit_reached otherwise. An error when the
/// store failed, as for every function here.
caf::expected<core::watch_answer> create_webhook(storage::record_txn& t, std::uint64_t owner,
                                 const std::string& watch_id, const prepared_webhook& made);

/// Deletes a webhook of the owner's watch; unknown_watch or unknown_webhook when there is none.
caf::expected<core::watch_answer> remove_webhook(storage::record_txn& t, std::uint64_t owner,
                                 const std::string& watch_id, const std::string& webhook_id);

/// The owner's watch holding only the webhook asked for; unknown_watch or unknown_webhook
/// when there is none.
caf::expected<core::watch_answer> find_webhook(storage::record_txn& t, std::uint64_t owner,
                               const std::string& watch_id, const std::string& webhook_id);

/// Fills each watch's webhooks, oldest first.
caf::error attach_webhooks(storage::record_txn& t, std::vector<core::watch_view>& watches);

} // namespace netherscope::actors
