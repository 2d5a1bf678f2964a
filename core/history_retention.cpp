#include "core/history_retention.hpp"

#include <algorithm>

#include "core/history_hours.hpp"
#include "core/history_row.hpp"

namespace netherscope::core {

std::size_t history_budget::record_bytes() const {
  return rows * history_row_size + hours * history_hour_size;
}

history_budget budget_for(std::int64_t period_seconds) {
  auto period = std::max<std::int64_t>(period_seconds, 1);
  history_budget budget;
  budget.rows = static_cast<std::size_t>((rows_kept_seconds + period - 1) / period);
  budget.hours = static_cast<std::size_t>(hours_kept_seconds / 3600);
  return budget;
}

prune_rule rows_rule(std::int64_t now, const history_budget& budget) {
  return {now - rows_kept_seconds, budget.rows};
}

prune_rule hours_rule(std::int64_t now, const history_budget& budget) {
  return {now - hours_kept_seconds, budget.hours};
}

std::size_t entries_to_drop(const std::vector<std::int64_t>& ascending_times,
                            const prune_rule& rule) {
  auto old = static_cast<std::size_t>(
    std::lower_bound(ascending_times.begin(), ascending_times.end(), rule.drop_before)
    - ascending_times.begin());
  auto over = ascending_times.size() > rule.keep_at_most
                ? ascending_times.size() - rule.keep_at_most
                : std::size_t{0};
  return std::max(old, over);
}

} // namespace netherscope::core
