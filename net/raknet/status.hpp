// The status string of a Bedrock pong ("MCPE;Dedicated Server;527;1.19.1;0;10;...;"), read
// leniently: servers differ in how many fields they send, what they put in them and whether
// they end with ';' (docs/PROTOCOL.md, "RakNet status"), and a status tool that fails the
// whole status on one odd field shows a running server as broken.
//
// Fields are split on ';' (a "\;" stays inside its field as ';', as PocketMine and Nukkit
// escape it), one trailing empty field is dropped, an empty field is absent, a number that does
// not read is absent, and fields past the twelfth are kept raw. Text fields keep the bytes as
// sent, '§' formatting codes included: the writer of a reply makes them valid UTF-8.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace netherscope::net::raknet {

/// The most fields past the twelfth that are kept (a 1,500-byte datagram could hold hundreds).
inline constexpr std::size_t max_extra_fields = 32;

/// What a status string says; each field absent when the server left it out or empty, or when
/// a number did not read.
struct status {
  /// How many fields the string has, after dropping one trailing empty field.
  std::size_t field_count = 0;
  /// Field 0: "MCPE" (Bedrock), "MCEE" (Education Edition).
  std::optional<std::string> edition;
  /// Field 1: the first line of the server's name, '§' codes kept.
  std::optional<std::string> motd;
  /// Field 2: the network protocol the server speaks.
  std::optional<std::int64_t> protocol;
  /// Field 3: the game version, "1.26.51".
  std::optional<std::string> version;
  /// Fields 4 and 5: players online and the most it admits.
  std::optional<std::int64_t> players;
  std::optional<std::int64_t> max_players;
  /// Field 6: the server's id, written unsigned by BDS and Geyser and signed by Nukkit; a
  /// negative one is read as the same 64 bits unsigned.
  std::optional<std::uint64_t> server_guid;
  /// Field 7: the second line (BDS: the level's name; PocketMine: the software's name).
  std::optional<std::string> level;
  /// Field 8: the game mode's name ("Survival").
  std::optional<std::string> game_mode;
  /// Field 9: a number BDS sends as 1 beside "Survival"; not a game mode id (PROTOCOL.md).
  std::optional<std::int64_t> game_mode_id;
  /// Fields 10 and 11: the IPv4 and IPv6 game ports; -1, 0 or a number past 65535 is absent.
  std::optional<std::uint16_t> port_v4;
  std::optional<std::uint16_t> port_v6;
  /// Fields 12 and later, as sent (empty ones included), at most max_extra_fields.
  std::vector<std::string> extra;
};

/// Reads a pong's status string.
status read_status(std::string_view text);

} // namespace netherscope::net::raknet
