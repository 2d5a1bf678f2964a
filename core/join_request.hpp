// POST /api/join: what the caller asks (a join of one or two players), what the front hands a
// probe for one player, and what comes back (docs/API.md "POST /api/join").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "core/failure.hpp"
#include "core/results.hpp"
#include "core/target.hpp"

namespace netherscope::core {

/// The most players one join call sends at once.
inline constexpr unsigned max_join_players = 2;

/// The body of POST /api/join, validated.
struct join_request {
  target where;
  /// The first player's network id; empty for a random one. A second player always gets a
  /// random one of its own.
  std::string network_id;
  /// The client protocol RequestNetworkSettings says; 0 for the server's own (from its GET
  /// /v1/join), else the newest the service knows.
  std::int32_t protocol = 0;
  unsigned players = 1;
};

/// Reads the join request from a body already known to be JSON by its media type; nullopt
/// with error (invalid_input, naming the field) on invalid input.
std::optional<join_request> parse_join_body(std::string_view body, failure& error);

/// One player's join, as the front asks a probe for it.
struct join_order {
  std::string network_id;
  /// The protocol we send.
  std::int32_t protocol = 0;
  /// What the server's GET /v1/join said of itself (-1 and empty when it did not).
  std::int64_t server_protocol = -1;
  std::string server_version;
};

/// One player's join as the probe ended it. error is set only for a failure of the call (the
/// address policy refused the target, the per-target offer limit, no worker free, the service
/// failing); everything about the target is in body, which is the join object of docs/API.md.
struct join_result {
  failure error;
  bool joined = false;
  /// The outcome and stage codes, as the body has them.
  std::string outcome;
  std::string stage;
  boost::json::object body;
  /// The join's own offer as POST /api/offer's reply (its error when it got no usable
  /// answer): the offer a check's verdict reads.
  offer_reply offer;
};

} // namespace netherscope::core
