// RakNet's unconnected ping and pong as Minecraft Bedrock servers answer them on their UDP game
// port (docs/PROTOCOL.md, "RakNet status"): the 33-byte ping a client sends, and the pong that
// echoes the ping's time and carries the server's status string behind a 16-bit length, a
// Minecraft convention on top of RakNet's raw offline data.
//
// Pure functions over bytes. Reading is strict on the packet (the id, the offline magic, our
// ping's time, a length that lies inside the datagram), and says which of those failed; what
// the status string says is read leniently, by net/raknet/status.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace netherscope::net::raknet {

/// ID_UNCONNECTED_PING: a status request that needs no connection.
inline constexpr unsigned char unconnected_ping_id = 0x01;

/// ID_UNCONNECTED_PONG: the answer to a ping.
inline constexpr unsigned char unconnected_pong_id = 0x1c;

/// ID_INCOMPATIBLE_PROTOCOL_VERSION: what some servers send an old client's connection
/// request; never an answer to a ping.
inline constexpr unsigned char incompatible_protocol_id = 0x19;

/// OFFLINE_MESSAGE_DATA_ID, the 16 bytes every unconnected RakNet message carries.
inline constexpr std::array<unsigned char, 16> offline_magic = {
  0x00, 0xff, 0xff, 0x00, 0xfe, 0xfe, 0xfe, 0xfe, 0xfd, 0xfd, 0xfd, 0xfd, 0x12, 0x34, 0x56, 0x78};

/// A ping's size: id, time, magic, client GUID.
inline constexpr std::size_t ping_size = 1 + 8 + 16 + 8;

/// A pong's size before its status string: id, time, server GUID, magic, string length.
inline constexpr std::size_t pong_header_size = 1 + 8 + 8 + 16 + 2;

/// The unconnected ping: 0x01, time (int64 big-endian), the magic, the client GUID (big-endian).
std::string write_ping(std::int64_t time, std::uint64_t client_guid);

/// Why a datagram is not the pong to one of our pings.
enum class pong_error : std::uint8_t {
  none,
  /// Shorter than a pong's header (an empty datagram included).
  too_short,
  /// The id is 0x19 (incompatible protocol), not a pong.
  incompatible_protocol,
  /// Another id.
  not_a_pong,
  /// The 16 bytes after the server GUID are not the offline magic.
  bad_magic,
  /// The time is none of our pings' times.
  time_not_echoed,
  /// The string's length runs past the end of the datagram (no length prefix at all, as a
  /// plain RakNet server sends, reads this way too).
  length_past_end,
};

/// A pong, as read from a datagram.
struct pong {
  /// The echoed time.
  std::int64_t time = 0;
  /// Which of our pings it echoes: time - first_time.
  std::size_t ping_index = 0;
  /// The server's GUID from the header, as unsigned.
  std::uint64_t server_guid = 0;
  /// The status string's bytes as sent (not yet checked as UTF-8), inside the datagram.
  std::string_view status;
  /// Bytes after the string, which the reader ignores.
  std::size_t trailing_bytes = 0;
};

/// Reads a datagram as the pong to one of our pings, whose times are first_time + i for i in
/// [0, pings). On failure returns nullopt and, if why is given, stores the reason. The
/// result's status views datagram.
std::optional<pong> read_pong(std::string_view datagram, std::int64_t first_time, std::size_t pings,
                              pong_error* why = nullptr);
/// A temporary datagram would leave the result's status dangling.
std::optional<pong> read_pong(std::string&& datagram, std::int64_t first_time, std::size_t pings,
                              pong_error* why = nullptr) = delete;

/// The reason as the API writes it: "too_short", "incompatible_protocol", "not_a_pong",
/// "bad_magic", "time_not_echoed", "length_past_end" ("none" for none).
std::string_view to_string(pong_error error);

/// The reason in a sentence's words, e.g. "its status length runs past the end of the
/// datagram".
std::string_view describe(pong_error error);

} // namespace netherscope::net::raknet
