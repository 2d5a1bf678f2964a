#include "actors/watch_scheduler.hpp"

#include <caf/all.hpp>

#include "actors/status_flow.hpp"
#include "core/offer_request.hpp"
#include "core/telemetry.hpp"
#include "base/crypto.hpp"
#include "base/log.hpp"
#include "core/check_row.hpp"
#include "core/clients.hpp"
#include "net/report/join_reply.hpp"
#include "core/verdict.hpp"

namespace netherscope::actors {

namespace report = net::report;

namespace {

using scheduler_pointer = watch_scheduler_actor::stateful_pointer<scheduler_state>;
using steady = std::chrono::steady_clock;

double ms_since(steady::time_point t0) {
  return std::chrono::duration<double, std::milli>(steady::now() - t0).count();
}

/// The server a schedule key names ("<host>|<port>"); nullopt for a key no watch could make.
std::optional<core::target> target_of(std::string_view key) {
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
  core::target where;
  where.host = std::string{key.substr(0, bar)};
  where.port = static_cast<std::uint16_t>(port);
  return where;
}

void poll(scheduler_pointer self);

/// Hands the check's row (empty when the check gave none) to the history actor, which
/// completes the claim and stores it.
void finish(scheduler_pointer self, const core::schedule_claim& claim, std::string encoded) {
  auto& st = self->state;
  core::process_telemetry().count_watch_check(!encoded.empty());
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
void conclude(scheduler_pointer self, const core::schedule_claim& claim,
              const core::target& where, const core::check_replies& replies) {
  auto facts = core::facts_of_check(where, replies);
  auto verdict = core::decide(facts);
  auto row = core::row_of_check(facts, verdict, replies, self->state.settings.now_ms() / 1000);
  finish(self, claim, core::encode(row));
}

/// The join, after the status answered: its own fresh offer is the check's offer, and the
/// join decides whether players get in (as for GET /api/check).
void check_join(scheduler_pointer self, const core::schedule_claim& claim,
                const core::target& where, core::check_replies replies) {
  auto order = report::join_order_for(core::seen_from(replies.info, replies.raknet), 0,
                                      core::random_network_id());
  auto t0 = steady::now();
  self->request(self->state.peers.registry, self->state.settings.join_deadline, join_atom::value,
                where, order)
    .then(
      [=](core::join_result& join) mutable {
        if (!join.error.ok() || !core::is_target_failure(join.offer.error)) {
          // The per-target limit, no free worker, a refused address, or the service
          // failing: no verdict about the server, so no row; the next slot checks again.
          finish(self, claim, {});
          return;
        }
        replies.offer = std::move(join.offer);
        replies.offer_tried = true;
        replies.offer_ms = report::join_timing_ms(join.body, "signallingMs").value_or(ms_since(t0));
        // A join that ended at signalling has no more to say than its offer's error.
        if (replies.offer.error.ok())
          replies.join = std::move(join.body);
        conclude(self, claim, where, replies);
      },
      [=](caf::error&) { finish(self, claim, {}); });
}

/// Runs one claimed check.
void run_check(scheduler_pointer self, const core::schedule_claim& claim) {
  auto& st = self->state;
  auto where = target_of(claim.key);
  if (!where) {
    finish(self, claim, {});
    return;
  }
  core::process_telemetry().count_watch_lag(core::lag_ms(claim.due_ms, st.settings.now_ms()));
  auto t0 = steady::now();
  ask_both_transports(self, st.peers.registry, st.settings.info_deadline, *where, 0,
                      [=, where = *where](core::info_reply&& info, core::raknet_reply&& raknet) {
                        core::check_replies replies;
                        replies.info_ms = ms_since(t0);
                        replies.info = std::move(info);
                        replies.raknet = std::move(raknet);
                        if (!core::is_target_failure(replies.info.error)) {
                          // A refused address (a name that now resolves inside) or the
                          // service failing: nothing to say about the server.
                          finish(self, claim, {});
                          return;
                        }
                        auto code = replies.info.error.code;
                        if (code == core::error_code::upstream_failure
                            || code == core::error_code::upstream_timeout) {
                          conclude(self, claim, where, replies);
                          return;
                        }
                        check_join(self, claim, where, std::move(replies));
                      });
}

/// Claims what is due, up to the room left, and runs it.
void poll(scheduler_pointer self) {
  auto& st = self->state;
  if (st.claiming || st.in_flight >= st.settings.max_in_flight)
    return;
  st.claiming = true;
  auto room = st.settings.max_in_flight - st.in_flight;
  // A claim may wait up to one poll interval for its start (below).
  auto lease = core::lease_for((st.settings.check_deadline + st.settings.poll_interval).count());
  self->request(st.peers.history, caf::infinite, claim_atom::value, st.settings.owner, room, lease)
    .then(
      [=](std::vector<core::schedule_claim>& claims) {
        self->state.claiming = false;
        self->state.in_flight += claims.size();
        // The checks due since the last poll start spread over the next interval rather
        // than all at once: each starts a join worker, and a second's checks started
        // together would be a burst of processes that every other call on the machine
        // waits behind.
        auto n = claims.size();
        for (std::size_t i = 0; i < n; ++i) {
          if (i == 0) {
            run_check(self, claims[i]);
            continue;
          }
          auto offset = self->state.settings.poll_interval * static_cast<std::int64_t>(i)
                        / static_cast<std::int64_t>(n);
          self->delayed_send(self, offset, claim_atom::value, claims[i]);
        }
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
    [=](claim_atom, const core::schedule_claim& claim) { run_check(self, claim); },
    [=](sync_atom) {
      self->request(self->state.peers.history, caf::infinite, sync_atom::value)
        .then([=](std::size_t) { poll(self); }, [=](caf::error&) {});
      self->delayed_send(self, self->state.settings.sync_interval, sync_atom::value);
    },
  };
}

} // namespace netherscope::actors
