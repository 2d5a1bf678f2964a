#include "actors/watch_actor.hpp"

#include <caf/all.hpp>

#include "actors/watch_caller.hpp"
#include "actors/watch_webhooks.hpp"
#include "core/host_port.hpp"
#include "core/watch_request.hpp"
#include "base/crypto.hpp"
#include "base/log.hpp"
#include "storage/watch_records.hpp"

namespace netherscope::actors {


namespace {

using watch_pointer = actors::watch_actor::stateful_pointer<watch_state>;

core::watch_answer watch_refused(core::failure error) {
  core::watch_answer answer;
  answer.error = std::move(error);
  return answer;
}

core::watch_answer watch_store_failed(const caf::error& err) {
  base::log::write(base::log::level::error, "watch_store_failed", {{"error", caf::to_string(err)}});
  return watch_refused(
    core::make_failure(core::error_code::unavailable, "the account store failed; try again shortly"));
}

// The account a watch call names: its API key's, or its session's. Nullopt with answer set
// when there is none (or the store failed).
std::optional<std::uint64_t> watch_owner(storage::record_txn& t, const watch_command& cmd,
                                         std::int64_t now, core::watch_answer& answer) {
  auto caller = find_watch_caller(t, cmd.key_hash, cmd.session_hash, now);
  if (!caller) {
    answer = watch_store_failed(caller.error());
    return std::nullopt;
  }
  if (!caller->user_id) {
    answer = watch_refused(std::move(caller->refusal));
    return std::nullopt;
  }
  // A form of the account page proves it came from that page with the session's token, as
  // the keys actor checks the key forms, in constant time. A key has no token to match.
  if (cmd.from_form && (caller->csrf.empty() || !base::same_secret(cmd.csrf, caller->csrf))) {
    answer = watch_refused(core::make_failure(
      core::error_code::csrf_rejected,
      "this form is not from your current account page; reload the page and try again"));
    return std::nullopt;
  }
  return caller->user_id;
}

core::watch_answer create_watch(storage::record_txn& t, const watch_settings& cfg,
                               std::uint64_t owner, const core::watch_spec& spec,
                               const std::string& id, std::int64_t now) {
  storage::watch_record record;
  record.owner = owner;
  record.watch.id = id;
  record.watch.host = spec.host;
  record.watch.port = spec.port;
  record.watch.period_seconds = spec.period_seconds;
  record.watch.is_public = spec.is_public;
  record.watch.created = now;
  auto added = storage::add_watch(t, record, cfg.bounds.max_per_account);
  if (!added)
    return watch_store_failed(added.error());
  if (!added->ok())
    return watch_refused(std::move(*added));
  core::watch_answer answer;
  answer.watches.push_back(std::move(record.watch));
  return answer;
}

core::watch_answer list_account_watches(storage::record_txn& t, const watch_settings& cfg,
                                       std::uint64_t owner) {
  auto held = storage::list_watches(t, owner);
  if (!held)
    return watch_store_failed(held.error());
  core::watch_answer answer;
  answer.limit = cfg.bounds.max_per_account;
  for (auto& record : *held)
    answer.watches.push_back(std::move(record.watch));
  if (auto err = attach_webhooks(t, answer.watches))
    return watch_store_failed(err);
  return answer;
}

// A webhook action's answer, or the store's failure as one.
core::watch_answer webhook_answer_of(caf::expected<core::watch_answer> done) {
  if (!done)
    return watch_store_failed(done.error());
  return std::move(*done);
}

core::watch_answer remove_watch(storage::record_txn& t, std::uint64_t owner, const std::string& id) {
  auto deleted = storage::delete_watch(t, owner, id);
  if (!deleted)
    return watch_store_failed(deleted.error());
  if (!*deleted)
    return watch_refused(core::make_failure(core::error_code::unknown_watch,
                                           "this account has no watch " + id
                                             + "; GET /api/watch lists its watches"));
  return {};
}

core::watch_answer act_on_watch(watch_pointer self, const watch_command& cmd) {
  auto& st = self->state;
  if (cmd.action == watch_action::create)
    if (auto refused = refuse_watch(cmd.spec, st.settings); !refused.ok())
      return watch_refused(std::move(refused));
  if (cmd.action == watch_action::add_webhook)
    if (auto refused = refuse_webhook(cmd.webhook, st.settings); !refused.ok())
      return watch_refused(std::move(refused));
  // Drawn once, outside the transaction: on Redis the work may run again, and it must make
  // the same watch each time.
  std::string id;
  if (cmd.action == watch_action::create) {
    auto drawn = storage::new_watch_id();
    if (!drawn)
      return watch_refused(
        core::make_failure(core::error_code::internal, "cannot draw random bytes"));
    id = std::move(*drawn);
  }
  auto now = st.settings.now();
  // The same goes for a webhook's id and secret.
  std::optional<prepared_webhook> webhook;
  if (cmd.action == watch_action::add_webhook) {
    webhook = prepare_webhook(cmd.webhook, st.settings, now);
    if (!webhook)
      return watch_refused(core::make_failure(core::error_code::internal,
                                             "cannot draw or seal a webhook secret"));
  }
  core::watch_answer answer;
  auto writes = cmd.action != watch_action::list && cmd.action != watch_action::find_webhook;
  auto err = st.store->with_records(writes,
                                    [&](storage::record_txn& t) -> caf::expected<bool> {
                                      answer = {};
                                      auto owner = watch_owner(t, cmd, now, answer);
                                      if (!owner)
                                        return false;
                                      switch (cmd.action) {
                                        case watch_action::create:
                                          answer = create_watch(t, st.settings, *owner,
                                                                cmd.spec, id, now);
                                          break;
                                        case watch_action::list:
                                          answer = list_account_watches(t, st.settings, *owner);
                                          break;
                                        case watch_action::remove:
                                          answer = remove_watch(t, *owner, cmd.id);
                                          break;
                                        case watch_action::add_webhook:
                                          answer = webhook_answer_of(
                                            create_webhook(t, *owner, cmd.id, *webhook));
                                          break;
                                        case watch_action::remove_webhook:
                                          answer = webhook_answer_of(
                                            remove_webhook(t, *owner, cmd.id, cmd.webhook_id));
                                          break;
                                        case watch_action::find_webhook:
                                          answer = webhook_answer_of(
                                            find_webhook(t, *owner, cmd.id, cmd.webhook_id));
                                          break;
                                      }
                                      return answer.error.ok();
                                    });
  if (err)
    return watch_store_failed(err);
  return answer;
}

} // namespace

core::failure refuse_watch(const core::watch_spec& spec, const watch_settings& settings) {
  if (auto period = core::check_watch_period(spec.period_seconds, settings.bounds); !period.ok())
    return period;
  auto verdict = settings.policy.check_without_lookup(spec.host);
  if (verdict && !verdict->allowed)
    return core::make_failure(core::error_code::forbidden_target,
                             "target " + core::host_for_url(spec.host) + ":"
                               + std::to_string(spec.port) + " refused: " + verdict->reason);
  return {};
}

actors::watch_actor::behavior_type watches(watch_pointer self,
                                           std::shared_ptr<storage::store> store,
                                           watch_settings settings) {
  self->state.store = std::move(store);
  self->state.settings = std::move(settings);
  return {
    [=](watch_atom, const watch_command& cmd) { return act_on_watch(self, cmd); },
  };
}

} // namespace netherscope::actors
