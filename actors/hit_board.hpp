// The hit board: the cache actor's fresh answers, published for the edge bridge to read.
//
// A cached offer is the product's hot path. Answered through the actors it crossed six
// threads (io thread, front, quota, front, cache, front, io thread), and each crossing is a
// futex wake-up: docs/BENCHMARKS.md measured the kernel's task switching at half the
// service's CPU time and the cached offer at 0.37-0.41 of nginx. With the board the bridge
// finds a fresh answer on the io thread and only the durable charge crosses threads (io
// thread, quota, io thread).
//
// The cache actor stays the only writer and the owner of every decision (what is stored,
// single flight, stale fallback); the board holds copies of its plain hits and answers
// "fresh or not" with the same lifetime rule. A board miss is never an answer: the call then
// takes the actors' path, so a board that forgot an entry costs speed, never correctness.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>

#include "actors/offer_cache.hpp"

namespace netherscope {

/// Fresh cached offers, written by the cache actor and read by any thread.
class hit_board {
public:
  using clock_type = offer_cache::clock_type;

  /// A fresh answer: the body as served (with the cache's fields) and its age in seconds.
  struct hit {
    std::shared_ptr<const std::string> body;
    std::int64_t age = 0;
  };

  /// lim gives the lifetime of a plain hit and the bounds; now is the cache's clock.
  hit_board(offer_cache::limits lim, std::function<clock_type::time_point()> now);

  /// Publishes the plain-hit body of target key, stored at stored; probed says whether it
  /// carries reachability. Replaces what was published for key, then drops the oldest entries
  /// beyond the bounds.
  void publish(const target& key, std::string hit_body, clock_type::time_point stored,
               bool probed);

  /// Withdraws key (the cache no longer holds a fresh answer for it).
  void withdraw(const target& key);

  /// The answer for key if it is still fresh now and, when need_probe, carries reachability.
  std::optional<hit> find(const target& key, bool need_probe) const;

  /// The cache's clock.
  clock_type::time_point now() const {
    return now_();
  }

  std::size_t size() const;

private:
  struct entry {
    std::shared_ptr<const std::string> body;
    clock_type::time_point stored;
    bool probed = false;
    std::list<target>::iterator position;
  };

  void erase(std::map<target, entry>::iterator i);

  offer_cache::limits limits_;
  std::function<clock_type::time_point()> now_;
  // Readers (two io threads) far outnumber the writer (one cache actor, once per upstream
  // offer), so readers share the lock.
  mutable std::shared_mutex mutex_;
  std::map<target, entry> entries_;
  /// Keys from oldest to newest publication.
  std::list<target> order_;
  std::size_t bytes_ = 0;
};

} // namespace netherscope
