// One check of a watched server as history keeps it (core/history_row), made from the
// replies the check gathered and the verdict they gave. Pure: the watch scheduler runs the
// calls and times them; this reads their bodies.
#pragma once

#include <cstdint>
#include <optional>

#include "core/history_row.hpp"
#include "core/results.hpp"
#include "core/target.hpp"
#include "core/verdict.hpp"

namespace netherscope::core {

/// What a watched server's check gathered, beside the verdict's facts.
struct check_replies {
  core::info_reply info;
  core::raknet_reply raknet;
  core::offer_reply offer;
  /// Whether the offer was sent (it is not when the status call could not connect).
  bool offer_tried = false;
  /// The join made with that offer (POST /api/join's object), when one was.
  std::optional<boost::json::object> join;
  /// How long the status call and the offer took, milliseconds, as the scheduler timed them.
  double info_ms = -1;
  double offer_ms = -1;
};

/// The facts the verdict rests on, as GET /api/check gathers them: the status call's error,
/// the RakNet status, and, when the offer was sent, its error, identity and candidates.
check_facts facts_of_check(const core::target& where, const check_replies& replies);

/// The verdict's stored code (core/verdict_codes).
core::verdict_code code_of(verdict_kind kind);

/// A join's stage, outcome and time as a row keeps them; nullopt when no join ran, or for a
/// join object whose names the tables do not hold or that contradict each other.
std::optional<core::join_summary> join_summary_of(const join_facts& join);

/// The row of one check finished at `at` (Unix seconds): the verdict; players, the limit and
/// the version from the NetherNet status when it answered with them, else from the RakNet
/// pong; the latencies of what answered; the candidates of the probed answer counted; and the
/// identity key's id when the answer's identity verified; and the join, when one ran.
core::history_row row_of_check(const check_facts& facts, const check_verdict& verdict,
                              const check_replies& replies, std::int64_t at);

} // namespace netherscope::core
