// The webhook actor's queues (docs/WATCHES.md, "Alerts"): one lane per webhook, which
// delivers one event at a time, in order, and holds a bounded number of them. A delivery is
// "under way" from its first try until it is delivered or gives up, its retries' waits
// included; the lane starts the next only then, so a receiver sees its events in order. A lane
// full of waiting deliveries drops its oldest waiting one (never the one under way) for a new
// one: a receiver that is down for long gets the latest changes, not a backlog. Plain data, no
// actor and no clock, so the rules are tested alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>

namespace netherscope::actors {

/// One event on its way to one webhook.
struct queued_delivery {
  /// Unique within the actor: a retry's timer names the delivery it is for.
  std::uint64_t number = 0;
  std::string watch_id;
  std::string webhook_id;
  /// The body, in the webhook's format; signed afresh at each try.
  std::string body;
  /// What the retries' jitter is drawn from (jitter_draw), the same on every replica.
  std::string jitter_key;
  /// When it was first tried (Unix seconds); 0 before that.
  std::int64_t first_try = 0;
  /// Tries that failed so far.
  unsigned failures = 0;
  /// Of those, the 429s whose wait was waited out (discord_live).
  unsigned waits = 0;
};

/// Every webhook's lane.
class delivery_lanes {
public:
  /// Lanes holding at most per_lane deliveries each (at least 1), the one under way included.
  explicit delivery_lanes(std::size_t per_lane);

  /// Queues a delivery on lane; returns how many deliveries were dropped for it (0 or 1): the
  /// oldest that is not under way, or, when the lane holds only the one under way, the new
  /// one.
  std::size_t push(const std::string& lane, queued_delivery delivery);

  /// The delivery to begin on lane, now under way: the oldest, when the lane has one and none
  /// is under way; nullptr otherwise.
  queued_delivery* start(const std::string& lane);

  /// The delivery under way on lane when its number is number; nullptr otherwise (it was
  /// finished, or the lane cleared).
  queued_delivery* under_way(const std::string& lane, std::uint64_t number);

  /// Ends the delivery under way on lane (delivered, or given up); the lane may start the
  /// next.
  void finish(const std::string& lane);

  /// For a webhook that shows only the latest state (discord_live): when deliveries wait
  /// behind the one under way, the one under way takes the newest one's body and jitter key
  /// (keeping its number, first try and failures) and the waiting ones are dropped. Returns
  /// how many were dropped.
  std::size_t coalesce(const std::string& lane);

  /// Drops every delivery of lane (its webhook is gone).
  void clear(const std::string& lane);

  /// How many deliveries lane holds, the one under way included.
  std::size_t size(const std::string& lane) const;

private:
  struct lane_state {
    std::deque<queued_delivery> queue;
    /// Whether queue.front() is under way.
    bool busy = false;
  };

  std::map<std::string, lane_state> lanes_;
  std::size_t per_lane_;
};

} // namespace netherscope::actors
