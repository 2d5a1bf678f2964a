// Test support: history rows made in one line, for the history, chart and exporter tests.
#pragma once

#include <cstdint>
#include <optional>

#include "core/history_row.hpp"

namespace netherscope::test {

/// A check at `at` (Unix seconds) with a verdict and, when given, the player counts.
inline core::history_row check_row(std::int64_t at, core::verdict_code verdict,
                                       std::optional<std::uint32_t> players = {},
                                       std::optional<std::uint32_t> max_players = {}) {
  core::history_row row;
  row.at = at;
  row.verdict = verdict;
  row.players = players;
  row.max_players = max_players;
  return row;
}

} // namespace netherscope::test
