// Fuzzes the RakNet pong reader and the Bedrock status-string reader: what any UDP peer named
// as a target may send back to the service's unconnected ping. One input is one datagram, and
// its bytes are also read as a status string inside a well-formed pong.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "net/raknet/status.hpp"
#include "net/raknet/unconnected.hpp"
#include "tests/fuzz/fuzz_check.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using netherscope::fuzz::require;

namespace {

/// The times of the harness's pings, as the seeds in tests/fuzz/corpus/raknet_pong echo them.
constexpr std::int64_t first_time = 1000;
constexpr std::size_t pings = 3;

/// A well-formed pong around text (cut to what the 16-bit length can say).
std::string wrap(std::string_view text, std::int64_t time) {
  text = text.substr(0, 0xffff);
  std::string out(1, static_cast<char>(unconnected_pong_id));
  auto put64 = [&out](std::uint64_t v) {
    for (int shift = 56; shift >= 0; shift -= 8)
      out.push_back(static_cast<char>((v >> shift) & 0xff));
  };
  put64(static_cast<std::uint64_t>(time));
  put64(0x0707070707070707ULL);
  out.append(reinterpret_cast<const char*>(offline_magic.data()), offline_magic.size());
  out.push_back(static_cast<char>(text.size() >> 8));
  out.push_back(static_cast<char>(text.size() & 0xff));
  out.append(text);
  return out;
}

void check_status(std::string_view text) {
  auto s = read_status(text);
  require(s.extra.size() <= max_extra_fields, "extra fields are capped");
  require(s.field_count <= text.size() + 1, "a field takes at least its separator");
  require(s.field_count < 12 || s.extra.size() == std::min(s.field_count - 12, max_extra_fields),
          "every field past the twelfth is kept, up to the cap");
  require(!s.port_v4 || *s.port_v4 >= 1, "a port is 1 to 65535");
  require(!s.port_v6 || *s.port_v6 >= 1, "a port is 1 to 65535");
  for (const auto* field : {&s.edition, &s.motd, &s.version, &s.level, &s.game_mode})
    require(!*field || !(*field)->empty(), "an empty field is absent");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view datagram{reinterpret_cast<const char*>(data), size};

  pong_error why = pong_error::none;
  auto pong = read_pong(datagram, first_time, pings, &why);
  if (!pong) {
    require(why != pong_error::none, "a refused datagram says why");
  } else {
    require(why == pong_error::none, "an accepted pong has no reason");
    require(pong->ping_index < pings, "a pong answers one of our pings");
    require(pong->time == first_time + static_cast<std::int64_t>(pong->ping_index),
            "the index is the echoed time's");
    require(pong->status.data() == datagram.data() + pong_header_size,
            "the status follows the header");
    require(pong_header_size + pong->status.size() + pong->trailing_bytes == datagram.size(),
            "header, status and trailing bytes are the whole datagram");
    check_status(pong->status);
  }

  // The same bytes as a status string, in a pong we write: it reads back as that string.
  auto wrapped = wrap(datagram, first_time + 2);
  auto again = read_pong(wrapped, first_time, pings);
  require(again.has_value(), "a well-formed pong reads");
  require(again->ping_index == 2 && again->server_guid == 0x0707070707070707ULL,
          "the header reads back");
  require(again->status == datagram.substr(0, 0xffff), "the status reads back");
  check_status(again->status);
  return 0;
}
