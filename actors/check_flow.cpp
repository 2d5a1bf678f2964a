#include "actors/check_flow.hpp"

#include <caf/all.hpp>

#include "actors/give_back.hpp"
#include "actors/outcomes.hpp"
#include "actors/status_flow.hpp"

#include "core/offer_request.hpp"
#include "core/check_row.hpp"
#include "net/report/join_reply.hpp"
#include "core/clients.hpp"
#include "core/verdict.hpp"

namespace netherscope::actors {

namespace report = net::report;

namespace {

using front_pointer = actors::front_actor::pointer;

/// The verdict once every reply is in (or the offer was not made).
void answer(const core::api_call& call, const core::quota_verdict& verdict, core::info_reply info,
            core::raknet_reply raknet, core::offer_reply offer, bool offer_tried,
            const core::join_result* join = nullptr) {
  core::check_replies replies;
  replies.info = std::move(info);
  replies.raknet = std::move(raknet);
  replies.offer = std::move(offer);
  replies.offer_tried = offer_tried;
  // A join that ended at signalling has no more to say than its offer's error.
  if (join != nullptr && join->offer.error.ok())
    replies.join = join->body;
  auto facts = core::facts_of_check(call.where, replies);
  auto decided = core::decide(facts);
  core::api_outcome outcome;
  outcome.body = core::render_check(facts, decided, replies.info, replies.offer,
                                      replies.join ? &*replies.join : nullptr);
  call.reply(with_quota(std::move(outcome), verdict));
}

/// The join, once the status call answered (or failed in a way the verdict reports): its own
/// fresh offer is the check's offer, and the join decides whether players get in.
void check_join(front_pointer self, const front_peers& peers, const front_settings& settings,
                const core::api_call& call, const core::quota_verdict& verdict, core::info_reply info,
                core::raknet_reply raknet) {
  auto order = report::join_order_for(core::seen_from(info, raknet), 0,
                                      core::random_network_id());
  self->request(peers.registry, settings.join_deadline, join_atom::value, call.where, order)
    .then(
      [=](core::join_result& join) {
        if (join.error.code == core::error_code::target_rate_limited
            || join.error.code == core::error_code::unavailable) {
          // The per-target limit or no free worker refused it after it was counted: give
          // the offer call back.
          give_back(self, peers, settings, core::endpoint::offer, call, verdict,
                    with_quota(failed(join.error), verdict), true);
          return;
        }
        if (!join.error.ok()) {
          call.reply(with_quota(failed(join.error), verdict));
          return;
        }
        if (!core::is_target_failure(join.offer.error)) {
          call.reply(with_quota(failed(join.offer.error), verdict));
          return;
        }
        answer(call, verdict, info, raknet, join.offer, true, &join);
      },
      [=](caf::error& err) { call.reply(with_quota(lost_reply(err), verdict)); });
}

/// The work of a call both charges let through: the status over both transports, then the
/// offer when the signalling port answers.
void run_check(front_pointer self, const front_peers& peers, const front_settings& settings,
               const core::api_call& call, const core::quota_verdict& verdict) {
  ask_status(self, peers, settings, call.where, call.raknet_port,
             [=](core::info_reply&& info, core::raknet_reply&& raknet) {
               if (!core::is_target_failure(info.error)) {
                 // A refused target (the address policy), or the service failing: not a
                 // verdict.
                 call.reply(with_quota(failed(info.error), verdict));
                 return;
               }
               // Nothing answers on the signalling port: an offer would only fail the same
               // way.
               if (info.error.code == core::error_code::upstream_failure
                   || info.error.code == core::error_code::upstream_timeout) {
                 answer(call, verdict, info, raknet, core::offer_reply{}, false);
                 return;
               }
               check_join(self, peers, settings, call, verdict, std::move(info),
                          std::move(raknet));
             });
}

} // namespace

void serve_check(front_pointer self, const front_peers& peers, const front_settings& settings,
                 core::api_call& call) {
  auto info_charge = core::quota_charge::count_call(core::endpoint::info, call.client, call.key_hash);
  // Copied before the handlers are made: the first handler moves the call.
  auto reply = call.reply;
  // No timeout on the charges: the quota actor answers each after its commit (as for every
  // other call).
  self->request(peers.quotas, caf::infinite, charge_atom::value, std::move(info_charge))
    .then(
      [=, call = std::move(call)](core::quota_verdict& info_verdict) mutable {
        if (info_verdict.error.code == core::error_code::unavailable) {
          // Nothing was counted. A check shows the offer quota: the same scope and month,
          // the offer's limit.
          auto shown = info_verdict;
          shown.limit = settings.limits.of(core::endpoint::offer, shown.scope);
          call.reply(with_quota(failed(info_verdict.error), shown));
          return;
        }
        if (!info_verdict.error.ok()) {
          // Refused by the info quota: that quota's headers say why.
          call.reply(with_quota(failed(info_verdict.error), info_verdict));
          return;
        }
        auto offer_charge = core::quota_charge::count_call(core::endpoint::offer, call.client,
                                                     call.key_hash);
        self->request(peers.quotas, caf::infinite, charge_atom::value, std::move(offer_charge))
          .then(
            [=](core::quota_verdict& verdict) {
              if (!verdict.error.ok()) {
                // Refused by the offer quota, or its store failed: the info call it was
                // counted for is not made.
                give_back(self, peers, settings, core::endpoint::info, call, info_verdict,
                          with_quota(failed(verdict.error), verdict), false);
                return;
              }
              if (!call.invalid.ok()) {
                call.reply(with_quota(failed(call.invalid), verdict));
                return;
              }
              run_check(self, peers, settings, call, verdict);
            },
            [=](caf::error& err) { call.reply(with_quota(lost_reply(err), info_verdict)); });
      },
      [reply](caf::error& err) {
        reply(lost_reply(err));
      });
}

} // namespace netherscope::actors
