#include "actors/status_flow.hpp"

#include "actors/outcomes.hpp"

#include <memory>
#include <optional>
#include <utility>

#include <caf/all.hpp>

#include "core/status.hpp"
#include "core/verdict.hpp"

namespace netherscope::actors {

namespace {

using front_pointer = front_actor::pointer;

/// One POST /api/status while it runs; only self's handlers touch it.
struct batch_run {
  core::api_call call;
  /// The next target to start, and how many are running or done.
  std::size_t next = 0;
  std::size_t running = 0;
  std::size_t done = 0;
  /// The refusal of the first charge a quota refused: every later target gets it too.
  std::optional<core::failure> refused;
};

void start_next(front_pointer self, const front_peers& peers, const front_settings& settings,
                std::shared_ptr<batch_run> run);

/// Hands one target's line on, the last with last set, and starts the next target.
void emit(front_pointer self, const front_peers& peers, const front_settings& settings,
          const std::shared_ptr<batch_run>& run, std::string line) {
  --run->running;
  ++run->done;
  run->call.lines(std::move(line), run->done == run->call.batch.size());
  start_next(self, peers, settings, run);
}

/// Checks one counted target.
void check_item(front_pointer self, const front_peers& peers, const front_settings& settings,
                const std::shared_ptr<batch_run>& run, const core::status_item& item) {
  ask_status(self, peers, settings, item.where, item.raknet_port,
             [=, where = item.where](core::info_reply&& info, core::raknet_reply&& raknet) {
               // A refused target (the address policy) or the service failing is the line's
               // error; anything the target did is its status.
               auto line = core::is_target_failure(info.error)
                             ? core::render_status_line(where, info, raknet)
                             : core::render_status_error_line(where, info.error);
               emit(self, peers, settings, run, std::move(line));
             });
}

/// Starts one target: its error when it cannot be checked, or its charge, then its check.
void start_item(front_pointer self, const front_peers& peers, const front_settings& settings,
                const std::shared_ptr<batch_run>& run, const core::status_item& item) {
  ++run->running;
  if (!item.invalid.ok())
    return emit(self, peers, settings, run,
                core::render_status_error_line(item.where, item.invalid));
  if (run->refused)
    return emit(self, peers, settings, run,
                core::render_status_error_line(item.where, *run->refused));
  auto charge = core::quota_charge::count_call(core::endpoint::info, run->call.client,
                                              run->call.key_hash);
  self->request(peers.quotas, caf::infinite, charge_atom::value, std::move(charge))
    .then(
      [=, where = item.where](core::quota_verdict& verdict) {
        if (verdict.error.ok())
          return check_item(self, peers, settings, run, item);
        if (!run->refused)
          run->refused = verdict.error;
        emit(self, peers, settings, run, core::render_status_error_line(where, verdict.error));
      },
      [=, where = item.where](caf::error& err) {
        emit(self, peers, settings, run, core::render_status_error_line(where, lost(err)));
      });
}

void start_next(front_pointer self, const front_peers& peers, const front_settings& settings,
                std::shared_ptr<batch_run> run) {
  auto& batch = run->call.batch;
  while (run->running < status_batch_parallel && run->next < batch.size()) {
    // Targets start in the caller's order, so when the quota runs out it is the last ones
    // that carry the refusal.
    const auto& item = batch[run->next++];
    start_item(self, peers, settings, run, item);
  }
}

std::int64_t unix_now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

} // namespace

void ask_status(front_pointer self, const front_peers& peers, const front_settings& settings,
                const core::target& where, std::uint16_t raknet_port, status_fn done) {
  ask_both_transports(self, peers.registry, settings.info_deadline, where, raknet_port,
                      std::move(done));
}

void serve_status(front_pointer self, const front_peers& peers, const front_settings& settings,
                  core::api_call& call, core::quota_verdict verdict) {
  ask_status(self, peers, settings, call.where, call.raknet_port,
             [reply = call.reply, verdict](core::info_reply&& info, core::raknet_reply&& raknet) {
               if (!core::is_target_failure(info.error)) {
                 // A refused target (the address policy), or the service failing.
                 reply(with_quota(failed(std::move(info.error)), verdict));
                 return;
               }
               auto outcome = with_quota({}, verdict);
               outcome.body = core::render_status(info, raknet);
               reply(std::move(outcome));
             });
}

void serve_badge(front_pointer self, const front_peers& peers, const front_settings& settings,
                 core::api_call& call, core::quota_verdict verdict) {
  auto where = call.where;
  auto history = peers.history;
  ask_status(self, peers, settings, call.where, call.raknet_port,
             [=, reply = call.reply](core::info_reply&& info, core::raknet_reply&& raknet) {
               if (!core::is_target_failure(info.error)) {
                 reply(with_quota(failed(std::move(info.error)), verdict));
                 return;
               }
               auto draw = [=](const std::optional<core::history_row>& latest) {
                 auto outcome = with_quota({}, verdict);
                 outcome.body = core::render_badge_status(info, raknet, latest);
                 reply(std::move(outcome));
               };
               // No timeout: the history actor answers from memory, reading the store only
               // after a sync, as for /metrics.
               self->request(history, caf::infinite, latest_atom::value)
                 .then(
                   [=](watched_checks& checks) {
                     draw(checks ? core::recent_check(*checks, where, unix_now_seconds())
                                 : std::nullopt);
                   },
                   [=](caf::error&) { draw(std::nullopt); });
             });
}

void serve_status_batch(front_pointer self, const front_peers& peers,
                        const front_settings& settings, core::api_call& call) {
  // The head shows the quota as it stands when the call begins; each target is counted as
  // its turn comes.
  auto look_up = core::quota_charge::look_up(core::endpoint::info, call.client, call.key_hash);
  auto reply = call.reply;
  self->request(peers.quotas, caf::infinite, charge_atom::value, std::move(look_up))
    .then(
      [=, call = std::move(call)](core::quota_verdict& verdict) mutable {
        if (!verdict.error.ok()) {
          // An unknown key, a quota already spent or a store that does not answer: no target
          // could be counted, so the call is one error.
          call.reply(with_quota(failed(std::move(verdict.error)), verdict));
          return;
        }
        if (!call.invalid.ok() || call.batch.empty()) {
          auto error = call.invalid.ok()
                         ? core::make_failure(core::error_code::invalid_input, "no targets")
                         : call.invalid;
          call.reply(with_quota(failed(std::move(error)), verdict));
          return;
        }
        auto head = with_quota({}, verdict);
        head.streaming = true;
        call.reply(std::move(head));
        auto run = std::make_shared<batch_run>();
        run->call = std::move(call);
        start_next(self, peers, settings, run);
      },
      [reply](caf::error& err) { reply(lost_reply(err)); });
}

} // namespace netherscope::actors
