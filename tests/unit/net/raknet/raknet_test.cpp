// Tests for net/raknet: the unconnected ping as written, pongs read strictly (every hostile
// shape of docs/PROTOCOL.md "RakNet status" with its own reason), and status strings read
// leniently, from the sample pongs each server software sends.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "core/motd.hpp"
#include "net/raknet/status.hpp"
#include "net/raknet/unconnected.hpp"
#include "support/rooms.hpp"
#include "support/wire_bytes.hpp"

using namespace netherscope::test;

namespace {

const std::string magic(reinterpret_cast<const char*>(offline_magic.data()), offline_magic.size());

/// A pong as servers write it: id, time, GUID, magic, u16 length, the string.
std::string pong_bytes(std::int64_t time, std::uint64_t guid, const std::string& text,
                       unsigned char id = unconnected_pong_id) {
  std::string out(1, static_cast<char>(id));
  out += be64(static_cast<std::uint64_t>(time)) + be64(guid) + magic;
  out.push_back(static_cast<char>((text.size() >> 8) & 0xff));
  out.push_back(static_cast<char>(text.size() & 0xff));
  return out + text;
}

pong_error why_not(const std::string& datagram, std::int64_t first_time = 1000,
                   std::size_t pings = 3) {
  pong_error why = pong_error::none;
  CHECK_FALSE(read_pong(datagram, first_time, pings, &why).has_value());
  return why;
}

// The sample status strings of PROTOCOL.md "RakNet status", one per server software.
const std::string bds_wiki =
  "MCPE;Dedicated Server;527;1.19.1;0;10;13253860892328930865;Bedrock level;Survival;1;19132;"
  "19133;";
const std::string bds_trailer =
  "MCPE;Example BDS;1001;1.26.33;0;10;13253860892328930865;Bedrock level;Survival;1;19132;19133;"
  "0;1;0;";
const std::string geyser =
  "MCPE;Geyser;2193;1.26.51;3;4;12345678901234567890;Another Geyser server.;Survival;1;19132;"
  "19132;";
const std::string pocketmine = "MCPE;PocketMine-MP Server;2193;1.26.51;0;20;7301298352919209014;"
                               "PocketMine-MP;Survival;";
const std::string nukkit =
  "MCPE;A Nukkit Server;2193;1.26.51;0;20;-4207513489329743360;;Survival;1";
const std::string pumpkin = "MCPE;Pumpkin;2168;1.26.40;2;20;42;world;Creative;1;19132;19133;0;";
// py-mine/mcstatus's test fixture: colour codes, empty version and level, IPv6 port -1.
const std::string mcstatus_fixture = "MCPE;\xC2\xA7r\xC2\xA7" "4G\xC2\xA7r\xC2\xA7" "6a\xC2\xA7r"
                                     "\xC2\xA7" "ey\xC2\xA7r\xC2\xA7" "2B\xC2\xA7r\xC2\xA7" "1o"
                                     "\xC2\xA7r\xC2\xA7" "9w\xC2\xA7r\xC2\xA7" "ds\xC2\xA7r\xC2\xA7"
                                     "4e\xC2\xA7r\xC2\xA7" "6r;422;;1;69;3767071975391053022;;Default;"
                                     "1;19132;-1;";

} // namespace

TEST_CASE("raknet: the unconnected ping is 33 bytes of id, time, magic and GUID", "[raknet]") {
  auto ping = write_ping(0x0102030405060708, 0xf1f2f3f4f5f6f7f8);
  REQUIRE(ping.size() == ping_size);
  CHECK(ping.size() == 33);
  CHECK(static_cast<unsigned char>(ping[0]) == 0x01);
  CHECK(ping.substr(1, 8) == be64(0x0102030405060708));
  CHECK(ping.substr(9, 16) == magic);
  CHECK(ping.substr(25, 8) == be64(0xf1f2f3f4f5f6f7f8));
  // A negative time is written as its two's complement, as go-raknet's int64 is.
  CHECK(write_ping(-1, 0).substr(1, 8) == std::string(8, '\xff'));
}

TEST_CASE("raknet: py-mine/mcstatus's 154-byte pong reads whole", "[raknet]") {
  auto datagram = pong_bytes(0, 3767071975391053022ULL, mcstatus_fixture);
  REQUIRE(datagram.size() == 154);
  pong_error why = pong_error::bad_magic;
  auto p = read_pong(datagram, 0, 1, &why);
  REQUIRE(p);
  CHECK(why == pong_error::none);
  CHECK(p->time == 0);
  CHECK(p->ping_index == 0);
  CHECK(p->server_guid == 3767071975391053022ULL);
  CHECK(p->status == mcstatus_fixture);
  CHECK(p->trailing_bytes == 0);

  auto s = read_status(p->status);
  CHECK(s.field_count == 12);
  CHECK(s.edition == "MCPE");
  CHECK(s.motd->substr(0, 5) == "\xC2\xA7r\xC2\xA7");
  CHECK(netherscope::core::motd_clean(*s.motd) == "GayBowser");
  CHECK(s.protocol == 422);
  CHECK_FALSE(s.version);
  CHECK(s.players == 1);
  CHECK(s.max_players == 69);
  CHECK(s.server_guid == 3767071975391053022ULL);
  CHECK_FALSE(s.level);
  CHECK(s.game_mode == "Default");
  CHECK(s.game_mode_id == 1);
  CHECK(s.port_v4 == 19132);
  CHECK_FALSE(s.port_v6);
  CHECK(s.extra.empty());
}

