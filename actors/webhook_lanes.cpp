#include "actors/webhook_lanes.hpp"

#include <algorithm>

namespace netherscope::actors {

delivery_lanes::delivery_lanes(std::size_t per_lane) : per_lane_(std::max<std::size_t>(per_lane, 1)) {
  // nop
}

std::size_t delivery_lanes::push(const std::string& lane, queued_delivery delivery) {
  auto& l = lanes_[lane];
  std::size_t dropped = 0;
  if (l.queue.size() >= per_lane_) {
    // The one under way stays: it may be on the wire, and its retry timer names it.
    auto oldest_waiting = l.busy ? std::next(l.queue.begin()) : l.queue.begin();
    if (oldest_waiting != l.queue.end()) {
      l.queue.erase(oldest_waiting);
      dropped = 1;
    }
  }
  // With a bound of one and that one under way, nothing waiting could make room.
  if (l.queue.size() >= per_lane_)
    return dropped + 1;
  l.queue.push_back(std::move(delivery));
  return dropped;
}

queued_delivery* delivery_lanes::start(const std::string& lane) {
  auto i = lanes_.find(lane);
  if (i == lanes_.end() || i->second.busy || i->second.queue.empty())
    return nullptr;
  i->second.busy = true;
  return &i->second.queue.front();
}

queued_delivery* delivery_lanes::under_way(const std::string& lane, std::uint64_t number) {
  auto i = lanes_.find(lane);
  if (i == lanes_.end() || !i->second.busy || i->second.queue.front().number != number)
    return nullptr;
  return &i->second.queue.front();
}

void delivery_lanes::finish(const std::string& lane) {
  auto i = lanes_.find(lane);
  if (i == lanes_.end() || !i->second.busy)
    return;
  i->second.queue.pop_front();
  i->second.busy = false;
  if (i->second.queue.empty())
    lanes_.erase(i);
}

std::size_t delivery_lanes::coalesce(const std::string& lane) {
  auto i = lanes_.find(lane);
  if (i == lanes_.end() || !i->second.busy || i->second.queue.size() < 2)
    return 0;
  auto& q = i->second.queue;
  auto dropped = q.size() - 1;
  auto& front = q.front();
  // The one under way keeps its number (its retry timer names it) and its retries' count and
  // start, so a receiver that stays down is still given up on in the retry time.
  front.body = std::move(q.back().body);
  front.jitter_key = std::move(q.back().jitter_key);
  q.erase(std::next(q.begin()), q.end());
  return dropped;
}

void delivery_lanes::clear(const std::string& lane) {
  lanes_.erase(lane);
}

std::size_t delivery_lanes::size(const std::string& lane) const {
  auto i = lanes_.find(lane);
  return i == lanes_.end() ? 0 : i->second.queue.size();
}

} // namespace netherscope::actors
