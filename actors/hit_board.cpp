#include "actors/hit_board.hpp"

namespace netherscope::actors {


hit_board::hit_board(offer_cache::limits lim, std::function<clock_type::time_point()> now)
  : limits_(lim), now_(std::move(now)) {
  // nop
}

void hit_board::apply(const board_update& update) {
  if (auto i = entries_.find(update.key); i != entries_.end())
    erase(i);
  if (!update.body)
    return;
  bytes_ += update.body->size();
  order_.push_back(update.key);
  entries_.emplace(update.key,
                   entry{update.body, update.stored, update.probed, std::prev(order_.end())});
  while (!order_.empty()
         && (entries_.size() > limits_.max_entries || bytes_ > limits_.max_bytes))
    erase(entries_.find(order_.front()));
}

std::optional<hit_board::hit> hit_board::find(const core::target& key, bool need_probe) const {
  auto i = entries_.find(key);
  if (i == entries_.end())
    return std::nullopt;
  // The cache's rule for a plain hit (offer_cache::fresh): younger than ttl, and probed when
  // the call asks for reachability.
  auto now = now_();
  if (now - i->second.stored >= limits_.ttl || (need_probe && !i->second.probed))
    return std::nullopt;
  auto age = std::chrono::duration_cast<std::chrono::seconds>(now - i->second.stored).count();
  return hit{i->second.body, age < 0 ? 0 : age};
}

void hit_board::erase(std::map<core::target, entry>::iterator i) {
  bytes_ -= i->second.body->size();
  order_.erase(i->second.position);
  entries_.erase(i);
}

} // namespace netherscope::actors
