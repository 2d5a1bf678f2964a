#include "actors/watch_webhooks.hpp"

#include "core/host_port.hpp"
#include "core/webhook_signature.hpp"
#include "core/webhook_url.hpp"
#include "base/sealed.hpp"
#include "storage/watch_records.hpp"

namespace netherscope::actors {

namespace {

core::watch_answer webhook_refused(core::error_code code, std::string message) {
  core::watch_answer answer;
  answer.error = core::make_failure(code, std::move(message));
  return answer;
}

// Runs act on the owner's watch watch_id; answers unknown_watch when the owner has none.
template <class Act>
caf::expected<core::watch_answer> on_owned_watch(storage::record_txn& t, std::uint64_t owner,
                                                const std::string& watch_id, Act act) {
  auto found = storage::get_watch(t, watch_id);
  if (!found)
    return found.error();
  if (!*found || (*found)->owner != owner)
    return webhook_refused(core::error_code::unknown_watch,
                           "this account has no watch " + watch_id
                             + "; GET /api/watch lists its watches");
  return act(std::move(**found));
}

core::watch_answer no_such_webhook(const std::string& watch_id, const std::string& webhook_id) {
  return webhook_refused(core::error_code::unknown_webhook,
                         "watch " + watch_id + " has no webhook " + webhook_id
                           + "; GET /api/watch lists each watch's webhooks");
}

} // namespace

core::failure refuse_webhook(const core::webhook_spec& spec, const watch_settings& settings) {
  auto checked = core::check_webhook_url(spec.url, settings.allow_loopback);
  if (!checked.target)
    return core::invalid_input(checked.error);
  auto verdict = settings.policy.check_without_lookup(checked.target->host);
  if (verdict && !verdict->allowed)
    return core::make_failure(core::error_code::forbidden_target,
                             "webhook host " + core::host_for_url(checked.target->host)
                               + " refused: " + verdict->reason);
  if (!settings.secrets)
    return core::make_failure(core::error_code::unavailable,
                             "webhooks need a secrets key to seal their secrets, and this "
                             "service has none: on Redis every replica must be given the same "
                             "--secrets-key-file");
  return {};
}

std::optional<prepared_webhook> prepare_webhook(const core::webhook_spec& spec,
                                                const watch_settings& settings,
                                                std::int64_t now) {
  // A webhook id has the form of a watch id.
  auto id = storage::new_watch_id();
  auto secret = core::make_webhook_secret();
  if (!id || !secret || !settings.secrets)
    return std::nullopt;
  auto sealed = base::seal(*settings.secrets, storage::webhook_secret_label(*id), *secret);
  if (!sealed)
    return std::nullopt;
  prepared_webhook made;
  made.record.webhook.id = std::move(*id);
  made.record.webhook.url = spec.url;
  made.record.webhook.format = spec.format;
  made.record.webhook.created = now;
  made.record.sealed_secret = std::move(*sealed);
  made.secret = std::move(*secret);
  return made;
}

caf::expected<core::watch_answer> create_webhook(storage::record_txn& t, std::uint64_t owner,
                                                const std::string& watch_id,
                                                const prepared_webhook& made) {
  return on_owned_watch(t, owner, watch_id, [&](storage::watch_record watch)
                                              -> caf::expected<core::watch_answer> {
    auto record = made.record;
    record.watch_id = watch_id;
    auto added = storage::add_webhook(t, watch, record, core::max_webhooks_per_watch);
    if (!added)
      return added.error();
    core::watch_answer answer;
    if (!added->ok()) {
      answer.error = std::move(*added);
      return answer;
    }
    watch.watch.webhooks.push_back(record.webhook);
    answer.watches.push_back(std::move(watch.watch));
    answer.secret = made.secret;
    return answer;
  });
}

caf::expected<core::watch_answer> remove_webhook(storage::record_txn& t, std::uint64_t owner,
                                                const std::string& watch_id,
                                                const std::string& webhook_id) {
  return on_owned_watch(t, owner, watch_id, [&](storage::watch_record watch)
                                              -> caf::expected<core::watch_answer> {
    auto deleted = storage::delete_webhook(t, watch, webhook_id);
    if (!deleted)
      return deleted.error();
    if (!*deleted)
      return no_such_webhook(watch_id, webhook_id);
    return core::watch_answer{};
  });
}

caf::expected<core::watch_answer> find_webhook(storage::record_txn& t, std::uint64_t owner,
                                              const std::string& watch_id,
                                              const std::string& webhook_id) {
  return on_owned_watch(t, owner, watch_id, [&](storage::watch_record watch)
                                              -> caf::expected<core::watch_answer> {
    auto found = storage::get_webhook(t, watch_id, webhook_id);
    if (!found)
      return found.error();
    if (!*found)
      return no_such_webhook(watch_id, webhook_id);
    watch.watch.webhooks.push_back(std::move((*found)->webhook));
    core::watch_answer answer;
    answer.watches.push_back(std::move(watch.watch));
    return answer;
  });
}

caf::error attach_webhooks(storage::record_txn& t, std::vector<core::watch_view>& watches) {
  for (auto& watch : watches) {
    auto held = storage::list_webhooks(t, watch.id);
    if (!held)
      return held.error();
    watch.webhooks.clear();
    for (auto& record : *held)
      watch.webhooks.push_back(std::move(record.webhook));
  }
  return caf::none;
}

} // namespace netherscope::actors
