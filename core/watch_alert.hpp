// What the history actor tells the webhook actor after storing a check of a target whose
// result changed in a way owners are alerted about (change_between, docs/WATCHES.md,
// "Alerts"). The webhook actor finds the watches of the target and delivers to their
// webhooks; the schedule and the history know targets, never watches.
#pragma once

#include <cstdint>
#include <string>

#include "core/history_row.hpp"
#include "core/watch_change.hpp"

namespace netherscope::core {

/// One alerting change of a watched target.
struct watch_alert {
  /// The target, normalized as watches name it.
  std::string host;
  std::uint16_t port = 0;
  /// The check before, and the one that changed.
  history_row previous;
  history_row current;
  /// What change_between(previous, current) found; alerts() is true.
  verdict_change changes;
};

} // namespace netherscope::core