TEST_CASE("raknet: the status string of each server software", "[raknet]") {
  SECTION("BDS, the wiki's default sample (12 fields)") {
    auto s = read_status(bds_wiki);
    CHECK(s.field_count == 12);
    CHECK(s.motd == "Dedicated Server");
    CHECK(s.protocol == 527);
    CHECK(s.version == "1.19.1");
    CHECK(s.players == 0);
    CHECK(s.max_players == 10);
    // Above 2^63: BDS writes the id unsigned.
    CHECK(s.server_guid == 13253860892328930865ULL);
    CHECK(s.level == "Bedrock level");
    CHECK(s.game_mode == "Survival");
    CHECK(s.game_mode_id == 1);
    CHECK(s.port_v4 == 19132);
    CHECK(s.port_v6 == 19133);
    CHECK(s.extra.empty());
  }
  SECTION("BDS 1.26.33 with the reported trailer (15 fields)") {
    auto s = read_status(bds_trailer);
    CHECK(s.field_count == 15);
    CHECK(s.protocol == 1001);
    CHECK(s.port_v6 == 19133);
    CHECK(s.extra == std::vector<std::string>{"0", "1", "0"});
  }
  SECTION("Geyser: the same port twice") {
    auto s = read_status(geyser);
    CHECK(s.port_v4 == 19132);
    CHECK(s.port_v6 == 19132);
    CHECK(s.server_guid == 12345678901234567890ULL);
    CHECK(s.level == "Another Geyser server.");
  }
  SECTION("PocketMine: 9 fields, the software's name as the second line, no ports") {
    auto s = read_status(pocketmine);
    CHECK(s.field_count == 9);
    CHECK(s.level == "PocketMine-MP");
    CHECK(s.game_mode == "Survival");
    CHECK_FALSE(s.game_mode_id);
    CHECK_FALSE(s.port_v4);
    CHECK_FALSE(s.port_v6);
  }
  SECTION("Nukkit: no trailing ';', a negative id, an empty second line") {
    auto s = read_status(nukkit);
    CHECK(s.field_count == 10);
    CHECK(s.server_guid == static_cast<std::uint64_t>(-4207513489329743360LL));
    CHECK_FALSE(s.level);
    CHECK(s.game_mode_id == 1);
  }
  SECTION("Pumpkin 1.26.40 (13 fields)") {
    auto s = read_status(pumpkin);
    CHECK(s.field_count == 13);
    CHECK(s.protocol == 2168);
    CHECK(s.server_guid == 42);
    CHECK(s.game_mode == "Creative");
    CHECK(s.extra == std::vector<std::string>{"0"});
  }
}

TEST_CASE("raknet: odd status strings read leniently", "[raknet]") {
  SECTION("fewer than 6 fields") {
    auto s = read_status("MCPE;Tiny;2193");
    CHECK(s.field_count == 3);
    CHECK(s.motd == "Tiny");
    CHECK(s.protocol == 2193);
    CHECK_FALSE(s.version);
    CHECK_FALSE(s.players);
    CHECK_FALSE(s.server_guid);
  }
  SECTION("6 fields and a trailing ';' (the split gophertunnel panics on)") {
    auto s = read_status("MCPE;Six;2193;1.26.51;1;10;");
    CHECK(s.field_count == 6);
    CHECK(s.max_players == 10);
    CHECK_FALSE(s.server_guid);
    CHECK_FALSE(s.level);
  }
  SECTION("non-numeric counts are absent, the rest still reads") {
    auto s = read_status("MCPE;Name;abc;1.26.51;lots;-;1;Level;Survival;x;port;19133;");
    CHECK_FALSE(s.protocol);
    CHECK_FALSE(s.players);
    CHECK_FALSE(s.max_players);
    CHECK(s.server_guid == 1);
    CHECK(s.level == "Level");
    CHECK_FALSE(s.game_mode_id);
    CHECK_FALSE(s.port_v4);
    CHECK(s.port_v6 == 19133);
    // Numbers with blanks around them read; with anything else they do not.
    CHECK(read_status("MCPE;N; 2193 ").protocol == 2193);
    CHECK_FALSE(read_status("MCPE;N;2193x").protocol);
    CHECK_FALSE(read_status("MCPE;N;+2193").protocol);
  }
  SECTION("GUIDs: negative, 2^64-1, 2^64") {
    CHECK(read_status("MCPE;N;1;v;0;1;-1;").server_guid == 18446744073709551615ULL);
    CHECK(read_status("MCPE;N;1;v;0;1;18446744073709551615;").server_guid
          == 18446744073709551615ULL);
    CHECK_FALSE(read_status("MCPE;N;1;v;0;1;18446744073709551616;").server_guid);
    CHECK_FALSE(read_status("MCPE;N;1;v;0;1;-9223372036854775809;").server_guid);
  }
  SECTION("ports -1, 0 and past 65535 are absent") {
    auto s = read_status("MCPE;N;1;v;0;1;2;L;Survival;1;-1;65536;");
    CHECK_FALSE(s.port_v4);
    CHECK_FALSE(s.port_v6);
    CHECK_FALSE(read_status("MCPE;N;1;v;0;1;2;L;Survival;1;0;65535;").port_v4);
    CHECK(read_status("MCPE;N;1;v;0;1;2;L;Survival;1;0;65535;").port_v6 == 65535);
  }
  SECTION("an escaped ';' stays in its field, and only one trailing empty field goes") {
    auto s = read_status("MCPE;Fish \\; Chips;2193;1.26.51;;");
    CHECK(s.motd == "Fish ; Chips");
    CHECK(s.protocol == 2193);
    CHECK(s.field_count == 5);
    CHECK_FALSE(s.players);
  }
  SECTION("nothing at all") {
    auto s = read_status("");
    CHECK(s.field_count == 0);
    CHECK_FALSE(s.edition);
  }
  SECTION("invalid UTF-8 is kept as sent, for the writer to replace") {
    auto s = read_status("MCPE;bad \xff\xfe name;2193;");
    CHECK(s.motd == "bad \xff\xfe name");
  }
  SECTION("extra fields are capped") {
    std::string text = "MCPE;N;1;v;0;1;2;L;S;1;1;2";
    for (int i = 0; i < 100; ++i)
      text += ";" + std::to_string(i);
    auto s = read_status(text);
    CHECK(s.field_count == 112);
    CHECK(s.extra.size() == max_extra_fields);
    CHECK(s.extra.front() == "0");
  }
}

