#include "actors/join_flow.hpp"

#include <memory>
#include <vector>

#include <caf/all.hpp>

#include "actors/give_back.hpp"
#include "actors/outcomes.hpp"
#include "core/offer_request.hpp"
#include "core/clients.hpp"
#include "net/report/join_reply.hpp"

namespace netherscope::actors {

namespace report = net::report;

namespace {

using front_pointer = actors::front_actor::pointer;

/// The players' results as they come in, in the players' order.
struct join_run {
  std::vector<core::join_result> results;
  unsigned left = 0;
};

/// Whether a call's error means the join was not made, so its counted calls go back.
bool gives_back(const core::failure& error) {
  return error.code == core::error_code::target_rate_limited
         || error.code == core::error_code::unavailable;
}

/// The reply once every player's join has ended: the first call error, or the joins.
void answer(front_pointer self, const front_peers& peers, const front_settings& settings,
            const core::api_call& call, const core::quota_verdict& verdict, join_run& run) {
  for (auto& r : run.results) {
    if (r.error.ok())
      continue;
    auto outcome = with_quota(failed(r.error), verdict);
    if (gives_back(r.error))
      return give_back(self, peers, settings, core::endpoint::offer, call, verdict,
                       std::move(outcome), true, call.players);
    return call.reply(std::move(outcome));
  }
  core::api_outcome outcome;
  outcome.body = report::render_join(run.results[0],
                                     run.results.size() > 1 ? &run.results[1] : nullptr);
  call.reply(with_quota(std::move(outcome), verdict));
}

/// Asks the probe for each player's join at once: the players must be in flight together for
/// a second player to meet the port the first one holds.
void run_joins(front_pointer self, const front_peers& peers, const front_settings& settings,
               const core::api_call& call, const core::quota_verdict& verdict,
               core::join_order first) {
  auto run = std::make_shared<join_run>();
  run->results.resize(call.players);
  run->left = call.players;
  for (unsigned i = 0; i < call.players; ++i) {
    auto order = first;
    // A second player is another client: its own network id.
    if (i > 0)
      order.network_id = core::random_network_id();
    auto settle = [=](core::join_result&& result) {
      run->results[i] = std::move(result);
      if (--run->left == 0)
        answer(self, peers, settings, call, verdict, *run);
    };
    self->request(peers.registry, settings.join_deadline, join_atom::value, call.where, order)
      .then([settle](core::join_result& result) mutable { settle(std::move(result)); },
            [settle](caf::error& err) mutable {
              core::join_result lost_join;
              lost_join.error = lost(err);
              settle(std::move(lost_join));
            });
  }
}

/// The server's own protocol and version from its GET /v1/join, then the joins. A status that
/// failed about the target leaves the protocol to the call or to the newest we know; one the
/// address policy refused is the call's answer.
void learn_protocol(front_pointer self, const front_peers& peers, const front_settings& settings,
                    const core::api_call& call, const core::quota_verdict& verdict) {
  self->request(peers.registry, settings.info_deadline, info_atom::value, call.where)
    .then(
      [=](core::info_reply& info) {
        if (info.error.code == core::error_code::forbidden_target
            || info.error.code == core::error_code::invalid_input) {
          call.reply(with_quota(failed(info.error), verdict));
          return;
        }
        auto order = report::join_order_for(core::seen_from(info, core::raknet_reply{}),
                                            call.join_protocol, call.network_id);
        run_joins(self, peers, settings, call, verdict, std::move(order));
      },
      [=](caf::error& err) { call.reply(with_quota(lost_reply(err), verdict)); });
}

/// Counts the players' offer calls one at a time; a refusal gives back those counted before.
void charge_players(front_pointer self, const front_peers& peers, const front_settings& settings,
                    const core::api_call& call, unsigned counted) {
  auto charge = core::quota_charge::count_call(core::endpoint::offer, call.client, call.key_hash);
  self->request(peers.quotas, caf::infinite, charge_atom::value, std::move(charge))
    .then(
      [=](core::quota_verdict& verdict) {
        if (!verdict.error.ok()) {
          auto outcome = with_quota(failed(verdict.error), verdict);
          if (counted == 0)
            return call.reply(std::move(outcome));
          return give_back(self, peers, settings, core::endpoint::offer, call, verdict,
                           std::move(outcome), false, counted);
        }
        if (counted + 1 < call.players)
          return charge_players(self, peers, settings, call, counted + 1);
        if (!call.invalid.ok())
          return call.reply(with_quota(failed(call.invalid), verdict));
        learn_protocol(self, peers, settings, call, verdict);
      },
      [=](caf::error& err) { call.reply(lost_reply(err)); });
}

} // namespace

void serve_join(front_pointer self, const front_peers& peers, const front_settings& settings,
                core::api_call& call) {
  // An invalid call is counted once, as every other call with a bad body.
  if (!call.invalid.ok() || call.players == 0 || call.players > core::max_join_players)
    call.players = 1;
  charge_players(self, peers, settings, call, 0);
}

} // namespace netherscope::actors
