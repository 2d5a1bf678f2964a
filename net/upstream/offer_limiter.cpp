#include "net/upstream/offer_limiter.hpp"

#include <algorithm>

namespace netherscope::net::upstream {

namespace {

constexpr auto window = std::chrono::minutes(1);

} // namespace

std::chrono::seconds offer_limiter::try_start(const std::vector<std::string>& servers,
                                              clock_type::time_point now,
                                              unsigned in_flight_limit) {
  forget_old(now);
  auto wait = clock_type::duration::zero();
  for (auto& name : servers) {
    auto i = servers_.find(name);
    if (i == servers_.end())
      continue;
    auto& s = i->second;
    while (!s.sent.empty() && now - s.sent.front() >= window)
      s.sent.pop_front();
    // Never two offers at once to one server, but for a join's players: each may hold a UDP
    // port until it times out.
    if (s.in_flight >= std::max(1u, in_flight_limit))
      wait = std::max<clock_type::duration>(wait, std::chrono::seconds(1));
    if (s.sent.size() >= per_minute_)
      wait = std::max<clock_type::duration>(wait, s.sent.front() + window - now);
  }
  if (wait > clock_type::duration::zero())
    return std::max(std::chrono::seconds(1),
                    std::chrono::duration_cast<std::chrono::seconds>(wait)
                      + std::chrono::seconds(1));
  for (auto& name : servers) {
    auto& s = servers_[name];
    s.sent.push_back(now);
    ++s.in_flight;
  }
  return std::chrono::seconds::zero();
}

void offer_limiter::finish(const std::vector<std::string>& servers) {
  for (auto& name : servers) {
    auto i = servers_.find(name);
    if (i != servers_.end() && i->second.in_flight > 0)
      --i->second.in_flight;
  }
}

void offer_limiter::cancel(const std::vector<std::string>& servers) {
  for (auto& name : servers) {
    auto i = servers_.find(name);
    if (i == servers_.end())
      continue;
    auto& s = i->second;
    if (s.in_flight > 0)
      --s.in_flight;
    // try_start appended the newest time; this start no longer counts.
    if (!s.sent.empty())
      s.sent.pop_back();
  }
}

std::size_t offer_limiter::tracked() {
  forget_old(clock_type::now());
  return servers_.size();
}

// The map holds only servers offered to in the last minute: a sweep at most every few
// seconds keeps it bounded by the offer rate, whoever names the targets.
void offer_limiter::forget_old(clock_type::time_point now) {
  if (now - last_sweep_ < std::chrono::seconds(5) && !servers_.empty())
    return;
  last_sweep_ = now;
  for (auto i = servers_.begin(); i != servers_.end();) {
    auto& s = i->second;
    while (!s.sent.empty() && now - s.sent.front() >= window)
      s.sent.pop_front();
    if (s.sent.empty() && s.in_flight == 0)
      i = servers_.erase(i);
    else
      ++i;
  }
}

} // namespace netherscope::net::upstream
