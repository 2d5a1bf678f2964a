#include "actors/offer_cache.hpp"

#include "core/api_json.hpp"

namespace netherscope::actors {


namespace {

/// The largest rendered answer the cache keeps; real answers are a few KB.
constexpr std::size_t max_entry_bytes = 256 * 1024;

} // namespace

std::int64_t offer_cache::age_of(const entry& e, clock_type::time_point now) {
  // RFC 9111 5.1: whole seconds, never negative.
  auto age = std::chrono::duration_cast<std::chrono::seconds>(now - e.stored).count();
  return age < 0 ? 0 : age;
}

std::optional<offer_cache::hit> offer_cache::fresh(const core::target& key, clock_type::time_point now,
                                                   bool need_probe) const {
  auto i = entries_.find(key);
  if (i == entries_.end() || now - i->second.stored >= limits_.ttl
      || (need_probe && !i->second.probed))
    return std::nullopt;
  return hit{&i->second.hit_body, age_of(i->second, now)};
}

std::optional<offer_cache::fallback> offer_cache::usable(const core::target& key,
                                                         clock_type::time_point now,
                                                         bool refresh_failed,
                                                         bool need_probe) const {
  auto i = entries_.find(key);
  if (i == entries_.end() || (need_probe && !i->second.probed))
    return std::nullopt;
  auto& e = i->second;
  if (now - e.stored >= limits_.stale_for)
    return std::nullopt;
  auto stale = refresh_failed || now - e.stored >= limits_.ttl;
  core::cache_fields fields{true, stale, e.retrieved_at, e.retrieved_at + limits_.ttl.count()};
  return fallback{core::with_cache_fields(e.body, fields), stale, age_of(e, now)};
}

void offer_cache::put(const core::target& key, std::string body, clock_type::time_point now,
                      wall_clock::time_point retrieved_at, bool probed) {
  if (auto i = entries_.find(key); i != entries_.end())
    erase(i);
  // A hostile target can answer with a body of megabytes; one such entry would evict every
  // other target's answer, so an oversized answer is served once and not kept.
  if (body.size() > max_entry_bytes)
    return;
  auto retrieved
    = std::chrono::duration_cast<std::chrono::seconds>(retrieved_at.time_since_epoch()).count();
  // retrievedAt and expiresAt are the same for every hit on this entry: rendered once here.
  auto hit_body = core::with_cache_fields(
    body, core::cache_fields{true, false, retrieved, retrieved + limits_.ttl.count()});
  bytes_ += body.size() + hit_body.size();
  order_.push_back(key);
  entries_.emplace(key, entry{std::move(body), std::move(hit_body), now, retrieved, probed,
                              std::prev(order_.end())});
  // Oldest first: the one least likely to be asked for again, and first to go stale.
  while (!order_.empty()
         && (entries_.size() > limits_.max_entries || bytes_ > limits_.max_bytes))
    erase(entries_.find(order_.front()));
}

void offer_cache::expire(clock_type::time_point now) {
  while (!order_.empty()) {
    auto i = entries_.find(order_.front());
    if (now - i->second.stored < limits_.stale_for)
      break;
    erase(i);
  }
}

void offer_cache::erase(std::map<core::target, entry>::iterator i) {
  bytes_ -= i->second.body.size() + i->second.hit_body.size();
  order_.erase(i->second.position);
  entries_.erase(i);
}

} // namespace netherscope::actors
