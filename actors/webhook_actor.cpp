#include "actors/webhook_actor.hpp"

#include <algorithm>
#include <vector>

#include <caf/all.hpp>

#include "core/discord_live.hpp"
#include "core/host_port.hpp"
#include "core/webhook_body.hpp"
#include "core/webhook_json.hpp"
#include "core/webhook_signature.hpp"
#include "core/webhook_url.hpp"
#include "base/log.hpp"
#include "base/text.hpp"
#include "storage/watch_records.hpp"
#include "storage/webhook_records.hpp"

namespace netherscope::actors {

namespace upstream = net::upstream;

namespace {

using webhook_pointer = webhook_actor::stateful_pointer<webhook_actor_state>;

std::string webhook_lane_of(const std::string& watch_id, const std::string& webhook_id) {
  return watch_id + "|" + webhook_id;
}

// All a log line shows of a webhook's URL: its path and query may hold a secret (a Discord
// webhook's token is in its path).
std::string shown_url_of(const core::webhook_target& target) {
  return std::string{target.tls ? "https://" : "http://"} + core::host_for_url(target.host) + ":"
         + std::to_string(target.port);
}

void log_webhook_store_failed(const caf::error& err) {
  base::log::write(base::log::level::error, "webhook_store_failed",
                   {{"error", caf::to_string(err)}});
}

core::webhook_delivery failed_webhook_try(core::error_code code, std::string message) {
  core::webhook_delivery outcome;
  outcome.error = core::make_failure(code, std::move(message));
  return outcome;
}

// The webhook of a try, read in a transaction of its own: nullopt when it is gone.
caf::expected<std::optional<storage::webhook_record>>
read_webhook_record(webhook_actor_state& st, const std::string& watch_id, const std::string& webhook_id) {
  std::optional<storage::webhook_record> found;
  auto err = st.settings.store->with_records(false, [&](storage::record_txn& t)
                                                      -> caf::expected<bool> {
    auto got = storage::get_webhook(t, watch_id, webhook_id);
    if (!got)
      return got.error();
    found = std::move(*got);
    return true;
  });
  if (err)
    return err;
  return found;
}

// The header named name of an answer, or empty.
std::string answer_header(const upstream::fetch_result& r, std::string_view name) {
  for (const auto& [key, value] : r.headers)
    if (base::iequals(key, name))
      return value;
  return {};
}

// Fills outcome from Discord's answer to a discord_live try: the message to edit from now on,
// whether it was gone, or how long to wait. A 2xx without the message's id is a failed try.
void read_live_answer(const core::discord_live_call& call, const std::string& message_id,
                      const upstream::fetch_result& r, core::webhook_delivery& outcome) {
  core::discord_live_headers headers{answer_header(r, "retry-after"),
                                     answer_header(r, "x-ratelimit-reset-after")};
  auto answer = core::read_discord_live_answer(call, message_id, r.status, r.body, headers);
  switch (answer.step) {
    case core::discord_live_step::kept:
      outcome.live_message = std::move(answer.message_id);
      break;
    case core::discord_live_step::repost:
      outcome.live_gone = true;
      break;
    case core::discord_live_step::wait:
      outcome.wait_ms = static_cast<std::uint32_t>(answer.wait.count());
      break;
    case core::discord_live_step::failed:
      if (outcome.delivered())
        outcome.error = core::make_failure(core::error_code::upstream_failure, answer.why);
      break;
  }
}

// Starts try number of body to the webhook of record: checks its URL again (the operator's
// settings may have changed), opens its secret, signs the body with the time now and POSTs
// it. The outcome comes back to the actor as delivered_atom, whatever happens.
void send_webhook_try(webhook_pointer self, std::uint64_t number, webhook_try entry,
              const storage::webhook_record& record, const std::string& body) {
  auto& st = self->state;
  entry.was_failing = record.webhook.failing;
  auto checked = core::check_webhook_url(record.webhook.url, st.settings.allow_loopback);
  std::optional<std::string> secret;
  core::webhook_delivery refused;
  if (!checked.target) {
    refused = failed_webhook_try(core::error_code::invalid_input,
                              "the webhook's URL is no longer accepted: " + checked.error);
  } else if (!st.settings.secrets) {
    refused = failed_webhook_try(core::error_code::unavailable,
                              "the service has no secrets key to open the webhook's secret: on "
                              "Redis every replica must be given the same --secrets-key-file");
  } else {
    base::open_error why = base::open_error::none;
    secret = base::open_sealed(*st.settings.secrets, storage::webhook_secret_label(record.webhook.id),
                               record.sealed_secret, &why);
    if (!secret)
      refused = failed_webhook_try(core::error_code::internal,
                                "the webhook's secret does not open: "
                                  + std::string{base::describe(why)});
  }
  if (checked.target)
    entry.shown_url = shown_url_of(*checked.target);
  // A lane's delivery to a discord_live webhook edits its message; a test posts one of its
  // own, so the live message keeps showing the server.
  entry.live = record.webhook.format == core::webhook_format::discord_live && !entry.promise;
  std::string message_id;
  if (entry.live)
    if (auto known = st.live_messages.find(entry.lane); known != st.live_messages.end())
      message_id = known->second;
  st.tries.emplace(number, std::move(entry));
  if (!refused.error.ok()) {
    self->send(self, delivered_atom::value, number, std::move(refused));
    return;
  }
  auto& target = *checked.target;
  upstream::fetch_request req;
  req.where.host = target.host;
  req.where.port = target.port;
  req.where.tls = target.tls ? core::tls_mode::on : core::tls_mode::off;
  req.method = "POST";
  req.path = target.target;
  std::optional<core::discord_live_call> live;
  if (st.tries.at(number).live) {
    live = core::discord_live_call_for(target.target, message_id);
    req.method = live->method;
    req.path = live->target;
    req.response_headers = {"retry-after", "x-ratelimit-reset-after"};
  }
  req.content_type = "application/json";
  req.body = body;
  req.headers.emplace_back(std::string{core::signature_header},
                           core::signature_value(*secret, st.settings.now(), body));
  req.body_limit = st.settings.body_limit;
  req.connect_timeout = st.settings.timeout;
  req.total_timeout = st.settings.timeout;
  // A weak reference: a try still on the wire when the service stops must not keep the
  // detached actor alive.
  auto weak = caf::actor_cast<caf::actor_addr>(self);
  st.settings.client->fetch(std::move(req), [weak, number, live,
                                               message_id](upstream::fetch_result&& r) {
    core::webhook_delivery outcome;
    if (!r.error.ok())
      outcome.error = core::make_failure(r.error.code, std::move(r.error.message));
    else
      outcome.status = r.status;
    if (r.error.ok() && live)
      read_live_answer(*live, message_id, r, outcome);
    if (auto strong = caf::actor_cast<webhook_actor>(weak))
      caf::anon_send(strong, delivered_atom::value, number, std::move(outcome));
  });
}

// Tries the delivery under way on lane, first or again.
void try_lane_delivery(webhook_pointer self, const std::string& lane, queued_delivery& d) {
  auto& st = self->state;
  if (d.first_try == 0)
    d.first_try = st.settings.now();
  webhook_try entry;
  entry.watch_id = d.watch_id;
  entry.webhook_id = d.webhook_id;
  entry.lane = lane;
  entry.number = d.number;
  auto number = st.next_number++;
  auto record = read_webhook_record(st, d.watch_id, d.webhook_id);
  if (!record) {
    // Counted as a failed try: the retries give the store time to come back.
    log_webhook_store_failed(record.error());
    st.tries.emplace(number, std::move(entry));
    self->send(self, delivered_atom::value, number,
               failed_webhook_try(core::error_code::unavailable, "the store failed"));
    return;
  }
  if (!*record) {
    // The webhook (or its watch) was deleted: nothing of its lane is sent any more.
    st.lanes.clear(lane);
    st.live_messages.erase(lane);
    return;
  }
  // A live message shows the server now: the states between are not worth a request each.
  if ((*record)->webhook.format == core::webhook_format::discord_live)
    st.lanes.coalesce(lane);
  send_webhook_try(self, number, std::move(entry), **record, d.body);
}

// Begins the lane's next delivery when none is under way.
void pump_lane(webhook_pointer self, const std::string& lane) {
  if (auto* d = self->state.lanes.start(lane))
    try_lane_delivery(self, lane, *d);
}

// Writes the webhook's new state: failing after a delivery gave up, ok after a success.
void record_webhook_state(webhook_pointer self, const webhook_try& entry, bool failing, std::int64_t now,
                  const std::string& reason) {
  bool changed = false;
  auto err = self->state.settings.store->with_records(true, [&](storage::record_txn& t)
                                                              -> caf::expected<bool> {
    auto set = storage::set_webhook_state(t, entry.watch_id, entry.webhook_id, failing, now,
                                          reason);
    if (!set)
      return set.error();
    changed = *set;
    return true;
  });
  if (err)
    return log_webhook_store_failed(err);
  if (!changed)
    return;
  boost::json::object fields{
    {"watch", entry.watch_id}, {"webhook", entry.webhook_id}, {"url", entry.shown_url}};
  if (failing)
    fields["reason"] = reason;
  base::log::write(failing ? base::log::level::warn : base::log::level::info,
                   failing ? "webhook_failing" : "webhook_recovered", std::move(fields));
}

void on_webhook_try_done(webhook_pointer self, std::uint64_t number, core::webhook_delivery& outcome) {
  auto& st = self->state;
  auto i = st.tries.find(number);
  if (i == st.tries.end())
    return;
  auto entry = std::move(i->second);
  st.tries.erase(i);
  auto now = st.settings.now();
  if (outcome.delivered() && entry.was_failing)
    record_webhook_state(self, entry, false, now, {});
  if (entry.promise) {
    // A test is tried once; its failure is the caller's answer, not the webhook's state.
    entry.promise->deliver(std::move(outcome));
    return;
  }
  auto* d = st.lanes.under_way(entry.lane, entry.number);
  if (d == nullptr)
    return;
  // Kept only while the lane is there: a lane cleared meanwhile (its webhook gone) keeps none.
  if (entry.live && outcome.delivered())
    st.live_messages[entry.lane] = outcome.live_message;
  if (outcome.delivered()) {
    st.lanes.finish(entry.lane);
    return pump_lane(self, entry.lane);
  }
  if (entry.live && outcome.live_gone) {
    // Someone deleted the message: not a failed try. The same delivery posts a new one now;
    // a 404 to that POST is an ordinary failure, so this happens once per delivery at most.
    st.live_messages.erase(entry.lane);
    base::log::write(base::log::level::info, "webhook_message_gone",
                     {{"watch", entry.watch_id}, {"webhook", entry.webhook_id}});
    return try_lane_delivery(self, entry.lane, *d);
  }
  ++d->failures;
  auto reason = core::failure_reason(outcome);
  auto next = core::next_retry(st.settings.retries, d->first_try, now, d->failures,
                              core::jitter_draw(d->jitter_key, d->failures));
  auto wait_s = (static_cast<std::int64_t>(outcome.wait_ms) + 999) / 1000;
  if (outcome.wait_ms > 0 && d->waits < core::discord_live_most_waits
      && now + wait_s <= d->first_try + st.settings.retries.retry_for) {
    // Rate limited: Discord says when to come back, within the retry time.
    ++d->waits;
    base::log::write(base::log::level::warn, "webhook_rate_limited",
                     {{"watch", entry.watch_id},
                      {"webhook", entry.webhook_id},
                      {"url", entry.shown_url},
                      {"retry_in_ms", outcome.wait_ms}});
    self->delayed_send(self, std::chrono::milliseconds(outcome.wait_ms), retry_atom::value,
                       entry.lane, entry.number);
    return;
  }
  base::log::write(base::log::level::warn, "webhook_try_failed",
                   {{"watch", entry.watch_id},
                    {"webhook", entry.webhook_id},
                    {"url", entry.shown_url},
                    {"try", d->failures},
                    {"reason", reason},
                    {"retry_in_s", next ? boost::json::value(*next - now) : boost::json::value(nullptr)}});
  if (next) {
    self->delayed_send(self, std::chrono::seconds(std::max<std::int64_t>(*next - now, 0)),
                       retry_atom::value, entry.lane, entry.number);
    return;
  }
  record_webhook_state(self, entry, true, now, reason);
  st.lanes.finish(entry.lane);
  pump_lane(self, entry.lane);
}

/// One webhook an alert goes to.
struct alerted_webhook {
  std::string watch_id;
  std::string webhook_id;
  core::webhook_format format = core::webhook_format::json;
};

void deliver_alert(webhook_pointer self, const core::watch_alert& alert) {
  auto& st = self->state;
  if (!alert.changes.alerts())
    return;
  std::vector<alerted_webhook> found;
  auto err = st.settings.store->with_records(false, [&](storage::record_txn& t)
                                                      -> caf::expected<bool> {
    found.clear();
    auto ids = storage::watches_with_webhooks(t, alert.host, alert.port);
    if (!ids)
      return ids.error();
    for (auto& id : *ids) {
      auto watch = storage::get_watch(t, id);
      if (!watch)
        return watch.error();
      // A watch made after the previous check did not see it: a watch's first check never
      // alerts.
      if (!*watch || (*watch)->watch.created >= alert.previous.at
          || (*watch)->watch.host != alert.host || (*watch)->watch.port != alert.port)
        continue;
      auto held = storage::list_webhooks(t, id);
      if (!held)
        return held.error();
      for (auto& record : *held)
        found.push_back({id, record.webhook.id, record.webhook.format});
    }
    return true;
  });
  if (err)
    return log_webhook_store_failed(err);
  for (auto& hook : found) {
    auto event = core::change_event(hook.watch_id, alert.host, alert.port, alert.previous,
                                   alert.current, alert.changes,
                                   core::server_history_link(st.settings.public_base_url,
                                                            alert.host, alert.port));
    queued_delivery d;
    d.number = st.next_number++;
    d.watch_id = hook.watch_id;
    d.webhook_id = hook.webhook_id;
    d.body = core::webhook_body(hook.format, event);
    d.jitter_key = hook.webhook_id + "|" + std::to_string(alert.current.at);
    auto lane = webhook_lane_of(hook.watch_id, hook.webhook_id);
    if (st.lanes.push(lane, std::move(d)) > 0)
      base::log::write(base::log::level::warn, "webhook_delivery_dropped",
                       {{"watch", hook.watch_id},
                        {"webhook", hook.webhook_id},
                        {"reason", "its lane holds " + std::to_string(st.settings.lane_limit)
                                     + " deliveries; the oldest waiting one is dropped"}});
    pump_lane(self, lane);
  }
}

/// The server's latest stored check for a test; none when it has none yet, or when the store
/// fails (logged): a test still shows whether the webhook works.
std::optional<core::history_row> latest_check(webhook_actor_state& st, const std::string& key) {
  if (!st.settings.watching)
    return std::nullopt;
  auto latest = st.settings.watching->latest_checks({key});
  if (!latest) {
    log_webhook_store_failed(latest.error());
    return std::nullopt;
  }
  return latest->empty() ? std::nullopt : std::move(latest->front());
}

caf::typed_response_promise<core::webhook_delivery>
deliver_test(webhook_pointer self, const std::string& watch_id, const std::string& webhook_id) {
  auto& st = self->state;
  auto promise = self->make_response_promise<core::webhook_delivery>();
  std::optional<storage::watch_record> watch;
  std::optional<storage::webhook_record> webhook;
  auto err = st.settings.store->with_records(false, [&](storage::record_txn& t)
                                                      -> caf::expected<bool> {
    auto got_watch = storage::get_watch(t, watch_id);
    if (!got_watch)
      return got_watch.error();
    auto got_webhook = storage::get_webhook(t, watch_id, webhook_id);
    if (!got_webhook)
      return got_webhook.error();
    watch = std::move(*got_watch);
    webhook = std::move(*got_webhook);
    return true;
  });
  if (err) {
    log_webhook_store_failed(err);
    promise.deliver(failed_webhook_try(core::error_code::unavailable,
                                    "the account store failed; try again shortly"));
    return promise;
  }
  if (!watch || !webhook) {
    promise.deliver(failed_webhook_try(core::error_code::unknown_webhook,
                                    "watch " + watch_id + " has no webhook " + webhook_id));
    return promise;
  }
  const auto& where = watch->watch;
  auto event = core::test_event(watch_id, where.host, where.port,
                               latest_check(st, core::schedule_key(where.host, where.port)),
                               st.settings.now(),
                               core::server_history_link(st.settings.public_base_url, where.host,
                                                        where.port));
  webhook_try entry;
  entry.watch_id = watch_id;
  entry.webhook_id = webhook_id;
  entry.promise = promise;
  send_webhook_try(self, st.next_number++, std::move(entry), *webhook,
           core::webhook_body(webhook->webhook.format, event));
  return promise;
}

} // namespace

webhook_actor::behavior_type webhooks(webhook_pointer self, webhook_settings settings) {
  self->state.lanes = delivery_lanes{settings.lane_limit};
  self->state.settings = std::move(settings);
  return {
    [=](alert_atom, const core::watch_alert& alert) { deliver_alert(self, alert); },
    [=](test_atom, const std::string& watch_id, const std::string& webhook_id) {
      return deliver_test(self, watch_id, webhook_id);
    },
    [=](delivered_atom, std::uint64_t number, core::webhook_delivery& outcome) {
      on_webhook_try_done(self, number, outcome);
    },
    [=](retry_atom, const std::string& lane, std::uint64_t number) {
      if (auto* d = self->state.lanes.under_way(lane, number))
        try_lane_delivery(self, lane, *d);
    },
  };
}

} // namespace netherscope::actors
