#include "net/join/game.hpp"

#include <cstring>

namespace netherscope::net::join {

namespace {

/// Bytes left after pos.
std::size_t left(std::string_view in, std::size_t pos) {
  return pos <= in.size() ? in.size() - pos : 0;
}

std::optional<std::uint16_t> get_u16le(std::string_view in, std::size_t& pos) {
  if (left(in, pos) < 2)
    return std::nullopt;
  auto b = reinterpret_cast<const unsigned char*>(in.data() + pos);
  pos += 2;
  return static_cast<std::uint16_t>(b[0] | (b[1] << 8));
}

std::optional<std::int32_t> get_i32be(std::string_view in, std::size_t& pos) {
  if (left(in, pos) < 4)
    return std::nullopt;
  auto b = reinterpret_cast<const unsigned char*>(in.data() + pos);
  pos += 4;
  auto u = (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8)
           | std::uint32_t{b[3]};
  return static_cast<std::int32_t>(u);
}

std::optional<std::uint8_t> get_u8(std::string_view in, std::size_t& pos) {
  if (left(in, pos) < 1)
    return std::nullopt;
  return static_cast<std::uint8_t>(in[pos++]);
}

/// A Bedrock string: a varuint length, then that many bytes; cut to keep bytes.
std::optional<std::string> get_string(std::string_view in, std::size_t& pos, std::size_t keep) {
  auto n = get_varuint(in, pos);
  if (!n || left(in, pos) < *n)
    return std::nullopt;
  std::string out{in.substr(pos, std::min<std::size_t>(*n, keep))};
  pos += *n;
  return out;
}

std::optional<game_packet> read_network_settings(std::string_view body) {
  std::size_t pos = 0;
  network_settings s;
  auto threshold = get_u16le(body, pos);
  auto algorithm = get_u16le(body, pos);
  auto throttle = get_u8(body, pos);
  auto throttle_threshold = get_u8(body, pos);
  if (!threshold || !algorithm || !throttle || !throttle_threshold || left(body, pos) < 4)
    return std::nullopt;
  s.compression_threshold = *threshold;
  s.compression_algorithm = *algorithm;
  s.client_throttle = *throttle != 0;
  s.throttle_threshold = *throttle_threshold;
  std::uint32_t bits = 0;
  for (int i = 3; i >= 0; --i)
    bits = (bits << 8) | static_cast<unsigned char>(body[pos + i]);
  std::memcpy(&s.throttle_scalar, &bits, sizeof bits);
  return s;
}

std::optional<game_packet> read_play_status(std::string_view body) {
  std::size_t pos = 0;
  auto status = get_i32be(body, pos);
  if (!status)
    return std::nullopt;
  return play_status{*status};
}

std::optional<game_packet> read_disconnect(std::string_view body) {
  std::size_t pos = 0;
  auto zigzag = get_varuint(body, pos);
  auto hide = get_u8(body, pos);
  if (!zigzag || !hide)
    return std::nullopt;
  disconnect d;
  d.reason = static_cast<std::int32_t>((*zigzag >> 1) ^ (~(*zigzag & 1) + 1));
  d.hide_message = *hide != 0;
  if (!d.hide_message) {
    // Servers older than the filtered message send only the first string; it is enough.
    auto message = get_string(body, pos, max_disconnect_message);
    if (!message)
      return std::nullopt;
    d.message = std::move(*message);
  }
  return d;
}

/// Reads one packet: its header (the id in the low 10 bits) and what this side keeps of it.
std::optional<game_packet> read_packet(std::string_view packet) {
  std::size_t pos = 0;
  auto header = get_varuint(packet, pos);
  if (!header)
    return std::nullopt;
  auto id = *header & 0x3FF;
  auto body = packet.substr(pos);
  switch (static_cast<packet_id>(id)) {
    case packet_id::network_settings:
      return read_network_settings(body);
    case packet_id::play_status:
      return read_play_status(body);
    case packet_id::disconnect:
      return read_disconnect(body);
    default:
      return other_packet{id};
  }
}

batch_read read_packets(std::string_view batch) {
  constexpr std::size_t max_packets = 64;
  batch_read out;
  std::size_t pos = 0;
  if (batch.empty()) {
    out.error = "an empty batch";
    return out;
  }
  while (pos < batch.size()) {
    if (out.packets.size() == max_packets) {
      out.error = "more than 64 packets in one batch";
      return out;
    }
    auto length = get_varuint(batch, pos);
    if (!length || *length == 0 || left(batch, pos) < *length) {
      out.error = "a packet length that does not fit the batch";
      return out;
    }
    auto packet = read_packet(batch.substr(pos, *length));
    if (!packet) {
      out.error = "a packet shorter than its fields";
      return out;
    }
    out.packets.push_back(std::move(*packet));
    pos += *length;
  }
  return out;
}

} // namespace

void put_varuint(std::string& out, std::uint32_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

std::optional<std::uint32_t> get_varuint(std::string_view in, std::size_t& pos) {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (pos >= in.size())
      return std::nullopt;
    auto b = static_cast<unsigned char>(in[pos++]);
    v |= std::uint64_t{b & 0x7Fu} << shift;
    if ((b & 0x80) == 0)
      return v <= 0xFFFFFFFFu ? std::optional<std::uint32_t>{static_cast<std::uint32_t>(v)}
                              : std::nullopt;
  }
  return std::nullopt;
}

std::string whole_segment(std::string_view payload) {
  std::string out;
  out.reserve(payload.size() + 1);
  out.push_back('\0');
  out.append(payload);
  return out;
}

reassembler::result reassembler::add(std::string_view segment) {
  result r;
  if (segment.empty()) {
    r.error = "an empty segment";
    return r;
  }
  auto still_to_come = static_cast<std::uint8_t>(segment[0]);
  if (expected_ && still_to_come != *expected_) {
    r.error = "a segment count that did not fall by one";
    return r;
  }
  if (pending_.size() + segment.size() - 1 > max_message_bytes) {
    r.error = "a message over " + std::to_string(max_message_bytes) + " bytes";
    return r;
  }
  pending_.append(segment.substr(1));
  if (still_to_come == 0) {
    expected_.reset();
    r.message = std::move(pending_);
    pending_.clear();
  } else {
    expected_ = static_cast<std::uint8_t>(still_to_come - 1);
  }
  return r;
}

std::string request_network_settings(std::int32_t protocol) {
  std::string packet;
  put_varuint(packet, static_cast<std::uint32_t>(packet_id::request_network_settings));
  auto u = static_cast<std::uint32_t>(protocol);
  for (int shift = 24; shift >= 0; shift -= 8)
    packet.push_back(static_cast<char>((u >> shift) & 0xFF));
  std::string batch;
  put_varuint(batch, static_cast<std::uint32_t>(packet.size()));
  batch += packet;
  return batch;
}

std::string_view compression_name(std::uint16_t algorithm) {
  switch (algorithm) {
    case 0:
      return "zlib";
    case 1:
      return "snappy";
    case 0xFFFF:
      return "none";
    default:
      return "unknown";
  }
}

batch_read read_batch(std::string_view batch) {
  auto plain = read_packets(batch);
  if (!plain.error.empty() && !batch.empty() && static_cast<unsigned char>(batch[0]) == 0xFF) {
    auto after = read_packets(batch.substr(1));
    if (after.error.empty())
      return after;
  }
  return plain;
}

} // namespace netherscope::net::join
