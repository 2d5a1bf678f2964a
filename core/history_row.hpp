// One check of a watched server as history keeps it, and its stored form: a versioned,
// fixed-width, little-endian record of history_row_size bytes (docs/WATCHES.md, "History
// rows"), like the store's other records (a version byte first).
//
// Pure functions; the store keeps the bytes, the watch actor makes and reads the rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/join_codes.hpp"
#include "core/verdict_codes.hpp"

namespace netherscope::core {

/// The longest version string a row keeps, in bytes of UTF-8.
inline constexpr std::size_t longest_version = 23;

/// The size of every encoded row, in bytes.
inline constexpr std::size_t history_row_size = 74;

/// The size of a row of record version 1, written before checks joined; read as a row
/// without a join.
inline constexpr std::size_t history_row_v1_size = 68;

/// What the check's offer answer held, counted. Each count stops at 255.
struct candidate_summary {
  /// Candidates in the answer.
  std::uint8_t total = 0;
  /// Of those, UDP on component 1: the ones players use.
  std::uint8_t for_players = 0;
  /// Of the players' candidates, those with a public address.
  std::uint8_t public_addresses = 0;
  /// Of the players' candidates, those that answered a connectivity check.
  std::uint8_t reachable = 0;

  bool operator==(const candidate_summary& o) const {
    return total == o.total && for_players == o.for_players
           && public_addresses == o.public_addresses && reachable == o.reachable;
  }
};

/// How the check's join ended (POST /api/join's joined, stage and outcome).
struct join_summary {
  join_stage_code stage = join_stage_code::ice;
  join_outcome_code outcome = join_outcome_code::ice_failed;
  /// How long the join took, signalling included (its totalMs), in microseconds; none when
  /// it did not say.
  std::optional<std::uint32_t> total_us;

  /// Whether the player's connection reached the game.
  bool joined() const { return outcome == join_outcome_code::joined; }

  bool operator==(const join_summary& o) const {
    return stage == o.stage && outcome == o.outcome && total_us == o.total_us;
  }
};

/// One check of a watched server.
struct history_row {
  /// When the check finished, in Unix seconds.
  std::int64_t at = 0;
  verdict_code verdict = verdict_code::offline;
  /// Players online and the limit, when a status answer carried them.
  std::optional<std::uint32_t> players;
  std::optional<std::uint32_t> max_players;
  /// Whether the counts came from the RakNet pong rather than the NetherNet status.
  bool players_from_raknet = false;
  /// The server's version as its status gave it (bounded_version), or empty.
  std::string version;
  /// How long the NetherNet status (GET /v1/join) took to answer, in microseconds; none when
  /// it did not answer.
  std::optional<std::uint32_t> nethernet_us;
  /// Whether the check sent a RakNet ping at all.
  bool raknet_checked = false;
  /// How long the RakNet ping took to answer, in microseconds; none when it was not sent or
  /// not answered.
  std::optional<std::uint32_t> raknet_us;
  /// How long the offer took to be answered, in microseconds; none when there was no answer.
  std::optional<std::uint32_t> offer_us;
  candidate_summary candidates;
  /// The server's verified identity key (key_id_of its SHA-256), when the answer had one.
  std::optional<std::uint64_t> key_id;
  /// The join the check made with its offer; none when it made none (nothing answered on the
  /// signalling port, every candidate refused by the address policy, or a row from before
  /// checks joined).
  std::optional<join_summary> join;

  bool operator==(const history_row& o) const;
};

/// Text fit for a row's version: valid UTF-8 (invalid bytes become U+FFFD) without control
/// characters, cut on a character boundary at longest_version bytes.
std::string bounded_version(std::string_view text);

/// Milliseconds as a row's microseconds: rounded, negative as 0, stopping at the largest u32.
std::uint32_t latency_us(double ms);

/// A count as a candidate_summary count: stopping at 255.
std::uint8_t summary_count(std::size_t n);

/// The first 8 bytes of a key's SHA-256 given as hex (core/target_memory's key_sha256),
/// read big-endian; nullopt when the text does not start with 16 hex digits.
std::optional<std::uint64_t> key_id_of(std::string_view sha256_hex);

/// A key id as 16 lowercase hex digits, as the history JSON and webhooks write it.
std::string key_id_text(std::uint64_t key_id);

/// The stored form of a row: history_row_size bytes (layout in docs/WATCHES.md). The version
/// passes through bounded_version; a verdict outside the table, a time before 1970 or
/// counts that contradict each other make a record decode_history_row refuses.
std::string encode(const history_row& row);

/// Reads a stored row; nullopt for anything encode could not have written: another size or
/// version, an unknown verdict, unknown flag bits, bytes set for absent fields, a negative
/// time, a bad version string, candidate counts larger than the counts they are part of, or
/// a join whose stage and outcome disagree. A record of version 1 (history_row_v1_size
/// bytes) reads as a row without a join.
std::optional<history_row> decode_history_row(std::string_view record);

} // namespace netherscope::core
