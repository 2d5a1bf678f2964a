// Webhooks as the store keeps them (docs/WATCHES.md, "Alerts"): one record per webhook under
// its watch, and an index of the watches that have webhooks by target, both in the watches
// table of a record transaction (storage/record_txn.hpp), beside the watches themselves:
//
//   h|<watch id>|<webhook id>          → the webhook (version 1: created, format, state,
//                                        failing since, last failure and its reason, URL,
//                                        the sealed secret)
//   t|<host>|<port>|<watch id>         → empty: the watch has webhooks, so alerts of that
//                                        target reach it
//
// The secret is sealed by the operator's secrets key (base/sealed) before it reaches
// these functions, so the store alone never reveals it. The scheduler knows targets, not
// watches: the index turns a target into the watches to alert with one prefix walk (a cursor
// range on LMDB, an HSCAN whose MATCH filters on the server on Redis), rather than reading
// every watch and webhook of every account at each alert. Only watches with webhooks are
// indexed, so watches made before webhooks existed need nothing written.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <caf/expected.hpp>

#include "core/failure.hpp"
#include "core/webhook.hpp"
#include "storage/record_txn.hpp"
#include "storage/watch_records.hpp"

namespace netherscope::storage {

/// One webhook: what the API shows, whose watch it serves, and its sealed secret.
struct webhook_record {
  std::string watch_id;
  core::webhook_view webhook;
  /// The secret as base::seal made it, with the label webhook_secret_label gives.
  std::string sealed_secret;
};

/// The stored form of a webhook (its ids are the key's, not stored again).
std::string encode(const webhook_record& x);

/// A stored webhook read back; nullopt for a record damaged in any way (another version,
/// bytes missing or left over, an unknown format or flag, an empty or over-long URL, an
/// over-long reason, no sealed secret, failing without a start).
std::optional<webhook_record> decode_webhook(std::string_view watch_id, std::string_view id,
                                             std::string_view record);

/// "h|<watch id>|<webhook id>" and "t|<host>|<port>|<watch id>".
std::string webhook_key(std::string_view watch_id, std::string_view id);
std::string target_watch_key(std::string_view host, std::uint16_t port,
                             std::string_view watch_id);

/// What a webhook's secret is sealed for: "webhook:<webhook id>", so a sealed secret moved
/// to another webhook's record does not open.
std::string webhook_secret_label(std::string_view id);

/// The webhook of the watch with this id (nullopt when absent; an error when unreadable).
caf::expected<std::optional<webhook_record>> get_webhook(record_txn& t, std::string_view watch_id,
                                                         std::string_view id);

/// The watch's webhooks, oldest first (ties by id).
caf::expected<std::vector<webhook_record>> list_webhooks(record_txn& t,
                                                         std::string_view watch_id);

/// Stores a new webhook of watch unless the watch holds max_per_watch already
/// (webhook_limit_reached: then nothing is written), and indexes the watch under its target.
/// No failure when it was stored.
caf::expected<core::failure> add_webhook(record_txn& t, const watch_record& watch,
                                             const webhook_record& w, std::size_t max_per_watch);

/// Deletes the webhook id of watch; false when it does not exist. The watch leaves its
/// target's index with its last webhook.
caf::expected<bool> delete_webhook(record_txn& t, const watch_record& watch, std::string_view id);

/// Deletes every webhook of watch and its entry in the target's index (the watch is being
/// deleted).
caf::error delete_watch_webhooks(record_txn& t, const watch_record& watch);

/// The ids of the watches of host and port that have webhooks, in id order.
caf::expected<std::vector<std::string>> watches_with_webhooks(record_txn& t,
                                                              std::string_view host,
                                                              std::uint16_t port);

/// Records what a delivery came to on the webhook: failing (from now, unless it was failing
/// already) with now and the reason as its last failure, or ok again (the last failure is
/// kept). False, and nothing written, when the webhook is gone or is ok and ok is asked.
caf::expected<bool> set_webhook_state(record_txn& t, std::string_view watch_id,
                                      std::string_view id, bool failing, std::int64_t now,
                                      std::string_view reason);

} // namespace netherscope::storage
