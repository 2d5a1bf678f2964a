// The offer cache's bookkeeping, kept apart from the actor so it is tested with plain values.
#pragma once

#include <chrono>
#include <cstddef>
#include <list>
#include <map>
#include <optional>
#include <string>

#include "actors/messages.hpp"

namespace netherscope {

/// Rendered offer results per target, with a lifetime, a stale window and size bounds.
class offer_cache {
public:
  using clock_type = std::chrono::steady_clock;

  /// Lifetimes and bounds.
  struct limits {
    /// How long an entry answers calls as a plain hit (SPEC 8.3).
    std::chrono::seconds ttl{120};
    /// How long an entry may stand in for a failed refresh (PRODUCT.md "Cache").
    std::chrono::seconds stale_for{600};
    std::size_t max_entries = 10000;
    std::size_t max_bytes = std::size_t{64} << 20;
  };

  /// An entry found for a target.
  struct hit {
    /// The body as first rendered.
    const std::string* body;
    /// Older than ttl.
    bool stale;
  };

  explicit offer_cache(limits lim) : limits_(lim) {
    // nop
  }

  /// The entry if it is younger than ttl: the body as a hit is served, with "cached":true
  /// already added, so a hit costs one copy and no rendering.
  const std::string* fresh(const target& key, clock_type::time_point now) const;

  /// The entry if it is younger than stale_for.
  std::optional<hit> usable(const target& key, clock_type::time_point now) const;

  /// Stores (or replaces) an entry, then evicts the oldest entries beyond the bounds.
  void put(const target& key, std::string body, clock_type::time_point now);

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
    std::string body;
    std::string hit_body;
    clock_type::time_point stored;
    std::list<target>::iterator position;
  };

  void erase(std::map<target, entry>::iterator i);

  limits limits_;
  std::map<target, entry> entries_;
  /// Keys from oldest to newest store time.
  std::list<target> order_;
  std::size_t bytes_ = 0;
};

} // namespace netherscope
