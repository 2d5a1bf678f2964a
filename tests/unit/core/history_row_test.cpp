// History rows: the verdict code table, the fixed-width record (layout, round trips) and a
// decoder that refuses every record encode could not have written (truncated, extended,
// corrupted, random bytes).
#include <catch2/catch.hpp>

#include <random>
#include <set>

#include "core/history_row.hpp"
#include "core/join_codes.hpp"
#include "core/verdict_codes.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

history_row full_row() {
  history_row row;
  row.at = 1760000000;
  row.verdict = verdict_code::joinable;
  row.players = 3;
  row.max_players = 10;
  row.version = "1.21.50";
  row.nethernet_us = 12345;
  row.raknet_checked = true;
  row.raknet_us = 2100;
  row.offer_us = 80500;
  row.candidates = {4, 3, 1, 1};
  row.key_id = 0x0123456789abcdefULL;
  row.join = join_summary{join_stage_code::game, join_outcome_code::joined, 15000};
  return row;
}

std::string bytes_of(std::initializer_list<int> values) {
  std::string out;
  for (int v : values)
    out += static_cast<char>(v);
  return out;
}

} // namespace

TEST_CASE("verdict codes: the table is stable, unique and names every verdict", "[history]") {
  std::set<int> codes;
  std::set<std::string_view> names;
  for (const auto& row : verdict_table) {
    CHECK(static_cast<int>(row.code) != 0);
    codes.insert(static_cast<int>(row.code));
    names.insert(row.name);
    CHECK(verdict_from_name(row.name) == row.code);
    CHECK(verdict_name(row.code) == row.name);
    // Joinable implies online: an uptime share can never exceed the online share.
    CHECK((!row.joinable || row.online));
  }
  CHECK(codes.size() == verdict_table.size());
  CHECK(names.size() == verdict_table.size());
  // The numbers are stored: these must never change.
  CHECK(static_cast<int>(verdict_code::joinable) == 1);
  CHECK(static_cast<int>(verdict_code::offline) == 6);
  CHECK(static_cast<int>(verdict_code::auth_required) == 7);
  CHECK(static_cast<int>(verdict_code::raknet_only) == 8);
  CHECK(static_cast<int>(verdict_code::not_allowed) == 9);
  CHECK(static_cast<int>(verdict_code::version_mismatch) == 10);
  CHECK(static_cast<int>(verdict_code::join_failed) == 11);
  CHECK(class_of(verdict_code::version_mismatch) == verdict_class::up);
  CHECK(class_of(verdict_code::join_failed) == verdict_class::up);
  CHECK(class_of(verdict_code::joinable) == verdict_class::joinable);
  CHECK(class_of(verdict_code::raknet_only) == verdict_class::up);
  CHECK(class_of(verdict_code::auth_required) == verdict_class::up);
  CHECK(class_of(verdict_code::offline) == verdict_class::offline);
  CHECK_FALSE(verdict_from_byte(0));
  CHECK(verdict_from_byte(11) == verdict_code::join_failed);
  CHECK_FALSE(verdict_from_byte(12));
  CHECK(verdict_name(static_cast<verdict_code>(77)) == "unknown");
  CHECK_FALSE(verdict_from_name("Joinable"));
}

TEST_CASE("history rows: a row survives encoding, in exactly history_row_size bytes",
          "[history]") {
  auto row = full_row();
  auto record = encode(row);
  REQUIRE(record.size() == history_row_size);
  auto back = decode_history_row(record);
  REQUIRE(back);
  CHECK(*back == row);

  history_row bare;
  bare.at = 5;
  bare.verdict = verdict_code::offline;
  auto bare_record = encode(bare);
  CHECK(bare_record.size() == history_row_size);
  auto bare_back = decode_history_row(bare_record);
  REQUIRE(bare_back);
  CHECK(*bare_back == bare);
  CHECK_FALSE(bare_back->players);
  CHECK_FALSE(bare_back->nethernet_us);
  CHECK_FALSE(bare_back->key_id);
}

TEST_CASE("history rows: the layout is the documented one, little-endian", "[history]") {
  auto record = encode(full_row());
  // version 2, verdict joinable (1), flags: every optional field and the RakNet ping, not
  // players_from_raknet (bits 0,1,3,4,5,6,7 = 0xFB), the join and its time (bits 8, 9).
  CHECK(record.substr(0, 4) == bytes_of({2, 1, 0xFB, 0x03}));
  // at = 1760000000 = 0x68E77800.
  CHECK(record.substr(4, 8) == bytes_of({0x00, 0x78, 0xE7, 0x68, 0, 0, 0, 0}));
  CHECK(record.substr(12, 4) == bytes_of({3, 0, 0, 0}));
  CHECK(record.substr(16, 4) == bytes_of({10, 0, 0, 0}));
  CHECK(record.substr(20, 4) == bytes_of({0x39, 0x30, 0, 0}));
  CHECK(record.substr(32, 4) == bytes_of({4, 3, 1, 1}));
  CHECK(record.substr(36, 8) == bytes_of({0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01}));
  CHECK(record[44] == 7);
  CHECK(record.substr(45, 7) == "1.21.50");
  CHECK(record.substr(52, 16) == std::string(16, '\0'));
  // The join: stage game (6), outcome joined (1), 15000 µs = 0x3A98.
  CHECK(record.substr(68) == bytes_of({6, 1, 0x98, 0x3A, 0, 0}));
}

