// The RakNet status of a target: the pings one UDP exchange sends (net/upstream/udp_exchange),
// the judge that reads what comes back (net/raknet), and the "raknet" reply made of the
// exchange's end (docs/PROTOCOL.md, "RakNet status"; docs/API.md). Pure functions, apart from
// where the pings' time and GUID come from.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/results.hpp"
#include "net/upstream/udp_exchange.hpp"

namespace netherscope::net::report {

/// The pings of one exchange: try i carries the time first_time + i, so a pong says which try
/// it answers.
struct raknet_pings {
  std::uint64_t client_guid = 0;
  std::int64_t first_time = 0;
  std::size_t count = 3;
};

/// Pings for a new exchange: the time counts milliseconds since this process first asked, as
/// vanilla RakNet's does since its start (a Unix time in milliseconds would look like the
/// future to servers that compare it with the clock in seconds); the client GUID is random,
/// once per process.
raknet_pings next_raknet_pings(std::size_t count = 3);

/// The exchange of a RakNet status ping to host:port (the target's own UDP port by default);
/// a caller that resolved host already sets the request's addresses.
upstream::udp_exchange_request raknet_exchange(const std::string& host, std::uint16_t port,
                                     const raknet_pings& pings);

/// Judges a datagram from the target as the answer to pings: accepted (with the try it
/// answers) when it is a pong that echoes one of their times; malformed, with the reason,
/// otherwise: every datagram from the pinged address and port is meant as the answer.
upstream::reply_judgement judge_pong(std::string_view datagram, const raknet_pings& pings);

/// The reply made of an exchange's end: ok with the pong's fields, or the code and message
/// of what happened instead (no_listener, timeout, malformed_pong, forbidden_target,
/// lookup_failed, lookup_timeout, unreachable). port is the UDP port pinged.
core::raknet_reply make_raknet_reply(const upstream::udp_exchange_result& result, std::uint16_t port,
                               const raknet_pings& pings);

/// The size from which vanilla RakNet drops a pong (1 + 8 + 8 + 16 + 400 bytes of offline
/// data); whether Mojang's client keeps the limit is not known.
inline constexpr std::size_t raknet_pong_limit = 433;

} // namespace netherscope::net::report
