#include "actors/target_memory_actor.hpp"

#include <caf/all.hpp>

#include "base/log.hpp"

namespace netherscope::actors {


namespace {

void store_failed(std::string_view what, const caf::error& err) {
  // The memory only saves time; a call without it still works, so this is a warning.
  base::log::write(base::log::level::warn, "target_memory_failed",
             {{"step", what}, {"error", caf::to_string(err)}});
}

void schedule_sweep(actors::memory_actor::stateful_pointer<memory_state> self) {
  auto interval = self->state.settings.sweep_interval;
  if (interval.count() > 0)
    self->delayed_send(self, interval, sweep_atom::value);
}

} // namespace

actors::memory_actor::behavior_type memory(memory_actor::stateful_pointer<memory_state> self,
                                   memory_settings settings) {
  self->state.settings = std::move(settings);
  schedule_sweep(self);
  return {
    [=](recall_atom, const std::string& host,
        std::uint16_t port) -> caf::result<core::target_memory> {
      auto& cfg = self->state.settings;
      auto recalled = cfg.store->recall_target(host, port, cfg.now());
      if (!recalled) {
        store_failed("recall", recalled.error());
        return recalled.error();
      }
      return std::move(*recalled);
    },
    [=](remember_atom, const std::string& host, std::uint16_t port,
        const core::target_memory_update& update) {
      auto& cfg = self->state.settings;
      if (update.empty())
        return;
      if (auto err = cfg.store->remember_target(host, port, update, cfg.now()))
        store_failed("remember", err);
    },
    [=](sweep_atom) {
      auto& cfg = self->state.settings;
      schedule_sweep(self);
      auto swept = cfg.store->sweep_targets(cfg.now(), cfg.sweep_limit);
      if (!swept)
        return store_failed("sweep", swept.error());
      if (*swept > 0)
        base::log::write(base::log::level::debug, "target_memory_swept", {{"records", *swept}});
    },
  };
}

} // namespace netherscope::actors
