#include "actors/offer_cache.hpp"

#include "net/api/api_json.hpp"

namespace netherscope {

const std::string* offer_cache::fresh(const target& key, clock_type::time_point now) const {
  auto i = entries_.find(key);
  if (i == entries_.end() || now - i->second.stored >= limits_.ttl)
    return nullptr;
  return &i->second.hit_body;
}

std::optional<offer_cache::hit> offer_cache::usable(const target& key,
                                                    clock_type::time_point now) const {
  auto i = entries_.find(key);
  if (i == entries_.end())
    return std::nullopt;
  auto age = now - i->second.stored;
  if (age >= limits_.stale_for)
    return std::nullopt;
  return hit{&i->second.body, age >= limits_.ttl};
}

void offer_cache::put(const target& key, std::string body, clock_type::time_point now) {
  if (auto i = entries_.find(key); i != entries_.end())
    erase(i);
  auto hit_body = net::with_cache_flags(body, true, false);
  bytes_ += body.size() + hit_body.size();
  order_.push_back(key);
  entries_.emplace(key, entry{std::move(body), std::move(hit_body), now, std::prev(order_.end())});
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

void offer_cache::erase(std::map<target, entry>::iterator i) {
  bytes_ -= i->second.body.size() + i->second.hit_body.size();
  order_.erase(i->second.position);
  entries_.erase(i);
}

} // namespace netherscope
