// The connection accounting: rules as a pure function, and the shared table that applies them.
#include "net/http/connection_slots.hpp"

#include <algorithm>

namespace netherscope::net::http {

connection_source source_of(const boost::asio::ip::address& peer) {
  connection_source source;
  if (peer.is_v4()) {
    source.bytes = boost::asio::ip::make_address_v6(boost::asio::ip::v4_mapped, peer.to_v4())
                     .to_bytes();
    return source;
  }
  auto v6 = peer.to_v6();
  source.bytes = v6.to_bytes();
  // A mapped address is the IPv4 client itself (a dual-stack listener reports them so);
  // masking it to a /64 would lump every IPv4 client together.
  if (!v6.is_v4_mapped())
    std::fill(source.bytes.begin() + 8, source.bytes.end(), 0);
  return source;
}

std::size_t reserve_for(std::size_t max_total, unsigned percent) noexcept {
  auto reserve = (max_total * std::min(percent, 100u) + 99) / 100;
  // At least one slot must stay open to anybody, or nothing would ever be admitted.
  return std::min(reserve, max_total > 0 ? max_total - 1 : 0);
}

admission_rule judge_admission(const slot_limits& limits, std::size_t total, std::size_t held,
                               bool exempt) noexcept {
  if (!exempt) {
    if (held >= limits.max_per_source)
      return admission_rule::refuse_source_full;
    auto high_water = limits.max_total - std::min(limits.reserve, limits.max_total);
    if (total >= high_water && held >= limits.fair_share)
      return admission_rule::refuse_over_fair_share;
  }
  if (total >= limits.max_total)
    return admission_rule::admit_by_eviction;
  return admission_rule::admit;
}

std::size_t connection_slots::source_hash::operator()(const connection_source& s) const noexcept {
  // FNV-1a over the 16 bytes: sources are chosen by clients, but the table is bounded by the
  // connections themselves, so a crafted collision costs the attacker as much as us.
  std::size_t h = 14695981039346656037ull;
  for (auto b : s.bytes) {
    h ^= b;
    h *= 1099511628211ull;
  }
  return h;
}

connection_slots::connection_slots(slot_limits limits) : limits_(limits) {
  // nop
}

connection_slots::admission connection_slots::admit(const connection_source& source,
                                                    bool exempt) {
  admission result;
  std::lock_guard<std::mutex> guard{mutex_};
  std::size_t held = 0;
  if (!exempt) {
    auto i = per_source_.find(source);
    held = i == per_source_.end() ? 0 : i->second;
  }
  switch (judge_admission(limits_, open_, held, exempt)) {
    case admission_rule::refuse_source_full:
      ++stats_.refused_source_full;
      result.verdict = admission_verdict::refused_source_full;
      return result;
    case admission_rule::refuse_over_fair_share:
      ++stats_.refused_over_fair_share;
      result.verdict = admission_verdict::refused_over_fair_share;
      return result;
    case admission_rule::admit_by_eviction: {
      if (oldest_idle_ == nullptr) {
        ++stats_.refused_full;
        result.verdict = admission_verdict::refused_full;
        return result;
      }
      // The slot passes to the new connection at once: the evicted one closes on its own
      // thread a moment later and gives nothing back then.
      auto& victim = *oldest_idle_;
      unlink_idle(victim);
      victim.evicted = true;
      if (!victim.exempt)
        forget_source(victim.source);
      --open_;
      ++stats_.evicted;
      result.evict = std::move(victim.evict);
      result.verdict = admission_verdict::admitted_by_eviction;
      break;
    }
    case admission_rule::admit:
      result.verdict = admission_verdict::admitted;
      break;
  }
  result.id = next_ticket_++;
  auto& e = entries_[result.id];
  e.source = source;
  e.exempt = exempt;
  if (!exempt)
    ++per_source_[source];
  ++open_;
  ++stats_.admitted;
  return result;
}

void connection_slots::attach(ticket id, std::function<void()> evict) {
  std::lock_guard<std::mutex> guard{mutex_};
  auto i = entries_.find(id);
  if (i != entries_.end() && !i->second.evicted)
    i->second.evict = std::move(evict);
}

void connection_slots::set_idle(ticket id, bool idle) {
  std::lock_guard<std::mutex> guard{mutex_};
  auto i = entries_.find(id);
  if (i == entries_.end() || i->second.evicted || !i->second.evict)
    return;
  auto& e = i->second;
  if (e.idle == idle)
    return;
  if (!idle) {
    unlink_idle(e);
    return;
  }
  e.idle = true;
  e.older = newest_idle_;
  e.newer = nullptr;
  if (newest_idle_ != nullptr)
    newest_idle_->newer = &e;
  else
    oldest_idle_ = &e;
  newest_idle_ = &e;
  ++stats_.idle;
}

void connection_slots::release(ticket id) {
  std::lock_guard<std::mutex> guard{mutex_};
  auto i = entries_.find(id);
  if (i == entries_.end())
    return;
  auto& e = i->second;
  if (!e.evicted) {
    unlink_idle(e);
    if (!e.exempt)
      forget_source(e.source);
    --open_;
  }
  entries_.erase(i);
}

std::size_t connection_slots::held_by(const connection_source& source) const {
  std::lock_guard<std::mutex> guard{mutex_};
  auto i = per_source_.find(source);
  return i == per_source_.end() ? 0 : i->second;
}

slot_stats connection_slots::stats() const {
  std::lock_guard<std::mutex> guard{mutex_};
  auto out = stats_;
  out.open = open_;
  return out;
}

void connection_slots::unlink_idle(entry& e) noexcept {
  if (!e.idle)
    return;
  (e.older != nullptr ? e.older->newer : oldest_idle_) = e.newer;
  (e.newer != nullptr ? e.newer->older : newest_idle_) = e.older;
  e.older = e.newer = nullptr;
  e.idle = false;
  --stats_.idle;
}

void connection_slots::forget_source(const connection_source& source) noexcept {
  auto i = per_source_.find(source);
  if (i != per_source_.end() && --i->second == 0)
    per_source_.erase(i);
}

} // namespace netherscope::net::http
