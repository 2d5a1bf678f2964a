#include "core/watch_schedule.hpp"

#include <algorithm>
#include <cmath>

#include "base/crypto.hpp"

namespace netherscope::core {

namespace {

/// The margin a lease keeps over its check's deadline.
constexpr std::int64_t lease_margin_ms = 5000;

std::int64_t positive_mod(std::int64_t a, std::int64_t m) {
  return ((a % m) + m) % m;
}

} // namespace

std::string schedule_key(std::string_view host, std::uint16_t port) {
  return std::string{host} + "|" + std::to_string(port);
}

std::int64_t slot_offset(std::string_view key, std::int64_t period_ms) {
  auto period = std::max<std::int64_t>(period_ms, 1);
  auto digest = base::sha256(key);
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < 8 && i < digest.size(); ++i)
    bits = (bits << 8) | static_cast<unsigned char>(digest[i]);
  return static_cast<std::int64_t>(bits % static_cast<std::uint64_t>(period));
}

std::int64_t next_due(std::string_view key, std::int64_t period_ms, std::int64_t now_ms) {
  auto period = std::max<std::int64_t>(period_ms, 1);
  auto offset = slot_offset(key, period);
  // The slot at or before now, then the one after it.
  auto slot = now_ms - positive_mod(now_ms - offset, period);
  return slot + period;
}

std::int64_t lag_ms(std::int64_t due_ms, std::int64_t started_ms) {
  return std::max<std::int64_t>(started_ms - due_ms, 0);
}

void lag_histogram::add(std::int64_t lag) {
  lag = std::max<std::int64_t>(lag, 0);
  std::size_t b = 0;
  while (b < bounds_ms.size() && lag > bounds_ms[b])
    ++b;
  ++buckets_[b];
  ++count_;
  sum_ += lag;
  max_ = std::max(max_, lag);
}

std::int64_t lag_histogram::quantile_bound_ms(double q) const {
  if (count_ == 0)
    return 0;
  auto wanted = static_cast<std::uint64_t>(std::ceil(std::clamp(q, 0.0, 1.0) * count_));
  std::uint64_t seen = 0;
  for (std::size_t b = 0; b < bounds_ms.size(); ++b) {
    seen += buckets_[b];
    if (seen >= wanted)
      return std::min(bounds_ms[b], max_);
  }
  return max_;
}

void watch_schedule::set_ready(schedule_entry& entry, std::int64_t ready_ms) {
  ready_.erase({entry.ready_ms, entry.key});
  entry.ready_ms = ready_ms;
  ready_.insert({entry.ready_ms, entry.key});
}

void watch_schedule::put(std::string key, std::int64_t period_ms, std::int64_t now_ms) {
  auto period = std::max<std::int64_t>(period_ms, 1);
  auto found = entries_.find(key);
  if (found == entries_.end()) {
    schedule_entry entry;
    entry.key = key;
    entry.period_ms = period;
    entry.due_ms = next_due(key, period, now_ms);
    entry.ready_ms = entry.due_ms;
    ready_.insert({entry.ready_ms, entry.key});
    entries_.emplace(std::move(key), std::move(entry));
    return;
  }
  auto& entry = found->second;
  if (entry.period_ms == period)
    return;
  entry.period_ms = period;
  if (entry.owner.empty()) {
    entry.due_ms = next_due(entry.key, period, now_ms);
    set_ready(entry, entry.due_ms);
  }
}

bool watch_schedule::remove(std::string_view key) {
  auto found = entries_.find(key);
  if (found == entries_.end())
    return false;
  ready_.erase({found->second.ready_ms, found->second.key});
  entries_.erase(found);
  return true;
}

std::vector<schedule_claim> watch_schedule::claim(const std::string& owner, std::int64_t now_ms,
                                                  std::size_t max, std::int64_t lease_ms) {
  std::vector<schedule_claim> claims;
  while (claims.size() < max && !ready_.empty() && ready_.begin()->first <= now_ms) {
    auto& entry = entries_.find(ready_.begin()->second)->second;
    schedule_claim c;
    c.key = entry.key;
    c.due_ms = entry.due_ms;
    c.lease_until_ms = now_ms + std::max<std::int64_t>(lease_ms, 1);
    c.taken_from = entry.owner;
    entry.owner = owner;
    set_ready(entry, c.lease_until_ms);
    claims.push_back(std::move(c));
  }
  return claims;
}

bool watch_schedule::complete(std::string_view key, std::string_view owner, std::int64_t due_ms,
                              std::int64_t now_ms) {
  auto found = entries_.find(key);
  if (found == entries_.end())
    return false;
  auto& entry = found->second;
  if (entry.owner.empty() || entry.owner != owner || entry.due_ms != due_ms)
    return false;
  entry.owner.clear();
  entry.due_ms = next_due(entry.key, entry.period_ms, now_ms);
  set_ready(entry, entry.due_ms);
  return true;
}

std::optional<std::int64_t> watch_schedule::next_ready() const {
  if (ready_.empty())
    return std::nullopt;
  return ready_.begin()->first;
}

const schedule_entry* watch_schedule::find(std::string_view key) const {
  auto found = entries_.find(key);
  return found == entries_.end() ? nullptr : &found->second;
}

std::vector<std::string> watch_schedule::keys() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& [key, entry] : entries_)
    out.push_back(key);
  return out;
}

std::int64_t lease_for(std::int64_t check_deadline_ms) {
  return std::max<std::int64_t>(check_deadline_ms, 0) + lease_margin_ms;
}

} // namespace netherscope::core
