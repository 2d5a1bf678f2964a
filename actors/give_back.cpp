#include "actors/give_back.hpp"

#include <memory>

#include <caf/all.hpp>

namespace netherscope::actors {

namespace {

/// The refunds still to send, and what the last one answers with.
struct refund_run {
  unsigned left = 0;
  core::api_outcome outcome;
  bool show_after = false;
  core::reply_fn reply;
};

void refund_next(front_actor::pointer self, const front_peers& peers,
                 const front_settings& settings, core::quota_charge refund,
                 std::shared_ptr<refund_run> run) {
  self->request(peers.quotas, settings.store_deadline, charge_atom::value, refund)
    .then(
      [=](core::quota_verdict& after) {
        if (--run->left > 0 && after.error.code != core::error_code::unavailable)
          return refund_next(self, peers, settings, refund, run);
        if (run->show_after && after.error.code != core::error_code::unavailable)
          run->outcome.quota = after;
        run->reply(std::move(run->outcome));
      },
      [run](caf::error&) { run->reply(std::move(run->outcome)); });
}

} // namespace

void give_back(front_actor::pointer self, const front_peers& peers,
               const front_settings& settings, core::endpoint what, const core::api_call& call,
               const core::quota_verdict& charged, core::api_outcome outcome, bool show_after,
               unsigned calls) {
  // The counter the call was charged to, as for POST /api/offer (front_actor.cpp).
  auto refund = core::quota_charge::refund_call(what, call.client, call.key_hash, charged);
  auto run = std::make_shared<refund_run>();
  run->left = calls == 0 ? 1 : calls;
  run->outcome = std::move(outcome);
  run->show_after = show_after;
  run->reply = call.reply;
  refund_next(self, peers, settings, std::move(refund), std::move(run));
}

} // namespace netherscope::actors
