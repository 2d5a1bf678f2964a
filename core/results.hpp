// What a probe brings back from a target, and what the caller asked of an offer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/failure.hpp"
#include "core/target.hpp"

namespace netherscope::core {

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


/// The RakNet status of a target (the unconnected ping on its UDP port), or why there is none.
struct raknet_reply {
  /// Whether a ping was sent or meant to be: a call that did not ask for RakNet leaves it
  /// false, and its reply shows no RakNet status at all.
  bool tried = false;
  /// Whether a pong came back and read.
  bool ok = false;
  /// For !ok, the machine code: "no_listener", "timeout", "malformed_pong",
  /// "forbidden_target", "lookup_failed", "lookup_timeout", "unreachable".
  std::string code;
  /// For !ok, a sentence for people.
  std::string message;
  /// The API's JSON object for the "raknet" field ({ok: true, ...} or {ok: false, code,
  /// error}), rendered once (net/report/raknet_status).
  std::string body;
  /// The UDP port that was pinged.
  std::uint16_t port = 0;
  /// For ok, what the verdict and the clients read of the pong: milliseconds from the ping,
  /// the protocol (-1 when the pong left it out), the version and the server's name, both
  /// valid UTF-8 (empty when left out), the name without formatting codes.
  double latency_ms = -1;
  std::int64_t protocol = -1;
  std::string version;
  std::string motd;
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
  /// The gamertag the offer was signed in as (the linked Xbox account); empty for an offer
  /// with the self-signed identity. Set whether or not the server admitted the offer.
  std::string offered_as;
  /// Whether an Xbox account is linked but its sign-in failed, so the offer went self-signed.
  bool link_failing = false;
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

} // namespace netherscope::core
