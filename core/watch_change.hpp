// Whether a watched server's check changed something an owner is alerted about, compared
// with the check before it: joinable or not, online or not, its identity key, its version
// (docs/WATCHES.md, "Alerts"). Pure: the watch actor reads the previous row from history.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/history_row.hpp"

namespace netherscope::core {

/// What differs between two consecutive checks.
struct verdict_change {
  /// Joinable before and not now, or the other way round.
  bool joinable = false;
  /// Online before and offline now, or the other way round.
  bool online = false;
  /// Both checks verified an identity key, and the keys differ.
  bool key = false;
  /// Both checks reported a version, and the versions differ.
  bool version = false;
  /// The verdict code differs. Alone (signalling_only to no_candidates, say) it is no alert:
  /// it is reported beside one of the changes above.
  bool verdict = false;

  /// Whether the change is one an owner is alerted about.
  bool alerts() const { return joinable || online || key || version; }

  /// The alerting changes by name, in this order: "joinable", "online", "key", "version".
  std::vector<std::string> names() const;
};

/// What the current check changed since the previous one, or nullopt when it changed
/// nothing to alert about: a repeat, a change of verdict within the same class, and a first
/// check (no previous) all give nullopt.
std::optional<verdict_change> change_between(const std::optional<history_row>& previous,
                                             const history_row& current);

} // namespace netherscope::core
