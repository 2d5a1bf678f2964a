#include "actors/watch_scheduler.hpp"

#include <caf/all.hpp>

#include "actors/status_flow.hpp"
#include "net/api/telemetry.hpp"
#include "net/base/crypto.hpp"
#include "net/base/log.hpp"
#include "net/report/check_row.hpp"
#include "net/report/verdict.hpp"

namespace netherscope::actors {

namespace api = net::api;
namespace base = net::base;
namespace report = net::report;

namespace {

using scheduler_pointer = watch_scheduler_actor::stateful_pointer<scheduler_state>;
using steady = std::chrono::steady_clock;

double ms_since(steady::time_point t0) {
  return std::chrono::duration<double, std::milli>(steady::now() - t0).count();
}

/// The server a schedule key names ("<host>|<port>"); nullopt for a key no watch could make.
std::optional<api::target> target_of(std::string_view key) {
  auto bar = key.rfind('|');
  if (bar == std::string_view::npos || bar == 0)
    return std::nullopt;
  unsigned port = 0;
  auto digits = key.substr(bar + 1);
  if (digits.empty() || digits.size() > 5)
    return std::nullopt;
  for (auto c : digits) {
    if (c < '0' || c > '9')
      return std::nullopt;
    port = port * 10 + static_cast<unsigned>(c - '0');
  }
  if (port == 0 || port > 65535)
    return std::nullopt;
  api::target where;
  where.host = std::string{key.substr(0, bar)};
  where.port = static_cast<std::uint16_t>(port);
  return where;
}

void poll(scheduler_pointer self);

/// Hands the check's row (empty when the check gave none) to the history actor, which
/// completes the claim and stores it.
void finish(scheduler_pointer self, const api::schedule_claim& claim, std::string encoded) {
  auto& st = self->state;
  api::process_telemetry().count_watch_check(!encoded.empty());
  self->request(st.peers.history, caf::infinite, record_atom::value, claim, st.settings.owner,
                std::move(encoded))
    .then(
      [=](std::string&) {
        --self->state.in_flight;
      },
      [=](caf::error& err) {
        --self->state.in_flight;
        base::log::write(base::log::level::warn, "watch_record_lost",
                         {{"error", caf::to_string(err)}});
      });
}

/// The verdict and the row once every reply is in (or the offer was not made).
void conclude(scheduler_pointer self, const api::schedule_claim& claim,
              const api::target& where, const report::check_replies& replies) {
  auto facts = report::facts_of_check(where, replies);
  auto verdict = report::decide(facts);
  auto row = report::row_of_check(facts, verdict, replies, self->state.settings.now_ms() / 1000);
  finish(self, claim, api::encode(row));
}

/// The probed offer, asked afresh, after the status answered.
void check_offer(scheduler_pointer self, const api::schedule_claim& claim,
                 const api::target& where, report::check_replies replies) {
  api::offer_request req;
  req.where = where;
  req.fresh = true;
  req.probe = true;
  auto t0 = steady::now();
  // No timeout: the cache answers within its flight deadline.
  self->request(self->state.peers.cache, caf::infinite, offer_atom::value, std::move(req))
    .then(
      [=](api::offer_reply& offer) mutable {
        if (!report::is_target_failure(offer.error)) {
          // The per-target limit, a refused address, or the service failing: no verdict
          // about the server, so no row; the next slot checks again.
          finish(self, claim, {});
          return;
        }
        replies.offer = std::move(offer);
        replies.offer_tried = true;
        replies.offer_ms = ms_since(t0);
        conclude(self, claim, where, replies);
      },
      [=](caf::error&) { finish(self, claim, {}); });
}

/// Runs one claimed check.
void run_check(scheduler_pointer self, const api::schedule_claim& claim) {
  auto& st = self->state;
  auto where = target_of(claim.key);
  if (!where) {
    finish(self, claim, {});
    return;
  }
  api::process_telemetry().count_watch_lag(api::lag_ms(claim.due_ms, st.settings.now_ms()));
  auto t0 = steady::now();
  ask_both_transports(self, st.peers.registry, st.settings.info_deadline, *where, 0,
                      [=, where = *where](api::info_reply&& info, api::raknet_reply&& raknet) {
                        report::check_replies replies;
                        replies.info_ms = ms_since(t0);
                        replies.info = std::move(info);
                        replies.raknet = std::move(raknet);
                        if (!report::is_target_failure(replies.info.error)) {
                          // A refused address (a name that now resolves inside) or the
                          // service failing: nothing to say about the server.
                          finish(self, claim, {});
                          return;
                        }
                        auto code = replies.info.error.code;
                        if (code == api::error_code::upstream_failure
                            || code == api::error_code::upstream_timeout) {
                          conclude(self, claim, where, replies);
                          return;
                        }
                        check_offer(self, claim, where, std::move(replies));
                      });
}

/// Claims what is due, up to the room left, and runs it.
void poll(scheduler_pointer self) {
  auto& st = self->state;
  if (st.claiming || st.in_flight >= st.settings.max_in_flight)
    return;
  st.claiming = true;
  auto room = st.settings.max_in_flight - st.in_flight;
  auto lease = api::lease_for(st.settings.check_deadline.count());
  self->request(st.peers.history, caf::infinite, claim_atom::value, st.settings.owner, room, lease)
    .then(
      [=](std::vector<api::schedule_claim>& claims) {
        self->state.claiming = false;
        self->state.in_flight += claims.size();
        for (const auto& claim : claims)
          run_check(self, claim);
      },
      [=](caf::error&) { self->state.claiming = false; });
}

} // namespace

watch_scheduler_actor::behavior_type
watch_scheduler(watch_scheduler_actor::stateful_pointer<scheduler_state> self,
                scheduler_peers peers, scheduler_settings settings) {
  self->state.peers = std::move(peers);
  self->state.settings = std::move(settings);
  if (self->state.settings.owner.empty()) {
    // Unique per process, so a replica's leases are its own.
    auto drawn = base::random_bytes(16);
    self->state.settings.owner = base::base64url_encode(drawn ? *drawn : std::string{});
  }
  self->send(self, sync_atom::value);
  self->delayed_send(self, self->state.settings.poll_interval, tick_atom::value);
  return {
    [=](tick_atom) {
      poll(self);
      self->delayed_send(self, self->state.settings.poll_interval, tick_atom::value);
    },
    [=](sync_atom) {
      self->request(self->state.peers.history, caf::infinite, sync_atom::value)
        .then([=](std::size_t) { poll(self); }, [=](caf::error&) {});
      self->delayed_send(self, self->state.settings.sync_interval, sync_atom::value);
    },
  };
}

} // namespace netherscope::actors
