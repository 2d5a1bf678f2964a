#include "net/raknet/unconnected.hpp"

#include <algorithm>

#include <boost/endian/conversion.hpp>

namespace netherscope::net::raknet {

namespace {

namespace endian = boost::endian;

void put_u64_be(std::string& out, std::uint64_t value) {
  unsigned char raw[8];
  endian::endian_store<std::uint64_t, 8, endian::order::big>(raw, value);
  out.append(reinterpret_cast<const char*>(raw), sizeof raw);
}

template <class UInt>
UInt load_be(std::string_view bytes, std::size_t offset) {
  return endian::endian_load<UInt, sizeof(UInt), endian::order::big>(
    reinterpret_cast<const unsigned char*>(bytes.data() + offset));
}

std::optional<pong> fail(pong_error* why, pong_error error) {
  if (why != nullptr)
    *why = error;
  return std::nullopt;
}

// Offsets in a pong (docs/PROTOCOL.md, "RakNet status").
constexpr std::size_t time_offset = 1;
constexpr std::size_t guid_offset = 9;
constexpr std::size_t magic_offset = 17;
constexpr std::size_t length_offset = 33;

} // namespace

std::string write_ping(std::int64_t time, std::uint64_t client_guid) {
  std::string out;
  out.reserve(ping_size);
  out.push_back(static_cast<char>(unconnected_ping_id));
  put_u64_be(out, static_cast<std::uint64_t>(time));
  out.append(reinterpret_cast<const char*>(offline_magic.data()), offline_magic.size());
  put_u64_be(out, client_guid);
  return out;
}

std::optional<pong> read_pong(std::string_view datagram, std::int64_t first_time, std::size_t pings,
                              pong_error* why) {
  if (why != nullptr)
    *why = pong_error::none;
  if (datagram.empty())
    return fail(why, pong_error::too_short);
  auto id = static_cast<unsigned char>(datagram[0]);
  if (id == incompatible_protocol_id)
    return fail(why, pong_error::incompatible_protocol);
  if (id != unconnected_pong_id)
    return fail(why, pong_error::not_a_pong);
  if (datagram.size() < pong_header_size)
    return fail(why, pong_error::too_short);
  if (!std::equal(offline_magic.begin(), offline_magic.end(),
                  reinterpret_cast<const unsigned char*>(datagram.data() + magic_offset)))
    return fail(why, pong_error::bad_magic);
  auto time = static_cast<std::int64_t>(load_be<std::uint64_t>(datagram, time_offset));
  // Unsigned arithmetic: the distance from the first ping's time, without overflow for any
  // time a stranger writes.
  auto index = static_cast<std::uint64_t>(time) - static_cast<std::uint64_t>(first_time);
  if (index >= pings)
    return fail(why, pong_error::time_not_echoed);
  std::size_t length = load_be<std::uint16_t>(datagram, length_offset);
  if (length > datagram.size() - pong_header_size)
    return fail(why, pong_error::length_past_end);
  pong out;
  out.time = time;
  out.ping_index = static_cast<std::size_t>(index);
  out.server_guid = load_be<std::uint64_t>(datagram, guid_offset);
  out.status = datagram.substr(pong_header_size, length);
  out.trailing_bytes = datagram.size() - pong_header_size - length;
  return out;
}

std::string_view to_string(pong_error error) {
  switch (error) {
    case pong_error::none:
      return "none";
    case pong_error::too_short:
      return "too_short";
    case pong_error::incompatible_protocol:
      return "incompatible_protocol";
    case pong_error::not_a_pong:
      return "not_a_pong";
    case pong_error::bad_magic:
      return "bad_magic";
    case pong_error::time_not_echoed:
      return "time_not_echoed";
    case pong_error::length_past_end:
      return "length_past_end";
  }
  return "none";
}

std::string_view describe(pong_error error) {
  switch (error) {
    case pong_error::none:
      return "it is a pong";
    case pong_error::too_short:
      return "it is shorter than a pong's 35-byte header";
    case pong_error::incompatible_protocol:
      return "it is RakNet's incompatible-protocol message (0x19), not a pong (0x1c)";
    case pong_error::not_a_pong:
      return "its first byte is not a pong's id (0x1c)";
    case pong_error::bad_magic:
      return "it lacks RakNet's offline magic";
    case pong_error::time_not_echoed:
      return "it does not echo the time of our ping";
    case pong_error::length_past_end:
      return "its status length runs past the end of the datagram (or it has no length "
             "prefix, as a plain RakNet server's pong has none)";
  }
  return "it is a pong";
}

} // namespace netherscope::net::raknet
