// Which Minecraft client versions can reach a server over what it answered: the one table of
// client-version facts (docs/PROTOCOL.md, "Client versions and transports" holds the same
// table with its sources), and the "clients" field derived from it and from the two status
// checks. Each fact carries how well it is founded, and the text says "reported" where it is
// a report. Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "core/results.hpp"

namespace netherscope::core {

/// Whether clients of a range can use a transport.
enum class reach : std::uint8_t { yes, no, unknown };

/// How well a fact is founded: V, R and U in the tables of docs/PROTOCOL.md.
enum class evidence : std::uint8_t {
  /// Seen in code or in a concrete observation.
  verified,
  /// Reported or predicted, not shown.
  reported,
  /// Not known.
  unknown,
};

/// What clients of a range can do over one transport.
struct transport_fact {
  reach can = reach::unknown;
  evidence tag = evidence::unknown;
  /// Where the fact comes from, short names as docs/PROTOCOL.md cites them.
  std::string_view source;
};

/// One row of the table: a range of client versions and their protocols.
struct client_range {
  /// The versions in words ("1.26.30 to 1.26.45").
  std::string_view versions;
  /// The protocols of those versions, inclusive; protocol_max -1 for "and later". Protocols
  /// between two releases (previews) count with the later release.
  std::int64_t protocol_min = 0;
  std::int64_t protocol_max = -1;
  /// RakNet: the unconnected ping and RakNet connections on the game's UDP port.
  transport_fact raknet;
  /// NetherNet: HTTP signalling (GET /v1/join, POST /v1/join/{id}) and WebRTC.
  transport_fact nethernet;
  /// What else is known of the range, or empty.
  std::string_view note;
};

/// The table, oldest clients first; its ranges cover every protocol from 0 up, without gaps.
const std::vector<client_range>& client_versions();

/// The row whose protocols hold protocol, or null for a negative one.
const client_range* client_range_of(std::int64_t protocol);

/// The newest client protocol the table names (the top of its last bounded range): what a
/// join sends when the server does not say its own.
std::int32_t newest_known_protocol();

/// What the two status checks showed of a server.
struct transports_seen {
  /// GET /v1/join answered with a 2xx.
  bool nethernet = false;
  /// The protocol and version its JSON body gave (-1 and empty when it gave none).
  std::int64_t nethernet_protocol = -1;
  std::string nethernet_version;
  /// The RakNet ping was sent (false when the call did not ask for it).
  bool raknet_tried = false;
  /// A pong came back.
  bool raknet = false;
  std::int64_t raknet_protocol = -1;
  std::string raknet_version;
};

/// The status check's facts for the clients: whether it answered 2xx, and the protocol and
/// version of its body (the "info" object the API renders), when it has them.
transports_seen seen_from(const core::info_reply& info, const core::raknet_reply& raknet);

/// The "clients" field: {nethernet, raknet, protocol, version, ranges: [{versions,
/// protocolMin, protocolMax, raknet, nethernet, over, evidence, serverProtocol, note}],
/// summary: [sentences]}. raknet is null when the ping was not sent. See docs/API.md.
boost::json::object describe_clients(const transports_seen& seen);

/// The evidence as the API writes it: "verified", "reported", "unknown".
std::string_view to_string(evidence tag);

/// The reach as the API writes it: "yes", "no", "unknown".
std::string_view to_string(reach can);

} // namespace netherscope::core