TEST_CASE("history rows: a record from before joins reads as a row without a join",
          "[history]") {
  // Version 1 is the first 68 bytes of the layout, without the join's flags and fields.
  auto row = full_row();
  row.join.reset();
  auto record = encode(row).substr(0, history_row_v1_size);
  record[0] = 1;
  auto back = decode_history_row(record);
  REQUIRE(back);
  CHECK(*back == row);
  // It is refused with the join's flags, at the new size, or with the join's bytes after it.
  auto with_join_flag = record;
  with_join_flag[3] = 0x01;
  CHECK_FALSE(decode_history_row(with_join_flag));
  CHECK_FALSE(decode_history_row(record + std::string(6, '\0')));
  auto v2_short = record;
  v2_short[0] = 2;
  CHECK_FALSE(decode_history_row(v2_short));
}

TEST_CASE("join codes: the tables are stable, unique and name each stage and outcome",
          "[history]") {
  std::set<int> codes;
  std::set<std::string_view> names;
  for (const auto& row : join_outcome_table) {
    CHECK(static_cast<int>(row.code) != 0);
    codes.insert(static_cast<int>(row.code));
    names.insert(row.name);
    CHECK(join_outcome_from_name(row.name) == row.code);
    CHECK(join_outcome_name(row.code) == row.name);
    CHECK(join_outcome_from_byte(static_cast<std::uint8_t>(row.code)) == row.code);
  }
  CHECK(codes.size() == join_outcome_table.size());
  CHECK(names.size() == join_outcome_table.size());
  for (const auto& row : join_stage_table) {
    CHECK(join_stage_from_name(row.name) == row.code);
    CHECK(join_stage_name(row.code) == row.name);
  }
  // Stored numbers: these must never change.
  CHECK(static_cast<int>(join_outcome_code::joined) == 1);
  CHECK(static_cast<int>(join_outcome_code::dtls_failed) == 9);
  CHECK(static_cast<int>(join_outcome_code::candidates_refused) == 20);
  CHECK(static_cast<int>(join_stage_code::game) == 6);
  CHECK_FALSE(join_outcome_from_byte(0));
  CHECK_FALSE(join_outcome_from_byte(21));
  CHECK_FALSE(join_stage_from_byte(7));
  CHECK(join_outcome_name(static_cast<join_outcome_code>(99)) == "unknown");
}

TEST_CASE("history rows: truncated and extended records are refused", "[history]") {
  auto record = encode(full_row());
  for (std::size_t n = 0; n < record.size(); ++n)
    CHECK_FALSE(decode_history_row(record.substr(0, n)));
  CHECK_FALSE(decode_history_row(record + '\0'));
}