TEST_CASE("raknet: each hostile pong is refused with its own reason", "[raknet]") {
  const std::string text = bds_wiki;
  auto good = pong_bytes(1001, 7, text);
  pong_error why = pong_error::bad_magic;
  auto p = read_pong(good, 1000, 3, &why);
  REQUIRE(p);
  CHECK(why == pong_error::none);
  CHECK(p->ping_index == 1);

  SECTION("wrong magic") {
    auto bad = good;
    bad[17 + 15] = 0x79;
    CHECK(why_not(bad) == pong_error::bad_magic);
  }
  SECTION("time not echoed") {
    CHECK(why_not(pong_bytes(999, 7, text)) == pong_error::time_not_echoed);
    CHECK(why_not(pong_bytes(1003, 7, text)) == pong_error::time_not_echoed);
    // Far from our times in either direction, without overflow.
    CHECK(why_not(pong_bytes(INT64_MIN, 7, text)) == pong_error::time_not_echoed);
    CHECK(why_not(pong_bytes(INT64_MAX, 7, text), INT64_MIN, 3) == pong_error::time_not_echoed);
  }
  SECTION("the length runs past the datagram") {
    auto cut = good.substr(0, good.size() - 1);
    CHECK(why_not(cut) == pong_error::length_past_end);
  }
  SECTION("no length prefix, as a plain RakNet server sends") {
    std::string raw(1, '\x1c');
    raw += be64(1000) + be64(7) + magic + text;
    CHECK(why_not(raw) == pong_error::length_past_end);
  }
  SECTION("0x19 instead of 0x1c") {
    CHECK(why_not(pong_bytes(1000, 7, text, incompatible_protocol_id))
          == pong_error::incompatible_protocol);
    CHECK(why_not(pong_bytes(1000, 7, text, 0x1d)) == pong_error::not_a_pong);
  }
  SECTION("too short") {
    CHECK(why_not("") == pong_error::too_short);
    CHECK(why_not(good.substr(0, 34)) == pong_error::too_short);
    CHECK(why_not(std::string(1, '\x1c')) == pong_error::too_short);
  }
  SECTION("bytes after the string are ignored and counted") {
    // The pong's status views the datagram, so the datagram outlives it.
    const auto datagram = good + "xyz";
    auto longer = read_pong(datagram, 1000, 3);
    REQUIRE(longer);
    CHECK(longer->trailing_bytes == 3);
    CHECK(longer->status == text);
  }
  SECTION("a 1,400-byte string is still a pong") {
    auto big = pong_bytes(1000, 7, "MCPE;" + std::string(1395, 'x'));
    REQUIRE(big.size() == 1435);
    auto read = read_pong(big, 1000, 1);
    REQUIRE(read);
    CHECK(read->status.size() == 1400);
  }
  SECTION("an empty string is a pong with an empty status") {
    const auto datagram = pong_bytes(1000, 7, "");
    auto empty = read_pong(datagram, 1000, 1);
    REQUIRE(empty);
    CHECK(empty->status.empty());
    CHECK(read_status(empty->status).field_count == 0);
  }
  CHECK(to_string(pong_error::length_past_end) == "length_past_end");
  CHECK(describe(pong_error::bad_magic) == "it lacks RakNet's offline magic");
}
