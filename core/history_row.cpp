#include "core/history_row.hpp"

#include <cmath>
#include <limits>

#include "core/api_json.hpp"
#include "base/bytes.hpp"
#include "base/text.hpp"

namespace netherscope::core {

namespace {

constexpr std::uint8_t row_version = 2;
constexpr std::uint8_t row_version_before_joins = 1;

// Which optional fields a record holds. Bits not named here are zero in every record.
enum row_flag : std::uint16_t {
  has_players = 1 << 0,
  has_max_players = 1 << 1,
  players_raknet = 1 << 2,
  has_nethernet = 1 << 3,
  raknet_sent = 1 << 4,
  has_raknet = 1 << 5,
  has_offer = 1 << 6,
  has_key = 1 << 7,
  has_join = 1 << 8,
  has_join_time = 1 << 9,
};
constexpr std::uint16_t known_flags = (1 << 10) - 1;
constexpr std::uint16_t known_flags_before_joins = (1 << 8) - 1;

bool is_control(unsigned char c) {
  return c < 0x20 || c == 0x7F;
}

/// Reads an optional u32 field: present when flag is set, and then any value; absent fields
/// are written as zero, so a non-zero one is corruption.
bool take_optional(std::string_view& in, std::uint16_t flags, std::uint16_t flag,
                   std::optional<std::uint32_t>& out) {
  std::uint32_t value = 0;
  if (!base::take_le(in, value))
    return false;
  if (flags & flag)
    out = value;
  else if (value != 0)
    return false;
  return true;
}

/// Reads the join's stage, outcome and time: all zero without a join; with one, codes the
/// tables hold that agree (joined at the game, and only there).
bool take_join(std::string_view in, std::uint16_t flags, std::optional<join_summary>& out) {
  auto stage_byte = static_cast<std::uint8_t>(in[0]);
  auto outcome_byte = static_cast<std::uint8_t>(in[1]);
  in.remove_prefix(2);
  std::optional<std::uint32_t> total_us;
  if (!take_optional(in, flags, has_join_time, total_us))
    return false;
  if (!(flags & has_join))
    return stage_byte == 0 && outcome_byte == 0 && !total_us;
  auto stage = join_stage_from_byte(stage_byte);
  auto outcome = join_outcome_from_byte(outcome_byte);
  if (!stage || !outcome)
    return false;
  join_summary join{*stage, *outcome, total_us};
  if (join.joined() && *stage != join_stage_code::game)
    return false;
  out = join;
  return true;
}

} // namespace

bool history_row::operator==(const history_row& o) const {
  return at == o.at && verdict == o.verdict && players == o.players
         && max_players == o.max_players && players_from_raknet == o.players_from_raknet
         && version == o.version && nethernet_us == o.nethernet_us
         && raknet_checked == o.raknet_checked && raknet_us == o.raknet_us
         && offer_us == o.offer_us && candidates == o.candidates && key_id == o.key_id
         && join == o.join;
}

std::string bounded_version(std::string_view text) {
  std::string kept;
  kept.reserve(text.size());
  for (char c : text)
    if (!is_control(static_cast<unsigned char>(c)))
      kept += c;
  return valid_utf8(kept, longest_version);
}

std::uint32_t latency_us(double ms) {
  if (!(ms > 0))
    return 0;
  auto us = std::round(ms * 1000.0);
  constexpr auto top = std::numeric_limits<std::uint32_t>::max();
  return us >= static_cast<double>(top) ? top : static_cast<std::uint32_t>(us);
}

std::uint8_t summary_count(std::size_t n) {
  return n > 255 ? std::uint8_t{255} : static_cast<std::uint8_t>(n);
}

std::optional<std::uint64_t> key_id_of(std::string_view sha256_hex) {
  if (sha256_hex.size() < 16)
    return std::nullopt;
  std::uint64_t id = 0;
  for (char c : sha256_hex.substr(0, 16)) {
    auto digit = base::hex_digit(c);
    if (!digit)
      return std::nullopt;
    id = (id << 4) | *digit;
  }
  return id;
}

std::string key_id_text(std::uint64_t key_id) {
  std::string raw;
  for (int shift = 56; shift >= 0; shift -= 8)
    raw += static_cast<char>((key_id >> shift) & 0xFF);
  return base::hex_lower(raw);
}

std::string encode(const history_row& row) {
  std::uint16_t flags = 0;
  auto flag_if = [&](bool set, row_flag flag) {
    if (set)
      flags |= flag;
  };
  flag_if(row.players.has_value(), has_players);
  flag_if(row.max_players.has_value(), has_max_players);
  flag_if(row.players_from_raknet, players_raknet);
  flag_if(row.nethernet_us.has_value(), has_nethernet);
  flag_if(row.raknet_checked, raknet_sent);
  flag_if(row.raknet_us.has_value(), has_raknet);
  flag_if(row.offer_us.has_value(), has_offer);
  flag_if(row.key_id.has_value(), has_key);
  flag_if(row.join.has_value(), has_join);
  flag_if(row.join && row.join->total_us, has_join_time);

  std::string out;
  out.reserve(history_row_size);
  out += static_cast<char>(row_version);
  out += static_cast<char>(row.verdict);
  base::put_le(out, flags);
  base::put_le(out, static_cast<std::uint64_t>(row.at));
  base::put_le(out, row.players.value_or(0));
  base::put_le(out, row.max_players.value_or(0));
  base::put_le(out, row.nethernet_us.value_or(0));
  base::put_le(out, row.raknet_us.value_or(0));
  base::put_le(out, row.offer_us.value_or(0));
  out += static_cast<char>(row.candidates.total);
  out += static_cast<char>(row.candidates.for_players);
  out += static_cast<char>(row.candidates.public_addresses);
  out += static_cast<char>(row.candidates.reachable);
  base::put_le(out, row.key_id.value_or(0));
  auto version = bounded_version(row.version);
  out += static_cast<char>(version.size());
  out += version;
  out.append(longest_version - version.size(), '\0');
  out += static_cast<char>(row.join ? static_cast<std::uint8_t>(row.join->stage) : 0);
  out += static_cast<char>(row.join ? static_cast<std::uint8_t>(row.join->outcome) : 0);
  base::put_le(out, row.join ? row.join->total_us.value_or(0) : 0U);
  return out;
}

std::optional<history_row> decode_history_row(std::string_view in) {
  auto record_version = in.empty() ? 0 : static_cast<std::uint8_t>(in[0]);
  bool before_joins = record_version == row_version_before_joins;
  if (before_joins ? in.size() != history_row_v1_size
                   : (record_version != row_version || in.size() != history_row_size))
    return std::nullopt;
  history_row row;
  auto code = verdict_from_byte(static_cast<std::uint8_t>(in[1]));
  if (!code)
    return std::nullopt;
  row.verdict = *code;
  in.remove_prefix(2);

  std::uint16_t flags = 0;
  std::uint64_t at = 0;
  base::take_le(in, flags);
  base::take_le(in, at);
  auto known = before_joins ? known_flags_before_joins : known_flags;
  if ((flags & ~known) != 0 || at > static_cast<std::uint64_t>(INT64_MAX))
    return std::nullopt;
  row.at = static_cast<std::int64_t>(at);
  row.players_from_raknet = flags & players_raknet;
  row.raknet_checked = flags & raknet_sent;
  // Counts from RakNet need counts; a RakNet answer needs a RakNet ping.
  if ((row.players_from_raknet && !(flags & has_players))
      || ((flags & has_raknet) && !row.raknet_checked))
    return std::nullopt;
  if (!take_optional(in, flags, has_players, row.players)
      || !take_optional(in, flags, has_max_players, row.max_players)
      || !take_optional(in, flags, has_nethernet, row.nethernet_us)
      || !take_optional(in, flags, has_raknet, row.raknet_us)
      || !take_optional(in, flags, has_offer, row.offer_us))
    return std::nullopt;

  auto& c = row.candidates;
  c.total = static_cast<std::uint8_t>(in[0]);
  c.for_players = static_cast<std::uint8_t>(in[1]);
  c.public_addresses = static_cast<std::uint8_t>(in[2]);
  c.reachable = static_cast<std::uint8_t>(in[3]);
  in.remove_prefix(4);
  if (c.for_players > c.total || c.public_addresses > c.for_players
      || c.reachable > c.for_players)
    return std::nullopt;

  std::uint64_t key = 0;
  base::take_le(in, key);
  if (flags & has_key)
    row.key_id = key;
  else if (key != 0)
    return std::nullopt;

  auto length = static_cast<std::uint8_t>(in[0]);
  in.remove_prefix(1);
  if (length > longest_version)
    return std::nullopt;
  auto version = in.substr(0, length);
  auto padding_and_join = in.substr(length);
  auto padding = padding_and_join.substr(0, longest_version - length);
  if (bounded_version(version) != version
      || padding.find_first_not_of('\0') != std::string_view::npos)
    return std::nullopt;
  row.version = std::string{version};
  if (before_joins)
    return row;
  in = padding_and_join.substr(padding.size());
  if (!take_join(in, flags, row.join))
    return std::nullopt;
  return row;
}

} // namespace netherscope::core
