// The join's stages and outcomes (POST /api/join's "stage" and "outcome") as stored numbers:
// a stable table from a small integer to the API's name, for the history rows of watched
// servers (docs/WATCHES.md, "Join codes").
//
// The numbers are written into stored history, so a code is never renumbered or reused; a new
// outcome takes the next free number. 0 is never a code, so a zeroed field reads as "no join".
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace netherscope::core {

/// A stage of the join as history stores it.
enum class join_stage_code : std::uint8_t {
  signalling = 1,
  ice = 2,
  dtls = 3,
  sctp = 4,
  channels = 5,
  game = 6,
};

/// An outcome of the join as history stores it.
enum class join_outcome_code : std::uint8_t {
  joined = 1,
  outdated_client = 2,
  outdated_server = 3,
  game_refused = 4,
  game_silent = 5,
  game_unreadable = 6,
  channels_refused = 7,
  sctp_failed = 8,
  dtls_failed = 9,
  fingerprint_mismatch = 10,
  ice_failed = 11,
  worker_failed = 12,
  auth_required = 13,
  not_allowed = 14,
  offer_refused = 15,
  offer_timeout = 16,
  offer_unreachable = 17,
  offer_unreadable = 18,
  no_candidates = 19,
  candidates_refused = 20,
};

template <class Code>
struct join_code_name {
  Code code;
  std::string_view name;
};

inline constexpr std::array<join_code_name<join_stage_code>, 6> join_stage_table{{
  {join_stage_code::signalling, "signalling"},
  {join_stage_code::ice, "ice"},
  {join_stage_code::dtls, "dtls"},
  {join_stage_code::sctp, "sctp"},
  {join_stage_code::channels, "channels"},
  {join_stage_code::game, "game"},
}};

/// Every outcome POST /api/join can give, in code order.
inline constexpr std::array<join_code_name<join_outcome_code>, 20> join_outcome_table{{
  {join_outcome_code::joined, "joined"},
  {join_outcome_code::outdated_client, "outdated_client"},
  {join_outcome_code::outdated_server, "outdated_server"},
  {join_outcome_code::game_refused, "game_refused"},
  {join_outcome_code::game_silent, "game_silent"},
  {join_outcome_code::game_unreadable, "game_unreadable"},
  {join_outcome_code::channels_refused, "channels_refused"},
  {join_outcome_code::sctp_failed, "sctp_failed"},
  {join_outcome_code::dtls_failed, "dtls_failed"},
  {join_outcome_code::fingerprint_mismatch, "fingerprint_mismatch"},
  {join_outcome_code::ice_failed, "ice_failed"},
  {join_outcome_code::worker_failed, "worker_failed"},
  {join_outcome_code::auth_required, "auth_required"},
  {join_outcome_code::not_allowed, "not_allowed"},
  {join_outcome_code::offer_refused, "offer_refused"},
  {join_outcome_code::offer_timeout, "offer_timeout"},
  {join_outcome_code::offer_unreachable, "offer_unreachable"},
  {join_outcome_code::offer_unreadable, "offer_unreadable"},
  {join_outcome_code::no_candidates, "no_candidates"},
  {join_outcome_code::candidates_refused, "candidates_refused"},
}};

/// The code of an API name, or nullopt for a name the table does not hold.
std::optional<join_stage_code> join_stage_from_name(std::string_view name);
std::optional<join_outcome_code> join_outcome_from_name(std::string_view name);

/// The code a stored byte stands for, or nullopt when the table has no such code.
std::optional<join_stage_code> join_stage_from_byte(std::uint8_t byte);
std::optional<join_outcome_code> join_outcome_from_byte(std::uint8_t byte);

/// The API name of a code ("joined"), or "unknown" outside the table.
std::string_view join_stage_name(join_stage_code code);
std::string_view join_outcome_name(join_outcome_code code);

} // namespace netherscope::core
