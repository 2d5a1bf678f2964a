// What only a store shared across hosts offers (Redis): the offer cache every replica reads,
// one flight per target across replicas, the per-target offer limit every replica keeps
// together, and named values and leases (the Xbox tokens every replica uses and the one
// replica that renews them). An embedded store (LMDB) offers none of it: there each process's cache, single
// flight and limiter (net/upstream/offer_limiter) are the whole story. storage::open returns
// this part beside the store, or null, so nobody asks which backend they have.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include "core/target.hpp"

namespace netherscope::storage {

/// An offer result one replica fetched and every replica may serve as a cache hit.
struct shared_offer {
  /// The body as first rendered, without the cache's fields.
  std::string body;
  /// When the target answered, in Unix seconds.
  std::int64_t retrieved_unix = 0;
  /// Whether the body carries the reachability of its candidates.
  bool probed = false;
};

/// The record of a shared offer: a version byte, then fixed-width integers and the body.
std::string encode(const shared_offer& x);
/// Nullopt for another version or a damaged record.
std::optional<shared_offer> decode_shared_offer(std::string_view record);

/// The part of a store that replicas on several hosts share. Every call blocks, so whoever
/// calls it runs detached.
class shared_store {
public:
  virtual ~shared_store() = default;

  /// The offer cached for where (one that carries reachability when probe), if any is live.
  virtual caf::expected<std::optional<shared_offer>> get_offer(const core::target& where,
                                                               bool probe) = 0;

  /// Caches an offer for every replica for ttl.
  virtual caf::error put_offer(const core::target& where, const shared_offer& offer,
                               std::chrono::seconds ttl) = 0;

  /// Takes the short lock that lets one replica send where an offer; true when owner took
  /// it. It frees itself after ttl, so a replica that died holding it blocks no one for long.
  virtual caf::expected<bool> lock_flight(const core::target& where, bool probe,
                                          std::string_view owner,
                                          std::chrono::milliseconds ttl) = 0;

  /// Frees the lock if owner still holds it.
  virtual caf::error unlock_flight(const core::target& where, bool probe, std::string_view owner) = 0;

  /// Starts one offer to these servers ("address:port", as connected to) for every replica:
  /// when each of them has fewer than in_flight_limit offers in flight (1 for an offer, a
  /// join's players for a join) and had fewer than per_minute in the last minute, records it
  /// (owner holds a mark on each server until release_offer_slot, or for in_flight_ttl at
  /// most) and returns zero; otherwise records nothing and returns how long to wait.
  virtual caf::expected<std::chrono::seconds>
  take_offer_slot(const std::vector<std::string>& servers, unsigned per_minute,
                  std::string_view owner, std::chrono::milliseconds in_flight_ttl,
                  unsigned in_flight_limit = 1)
    = 0;

  /// Frees the in-flight marks owner holds on these servers.
  virtual caf::error release_offer_slot(const std::vector<std::string>& servers,
                                        std::string_view owner)
    = 0;

  /// The named value every replica reads, if one is live (put_value).
  virtual caf::expected<std::optional<std::string>> get_value(std::string_view name) = 0;

  /// Stores a named value for every replica for ttl, replacing what was there.
  virtual caf::error put_value(std::string_view name, std::string_view value,
                               std::chrono::milliseconds ttl)
    = 0;

  /// Takes the named lease that lets one replica at a time do one job; true when owner took
  /// it. It frees itself after ttl, so a replica that died holding it blocks no one for long.
  virtual caf::expected<bool> take_lease(std::string_view name, std::string_view owner,
                                         std::chrono::milliseconds ttl)
    = 0;

  /// Frees the lease if owner still holds it.
  virtual caf::error release_lease(std::string_view name, std::string_view owner) = 0;
};

} // namespace netherscope::storage
