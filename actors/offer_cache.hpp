// The offer cache's bookkeeping, kept apart from the actor so it is tested with plain values.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <optional>
#include <string>

#include "actors/messages.hpp"

namespace netherscope::actors {


/// Rendered offer results per target, with a lifetime, a stale window and size bounds.
class offer_cache {
public:
  /// Ages and lifetimes are measured on this clock, which never jumps.
  using clock_type = std::chrono::steady_clock;
  /// The clock whose time retrievedAt and expiresAt show.
  using wall_clock = std::chrono::system_clock;

  /// Lifetimes and bounds.
  struct limits {
    /// How long an entry answers calls as a plain hit (SPEC 8.3).
    std::chrono::seconds ttl{120};
    /// How long an entry may stand in for a failed refresh (PRODUCT.md "Cache").
    std::chrono::seconds stale_for{600};
    std::size_t max_entries = 10000;
    std::size_t max_bytes = std::size_t{64} << 20;
  };

  /// A plain hit: the body as served and its age.
  struct hit {
    /// The body with "cached":true, retrievedAt and expiresAt already in it, so a hit costs
    /// one copy and no rendering.
    const std::string* body;
    /// Whole seconds since the answer was stored (the Age header).
    std::int64_t age;
  };

  /// An entry served in place of a failed (or refused) refresh.
  struct fallback {
    /// The body with the cache's fields, rendered for this call.
    std::string body;
    bool stale;
    std::int64_t age;
  };

  explicit offer_cache(limits lim) : limits_(lim) {
    // nop
  }

  /// The entry if it is younger than ttl and, when need_probe, carries reachability.
  std::optional<hit> fresh(const core::target& key, clock_type::time_point now,
                           bool need_probe = false) const;

  /// The entry if it is younger than stale_for, rendered with "stale":true when it is past
  /// ttl or when refresh_failed (a refresh was tried and failed, so it is not the answer the
  /// caller asked for). When need_probe, only an entry that carries reachability.
  std::optional<fallback> usable(const core::target& key, clock_type::time_point now,
                                 bool refresh_failed, bool need_probe = false) const;

  /// Stores (or replaces) an entry for an answer the target gave at retrieved_at, then evicts
  /// the oldest entries beyond the bounds. probed says whether the body carries reachability.
  void put(const core::target& key, std::string body, clock_type::time_point now,
           wall_clock::time_point retrieved_at, bool probed = false);

  /// Drops entries older than stale_for.
  void expire(clock_type::time_point now);

  std::size_t size() const noexcept {
    return entries_.size();
  }

  std::size_t bytes() const noexcept {
    return bytes_;
  }

private:
  struct entry {
    /// The body as first rendered, without the cache's fields.
    std::string body;
    std::string hit_body;
    clock_type::time_point stored;
    /// Unix seconds.
    std::int64_t retrieved_at;
    /// Whether the body carries the reachability of its candidates.
    bool probed;
    std::list<core::target>::iterator position;
  };

  static std::int64_t age_of(const entry& e, clock_type::time_point now);
  void erase(std::map<core::target, entry>::iterator i);

  limits limits_;
  std::map<core::target, entry> entries_;
  /// Keys from oldest to newest store time.
  std::list<core::target> order_;
  std::size_t bytes_ = 0;
};

} // namespace netherscope::actors
