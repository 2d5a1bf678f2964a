// What a probe brings back from a target, and what the caller asked of an offer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "net/api/failure.hpp"
#include "net/api/target.hpp"

namespace netherscope {

/// The answer to GET /v1/join, or why there is none.
struct info_reply {
  failure error;
  /// The target's HTTP status.
  std::uint16_t status = 0;
  /// Whether TLS was used toward the target.
  bool tls = false;
  /// The API's JSON body for this answer (SPEC 2.1), rendered once by the probe.
  std::string body;
};


/// The answer to an offer, or why there is none.
struct offer_reply {
  failure error;
  /// The API's JSON body (SPEC 2.2): as the probe rendered it, and once it has passed the
  /// cache, with the cache's fields (cached, stale, retrievedAt, expiresAt) already in it.
  std::string body;
  /// Set by the cache when the reply comes from it.
  bool cached = false;
  /// Set by the cache when the entry is past its lifetime and served because a refresh failed.
  bool stale = false;
  /// For a reply from the cache: whole seconds since the target gave the answer (the Age
  /// header, RFC 9111 section 5.1); -1 for an answer fetched for this call.
  std::int64_t age = -1;
  /// Whether the body carries the reachability of its candidates (an offer made with probe:
  /// true). A cached reply without it does not answer a call that asks for it.
  bool probed = false;
};


/// What the caller asks of POST /api/offer, after validation.
struct offer_request {
  target where;
  /// Decimal uint64, 1..20 digits; empty means "draw a random one".
  std::string network_id;
  /// Skip the cache and refresh it.
  bool fresh = false;
  /// UDP ports the caller expects a candidate on; a warning says when none uses one. Not
  /// part of the cache key: the check runs on each reply, cached or not.
  std::vector<std::uint16_t> expect_ports;
  /// Check each UDP candidate of the answer for reachability (a STUN Binding request). Part of
  /// the cache's choice: a probed entry answers both kinds of call, an unprobed one only
  /// calls without it.
  bool probe = false;
};

} // namespace netherscope
