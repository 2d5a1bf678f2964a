// The hit board: a copy of the cache actor's fresh answers on each io thread, for the edge
// bridge to answer a cached offer from.
//
// A cached offer is the product's hot path. Through the actors it crosses six threads (io
// thread, front, quota, front, cache, front, io thread), and each crossing wakes a thread.
// With the board the bridge finds a fresh answer on the io thread that read the request, and
// only the durable charge crosses threads (io thread, quota, io thread), or nothing at all
// when the caller's lease answers it (actors/edge_leases.hpp).
//
// Nothing here is shared between threads. Each io thread owns one board, and only that
// thread reads it (the bridge, actors/edge_bridge.hpp) or writes it (apply): the cache actor
// publishes each change as a value (board_update) through a board_publisher that app/ wires
// to every io_context's reply inbox, and each io thread applies the changes to its own board
// in the order they were published. The cache actor stays the owner of every decision (what
// is stored, single flight, stale fallback); a board holds copies of its plain hits and
// answers "fresh or not" with the same lifetime rule. A board miss is never an answer: the
// call then takes the actors' path, so a board that is behind costs speed, never correctness.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "actors/offer_cache.hpp"

namespace netherscope::actors {


/// One change of what the cache holds for a target, as the boards learn it.
struct board_update {
  core::target key;
  /// The plain-hit body as served (with the cache's fields in it), shared by every board;
  /// null withdraws key (the cache no longer holds a fresh answer for it).
  std::shared_ptr<const std::string> body;
  /// When the cache stored the answer, on the cache's clock.
  offer_cache::clock_type::time_point stored;
  /// Whether the answer carries reachability.
  bool probed = false;
};

/// Hands one update to every io thread's board; called on the cache actor's thread, so it
/// only moves the value on (app/ wires it to each io_context's reply inbox).
using board_publisher = std::function<void(board_update)>;

/// Fresh cached offers, as one io thread knows them; used by that thread alone.
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

  /// Applies an update: its body replaces what was published for its key, then the oldest
  /// entries beyond the bounds go; an update without a body withdraws its key.
  void apply(const board_update& update);

  /// The answer for key if it is still fresh now and, when need_probe, carries reachability.
  std::optional<hit> find(const core::target& key, bool need_probe) const;

  std::size_t size() const noexcept {
    return entries_.size();
  }

private:
  struct entry {
    std::shared_ptr<const std::string> body;
    clock_type::time_point stored;
    bool probed = false;
    std::list<core::target>::iterator position;
  };

  void erase(std::map<core::target, entry>::iterator i);

  offer_cache::limits limits_;
  std::function<clock_type::time_point()> now_;
  std::map<core::target, entry> entries_;
  /// Keys from oldest to newest publication.
  std::list<core::target> order_;
  std::size_t bytes_ = 0;
};

} // namespace netherscope::actors
