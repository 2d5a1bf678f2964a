#include "storage/watch_store.hpp"

#include <utility>

namespace netherscope::storage {


caf::expected<core::history_slice> read_slice(watch_store& store, std::string_view key,
                                             core::history_range range, std::int64_t now) {
  core::history_slice slice;
  slice.range = range;
  slice.window = core::window_for(range, now);
  if (!core::uses_hours(range)) {
    auto rows = store.read_rows(key, slice.window.from, slice.window.to);
    if (!rows)
      return rows.error();
    slice.rows = std::move(*rows);
    return slice;
  }
  auto hours = store.read_hours(key, slice.window.from, slice.window.to);
  if (!hours)
    return hours.error();
  // The hour still open (and the one before, which a late row may have changed) are folded
  // from their rows, so they show before they are stored whole.
  auto recent_from = core::hour_start(now) - 3600;
  auto recent = store.read_rows(key, recent_from, slice.window.to);
  if (!recent)
    return recent.error();
  auto merged = core::with_recent_hours(std::move(*hours), *recent);
  for (auto& h : merged)
    if (h.start >= slice.window.from && h.start < slice.window.to)
      slice.hours.push_back(std::move(h));
  return slice;
}

} // namespace netherscope::storage
