#include "core/watch_change.hpp"

namespace netherscope::core {

std::vector<std::string> verdict_change::names() const {
  std::vector<std::string> out;
  if (joinable)
    out.emplace_back("joinable");
  if (online)
    out.emplace_back("online");
  if (key)
    out.emplace_back("key");
  if (version)
    out.emplace_back("version");
  return out;
}

std::optional<verdict_change> change_between(const std::optional<history_row>& previous,
                                             const history_row& current) {
  if (!previous)
    return std::nullopt;
  const auto& before = *previous;
  verdict_change change;
  change.joinable = is_joinable(before.verdict) != is_joinable(current.verdict);
  change.online = is_online(before.verdict) != is_online(current.verdict);
  // A key or a version missing from one side says nothing about it changing: an offline
  // check has neither, and coming back online is already the online change.
  change.key = before.key_id && current.key_id && *before.key_id != *current.key_id;
  change.version = !before.version.empty() && !current.version.empty()
                   && before.version != current.version;
  change.verdict = before.verdict != current.verdict;
  if (!change.alerts())
    return std::nullopt;
  return change;
}

} // namespace netherscope::core
