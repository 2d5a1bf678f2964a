#include "actors/history_actor.hpp"

#include <caf/all.hpp>

#include "actors/watch_caller.hpp"
#include "core/host_port.hpp"
#include "core/watch_alert.hpp"
#include "core/watch_change.hpp"
#include "base/log.hpp"

namespace netherscope::actors {


namespace {

using history_pointer = history_actor::stateful_pointer<history_state>;

/// A store that is down fails every poll: one line a minute says so, with how many were held.
void log_store_failure(std::string_view what, const caf::error& err) {
  static base::log::sampler sampled{std::chrono::minutes{1}};
  base::log::write_sampled(sampled, base::log::level::error, "watch_store_failed",
                           {{"during", std::string{what}}, {"error", caf::to_string(err)}});
}

history_answer history_refused(core::failure error) {
  history_answer answer;
  answer.error = std::move(error);
  return answer;
}

/// Whether a sync that read generation must send the watches to the schedule again.
bool schedule_needs_sync(const std::optional<std::string>& generation,
                         const history_state& st) {
  // No generation stored: nothing tells whether the watches changed.
  return !generation || generation != st.synced_generation
         || st.unchanged_syncs >= max_unchanged_syncs;
}

/// Stores a first generation of the watches where there is none, so the syncs after the next
/// can skip; a store that lost it (an emptied Redis) or never had one gets it here.
void start_generation(history_pointer self) {
  auto start = [](storage::record_txn& t) -> caf::expected<bool> {
    auto found = storage::watches_generation(t);
    if (!found)
      return found.error();
    if (*found)
      return false;
    if (auto err = storage::renew_watches_generation(t))
      return err;
    return true;
  };
  auto err = self->state.store->with_records(true, start);
  if (err)
    log_store_failure("sync", err);
}

/// Reads the watches, keeps them as the targets' snapshot and makes the schedule hold them;
/// when their generation is the one the last sync sent, neither is needed (nothing changed).
std::size_t sync_targets(history_pointer self) {
  auto& st = self->state;
  st.latest_stale = true;
  std::vector<storage::watched_target> listed;
  std::optional<std::string> generation;
  bool unchanged = false;
  // The generation is read before the watches, in the same transaction: a change after the
  // read leaves another generation behind, which the next sync sees.
  auto err = st.store->with_records(false, [&](storage::record_txn& t) -> caf::expected<bool> {
    auto read = storage::watches_generation(t);
    if (!read)
      return read.error();
    generation = std::move(*read);
    unchanged = !schedule_needs_sync(generation, st);
    if (unchanged)
      return true;
    auto found = storage::watched_targets(t);
    if (!found)
      return found.error();
    listed = std::move(*found);
    return true;
  });
  if (err) {
    log_store_failure("sync", err);
    return st.targets.size();
  }
  if (unchanged) {
    ++st.unchanged_syncs;
    return st.targets.size();
  }
  std::vector<storage::scheduled_target> scheduled;
  scheduled.reserve(listed.size());
  decltype(st.targets) targets;
  for (auto& x : listed) {
    auto key = core::schedule_key(x.host, x.port);
    scheduled.push_back({key, static_cast<std::int64_t>(x.period_seconds) * 1000});
    targets.emplace(std::move(key), std::move(x));
  }
  st.unchanged_syncs = 0;
  if (auto gone = st.watching->sync_schedule(scheduled, st.now_ms()); !gone) {
    // The next sync tries again.
    log_store_failure("sync", gone.error());
    st.synced_generation.reset();
  } else {
    st.synced_generation = generation;
  }
  st.targets = std::move(targets);
  if (!generation)
    start_generation(self);
  return st.targets.size();
}

/// Completes a claimed check and stores its row: nothing is stored for a check whose lease
/// another replica took over, since that replica checks the slot again.
std::string record(history_pointer self, const core::schedule_claim& claim,
                   const std::string& owner, const std::string& encoded) {
  auto& st = self->state;
  auto completed = st.watching->complete_check(claim.key, owner, claim.due_ms, st.now_ms());
  if (!completed) {
    log_store_failure("complete", completed.error());
    return {};
  }
  if (!*completed || encoded.empty())
    return {};
  auto row = core::decode_history_row(encoded);
  if (!row)
    return {};
  auto found = st.targets.find(claim.key);
  auto period = found != st.targets.end()
                  ? static_cast<std::int64_t>(found->second.period_seconds)
                  : core::budget_period_seconds;
  auto previous = st.watching->record_check(claim.key, *row, core::budget_for(period));
  if (!previous) {
    log_store_failure("record", previous.error());
    return {};
  }
  if (auto held = st.latest.find(claim.key); held == st.latest.end())
    st.latest.emplace(claim.key, *row);
  else if (held->second.at <= row->at)
    held->second = *row;
  if (!*previous)
    return {};
  if (auto changes = core::change_between(*previous, *row);
      changes && st.alerts && found != st.targets.end())
    self->send(st.alerts, alert_atom::value,
               core::watch_alert{found->second.host, found->second.port, **previous, *row,
                                *changes});
  return core::encode(**previous);
}

/// Whether the caller's account watches the server.
caf::expected<bool> caller_watches(history_pointer self, const history_query& q,
                                   core::failure& refusal) {
  auto& st = self->state;
  bool watches = false;
  auto now = st.now_ms() / 1000;
  auto err = st.store->with_records(false, [&](storage::record_txn& t) -> caf::expected<bool> {
    auto caller = find_watch_caller(t, q.key_hash, q.session_hash, now);
    if (!caller)
      return caller.error();
    if (!caller->user_id) {
      refusal = std::move(caller->refusal);
      return true;
    }
    auto held = storage::list_watches(t, *caller->user_id);
    if (!held)
      return held.error();
    for (const auto& w : *held)
      watches = watches || (w.watch.host == q.host && w.watch.port == q.port);
    return true;
  });
  if (err)
    return err;
  return watches;
}

history_answer read_history(history_pointer self, const history_query& q) {
  auto& st = self->state;
  auto key = core::schedule_key(q.host, q.port);
  auto found = st.targets.find(key);
  bool visible = found != st.targets.end() && found->second.is_public;
  if (!visible && (!q.key_hash.empty() || !q.session_hash.empty())) {
    core::failure refusal;
    auto own = caller_watches(self, q, refusal);
    if (!own) {
      log_store_failure("history", own.error());
      return history_refused(core::make_failure(core::error_code::unavailable,
                                               "the store failed; try again shortly"));
    }
    if (!refusal.ok())
      return history_refused(std::move(refusal));
    visible = *own;
  }
  if (!visible)
    return history_refused(core::make_failure(
      core::error_code::unknown_watch,
      "nobody watches " + core::host_for_url(q.host) + ":" + std::to_string(q.port)
        + " publicly; its owner can make the watch public, or read it with the account's API "
          "key"));
  auto slice = storage::read_slice(*st.watching, key, q.range, st.now_ms() / 1000);
  if (!slice) {
    log_store_failure("history", slice.error());
    return history_refused(
      core::make_failure(core::error_code::unavailable, "the store failed; try again shortly"));
  }
  auto view = std::make_shared<core::history_view>();
  view->host = q.host;
  view->port = q.port;
  view->is_public = found != st.targets.end() && found->second.is_public;
  view->slice = std::move(*slice);
  history_answer answer;
  answer.view = std::move(view);
  return answer;
}

/// Reads the latest check of each public server from the store into the state's cache;
/// false when the store failed.
bool read_latest(history_pointer self) {
  auto& st = self->state;
  std::vector<std::string> keys;
  for (const auto& [key, target] : st.targets)
    if (target.is_public)
      keys.push_back(key);
  decltype(st.latest) latest;
  if (!keys.empty()) {
    auto read = st.watching->latest_checks(keys);
    if (!read) {
      log_store_failure("latest", read.error());
      return false;
    }
    for (std::size_t i = 0; i < keys.size(); ++i)
      if ((*read)[i])
        latest.emplace(std::move(keys[i]), std::move(*(*read)[i]));
  }
  st.latest = std::move(latest);
  st.latest_stale = false;
  return true;
}

/// The latest check of each public watched server, as the last sync listed them.
watched_checks latest_public(history_pointer self) {
  auto& st = self->state;
  auto out = std::make_shared<std::vector<core::watched_check>>();
  if (st.latest_stale && !read_latest(self))
    return out;
  for (const auto& [key, target] : st.targets)
    if (target.is_public)
      if (auto held = st.latest.find(key); held != st.latest.end())
        out->push_back({target.host, target.port, held->second});
  return out;
}

} // namespace

history_actor::behavior_type history(history_pointer self, std::shared_ptr<storage::store> store,
                                     std::shared_ptr<storage::watch_store> watching,
                                     std::function<std::int64_t()> now_ms,
                                     webhook_actor alerts) {
  self->state.alerts = std::move(alerts);
  self->state.store = std::move(store);
  self->state.watching = std::move(watching);
  self->state.now_ms = std::move(now_ms);
  return {
    [=](sync_atom) { return sync_targets(self); },
    [=](claim_atom, const std::string& owner, std::size_t most, std::int64_t lease_ms) {
      auto claims = self->state.watching->claim_checks(owner, self->state.now_ms(), most,
                                                       lease_ms);
      if (!claims) {
        log_store_failure("claim", claims.error());
        return std::vector<core::schedule_claim>{};
      }
      return std::move(*claims);
    },
    [=](record_atom, const core::schedule_claim& claim, const std::string& owner,
        const std::string& encoded) { return record(self, claim, owner, encoded); },
    [=](history_atom, const history_query& q) { return read_history(self, q); },
    [=](latest_atom) { return latest_public(self); },
  };
}

} // namespace netherscope::actors
