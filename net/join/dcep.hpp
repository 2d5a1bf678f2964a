// The Data Channel Establishment Protocol (RFC 8832) as a joining client speaks it: the two
// DATA_CHANNEL_OPEN messages NetherNet servers expect, byte for byte, and reading what the
// server sends on PPID 50. Pure functions over bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace netherscope::net::join {

/// SCTP payload protocol identifiers (RFC 8831 §8).
enum class ppid : std::uint32_t {
  dcep = 50,
  string = 51,
  binary = 53,
  string_empty = 56,
  binary_empty = 57,
};

/// The two channels a Bedrock client opens (PROTOCOL.md "The two channels").
enum class channel { reliable, unreliable };

/// The channel's label, as go-nethernet and Pumpkin require it.
std::string_view channel_label(channel c);

/// DATA_CHANNEL_OPEN for the channel: `03 | type | u16 priority 0 | u32 reliability 0 | u16
/// label length | u16 protocol length 0 | label`. The reliable channel is ordered and reliable
/// (type 0x00); the unreliable one unordered with no retransmissions (type 0x81).
std::string open_message(channel c);

/// What a DCEP message from the server is.
enum class dcep_message {
  /// DATA_CHANNEL_ACK: the server accepted the channel opened on that stream.
  ack,
  /// DATA_CHANNEL_OPEN: the server opened a channel of its own, which a NetherNet server
  /// never does.
  open,
  /// Neither, or empty.
  unknown,
};

/// Classifies a message received on PPID 50.
dcep_message read_dcep(std::string_view message);

} // namespace netherscope::net::join