TEST_CASE("history rows: corrupted fields are refused", "[history]") {
  auto good = encode(full_row());
  auto with = [&](std::size_t offset, int byte) {
    auto r = good;
    r[offset] = static_cast<char>(byte);
    return r;
  };
  CHECK_FALSE(decode_history_row(with(0, 3)));          // another record version
  CHECK_FALSE(decode_history_row(with(0, 1)));          // version 1 at version 2's size
  CHECK_FALSE(decode_history_row(with(1, 0)));          // verdict 0
  CHECK_FALSE(decode_history_row(with(1, 200)));        // a verdict the table lacks
  CHECK_FALSE(decode_history_row(with(3, 0x07)));       // an unknown flag bit
  CHECK_FALSE(decode_history_row(with(68, 3)));         // joined, but at DTLS
  CHECK_FALSE(decode_history_row(with(68, 0)));         // a join without a stage
  CHECK_FALSE(decode_history_row(with(68, 9)));         // a stage the table lacks
  CHECK_FALSE(decode_history_row(with(69, 0)));         // a join without an outcome
  CHECK_FALSE(decode_history_row(with(69, 21)));        // an outcome the table lacks
  CHECK_FALSE(decode_history_row(with(3, 0x01)));       // a join time written, its flag cleared
  CHECK_FALSE(decode_history_row(with(11, 0x80)));      // a time before 1970
  CHECK_FALSE(decode_history_row(with(33, 5)));         // more for players than in total
  CHECK_FALSE(decode_history_row(with(35, 4)));         // more reachable than for players
  CHECK_FALSE(decode_history_row(with(44, 24)));        // a version longer than kept
  CHECK_FALSE(decode_history_row(with(44, 6)));         // length leaves a byte in the padding
  CHECK_FALSE(decode_history_row(with(60, 'x')));       // padding that is not zero
  CHECK_FALSE(decode_history_row(with(45, 0xFF)));      // invalid UTF-8 in the version
  CHECK_FALSE(decode_history_row(with(45, '\n')));      // a control character in it

  // An absent field must be zero: clear the players flag but leave the count.
  CHECK_FALSE(decode_history_row(with(2, 0xFA)));
  // Counts from RakNet without counts, and a RakNet answer without a ping.
  auto bare = encode(history_row{});
  auto bare_with = [&](std::size_t offset, int byte) {
    auto r = bare;
    r[offset] = static_cast<char>(byte);
    return r;
  };
  CHECK(decode_history_row(bare));
  CHECK_FALSE(decode_history_row(bare_with(2, 0x04)));
  CHECK_FALSE(decode_history_row(bare_with(2, 0x20)));
  // A join's time without a join, and a join's bytes without its flag.
  CHECK_FALSE(decode_history_row(bare_with(3, 0x02)));
  CHECK_FALSE(decode_history_row(bare_with(69, 1)));
  // A failed join at any stage is a row.
  auto failed = full_row();
  failed.verdict = verdict_code::join_failed;
  failed.join = join_summary{join_stage_code::dtls, join_outcome_code::dtls_failed, std::nullopt};
  auto failed_back = decode_history_row(encode(failed));
  REQUIRE(failed_back);
  CHECK(*failed_back == failed);
}

TEST_CASE("history rows: decode accepts only what encode writes", "[history]") {
  // Every single-bit flip of a full and of a bare record, and random records: whatever decode
  // accepts encodes back to the same bytes, so no two records mean one row.
  std::vector<std::string> records{encode(full_row()), encode(history_row{})};
  std::mt19937_64 random{26};
  for (int i = 0; i < 20000; ++i) {
    std::string r(history_row_size, '\0');
    for (auto& c : r)
      c = static_cast<char>(random() & 0xFF);
    r[0] = 2;
    r[1] = static_cast<char>(1 + random() % 11);
    records.push_back(r);
  }
  std::size_t accepted = 0;
  auto check = [&](const std::string& r) {
    if (auto row = decode_history_row(r)) {
      ++accepted;
      CHECK(encode(*row) == r);
    }
  };
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t byte = 0; byte < history_row_size; ++byte)
      for (int bit = 0; bit < 8; ++bit) {
        auto r = records[i];
        r[byte] = static_cast<char>(r[byte] ^ (1 << bit));
        check(r);
      }
  for (std::size_t i = 2; i < records.size(); ++i)
    check(records[i]);
  // Flips of the players, latency, time and key bytes are valid rows: the check ran.
  CHECK(accepted > 0);
}

TEST_CASE("history rows: versions are bounded, valid UTF-8 text", "[history]") {
  CHECK(bounded_version("1.21.50.7") == "1.21.50.7");
  CHECK(bounded_version("v1.2\n3\x01") == "v1.23");
  CHECK(bounded_version(std::string(40, 'a')) == std::string(longest_version, 'a'));
  // A two-byte character that would straddle the limit is left out whole.
  auto cut = bounded_version(std::string(22, 'a') + "\xC3\xA9" + "b");
  CHECK(cut == std::string(22, 'a'));
  CHECK(bounded_version("\xFF") == "\xEF\xBF\xBD");
  // A long version goes in cut, and comes back as cut.
  auto row = full_row();
  row.version = std::string(30, '9');
  auto back = decode_history_row(encode(row));
  REQUIRE(back);
  CHECK(back->version == std::string(longest_version, '9'));
}

TEST_CASE("history rows: latencies, counts and key ids", "[history]") {
  CHECK(latency_us(12.3456) == 12346);
  CHECK(latency_us(-3) == 0);
  CHECK(latency_us(1e12) == 0xFFFFFFFFu);
  CHECK(summary_count(300) == 255);
  CHECK(summary_count(7) == 7);
  auto id = key_id_of("0123456789ABCDEFffff");
  REQUIRE(id);
  CHECK(*id == 0x0123456789abcdefULL);
  CHECK(key_id_text(*id) == "0123456789abcdef");
  CHECK_FALSE(key_id_of("0123456789abcde"));
  CHECK_FALSE(key_id_of("0123456789abcdeg"));
}
