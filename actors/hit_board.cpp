#include "actors/hit_board.hpp"

#include <mutex>

namespace netherscope {

hit_board::hit_board(offer_cache::limits lim, std::function<clock_type::time_point()> now)
  : limits_(lim), now_(std::move(now)) {
  // nop
}

void hit_board::publish(const target& key, std::string hit_body, clock_type::time_point stored,
                        bool probed) {
  // The body is made shareable before the lock is taken, so readers wait for no allocation.
  auto body = std::make_shared<const std::string>(std::move(hit_body));
  std::unique_lock<std::shared_mutex> guard{mutex_};
  if (auto i = entries_.find(key); i != entries_.end())
    erase(i);
  bytes_ += body->size();
  order_.push_back(key);
  entries_.emplace(key, entry{std::move(body), stored, probed, std::prev(order_.end())});
  while (!order_.empty()
         && (entries_.size() > limits_.max_entries || bytes_ > limits_.max_bytes))
    erase(entries_.find(order_.front()));
}

void hit_board::withdraw(const target& key) {
  std::unique_lock<std::shared_mutex> guard{mutex_};
  if (auto i = entries_.find(key); i != entries_.end())
    erase(i);
}

std::optional<hit_board::hit> hit_board::find(const target& key, bool need_probe) const {
  auto now = now_();
  std::shared_lock<std::shared_mutex> guard{mutex_};
  auto i = entries_.find(key);
  // The cache's rule for a plain hit (offer_cache::fresh): younger than ttl, and probed when
  // the call asks for reachability.
  if (i == entries_.end() || now - i->second.stored >= limits_.ttl
      || (need_probe && !i->second.probed))
    return std::nullopt;
  auto age = std::chrono::duration_cast<std::chrono::seconds>(now - i->second.stored).count();
  return hit{i->second.body, age < 0 ? 0 : age};
}

std::size_t hit_board::size() const {
  std::shared_lock<std::shared_mutex> guard{mutex_};
  return entries_.size();
}

void hit_board::erase(std::map<target, entry>::iterator i) {
  bytes_ -= i->second.body->size();
  order_.erase(i->second.position);
  entries_.erase(i);
}

} // namespace netherscope
