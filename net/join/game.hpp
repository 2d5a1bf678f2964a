// The first game packets of a join, as pure functions over bytes: the NetherNet segment header
// every reliable-channel message carries, the Bedrock batch inside it, RequestNetworkSettings
// (what a client sends first) and the answers a server gives to it (NetworkSettings,
// PlayStatus, Disconnect). PROTOCOL.md "The join" has the layouts and their sources.
//
// Over NetherNet a batch has no 0xFE header and no encryption, and before NetworkSettings it
// has no compression byte either. Reading never trusts a length it has not checked, so any
// bytes a server sends give a value or a reason, never a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace netherscope::net::join {

/// The packet ids this file writes or reads (gophertunnel protocol/packet/id.go).
enum class packet_id : std::uint32_t {
  login = 1,
  play_status = 2,
  disconnect = 5,
  network_settings = 143,
  request_network_settings = 193,
};

/// The largest message this side reassembles from segments: far above the few hundred bytes
/// a server's first answers take, so only a hostile server meets it.
constexpr std::size_t max_message_bytes = 256 * 1024;

/// Appends v as an unsigned LEB128 varint (Bedrock's varuint32).
void put_varuint(std::string& out, std::uint32_t v);

/// Reads an unsigned LEB128 varint of at most 5 bytes from in at pos, advancing pos; nullopt
/// when the bytes end first or the value does not fit 32 bits.
std::optional<std::uint32_t> get_varuint(std::string_view in, std::size_t& pos);

/// One reliable-channel message as NetherNet sends it: a segment header of 0 (a whole
/// message), then the payload. The client's first messages are far below any SCTP limit, so
/// this side never fragments.
std::string whole_segment(std::string_view payload);

/// Joins the segments of one message: each starts with the number of segments still to come,
/// which must fall by exactly one from segment to segment and is 0 on the last.
class reassembler {
public:
  /// What a segment gave.
  struct result {
    /// The whole message, once its last segment came.
    std::optional<std::string> message;
    /// Why the stream is broken (a count that did not fall by one, an empty segment, a
    /// message over max_message_bytes); the connection is then over.
    std::string error;
  };

  /// Takes one SCTP message of the reliable channel.
  result add(std::string_view segment);

private:
  std::string pending_;
  std::optional<std::uint8_t> expected_;
};

/// A batch of one RequestNetworkSettings packet for the given client protocol, as the first
/// message of a join sends it (before the segment header): `06 C1 01` and the protocol as an
/// i32, big endian.
std::string request_network_settings(std::int32_t protocol);

/// NetworkSettings, as read (gophertunnel packet/network_settings.go).
struct network_settings {
  std::uint16_t compression_threshold = 0;
  /// 0 zlib (raw DEFLATE), 1 snappy, 0xFFFF none.
  std::uint16_t compression_algorithm = 0;
  bool client_throttle = false;
  std::uint8_t throttle_threshold = 0;
  float throttle_scalar = 0;
};

/// The name the API gives a compression algorithm: "zlib", "snappy", "none", or "unknown".
std::string_view compression_name(std::uint16_t algorithm);

/// PlayStatus, as read: the status (1 client outdated, 2 server outdated, 7 server full, ...).
struct play_status {
  std::int32_t status = 0;
};

/// Disconnect, as read: its reason code and, unless the server hid it, its message.
struct disconnect {
  std::int32_t reason = 0;
  bool hide_message = false;
  std::string message;
};

/// Another packet: only its id is kept.
struct other_packet {
  std::uint32_t id = 0;
};

/// One packet of a batch.
using game_packet = std::variant<network_settings, play_status, disconnect, other_packet>;

/// What a batch held, or why it could not be read.
struct batch_read {
  std::vector<game_packet> packets;
  /// Empty when every byte was read; otherwise why the batch is not a Bedrock batch.
  std::string error;
};

/// Reads a batch sent before compression is agreed: `[varuint length][packet]...`. A batch
/// that starts with 0xFF (the "no compression" byte, which some servers send early) is read
/// after it. Messages of more than 64 packets are refused.
batch_read read_batch(std::string_view batch);

/// The longest message string kept from a Disconnect.
constexpr std::size_t max_disconnect_message = 512;

} // namespace netherscope::net::join
