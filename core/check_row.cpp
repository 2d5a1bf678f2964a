#include "core/check_row.hpp"

#include <string>

#include <boost/json.hpp>

#include "core/verdict_codes.hpp"
#include "base/json_access.hpp"

namespace netherscope::core {

namespace json = boost::json;

namespace {

/// A count the server reported, when it is one a row can hold.
std::optional<std::uint32_t> count_at(const json::object& o, std::string_view key) {
  auto n = base::int64_at(o, key);
  if (!n || *n < 0 || *n > static_cast<std::int64_t>(UINT32_MAX))
    return std::nullopt;
  return static_cast<std::uint32_t>(*n);
}

/// Players, limit and version from one status object; true when it gave a player count.
bool take_counts(const json::object& status, core::history_row& row) {
  row.players = count_at(status, "players");
  row.max_players = count_at(status, "maxPlayers");
  if (auto* v = base::string_at(status, "version"))
    row.version = core::bounded_version(base::view(*v));
  if (!row.players)
    row.max_players.reset();
  return row.players.has_value();
}

/// The server's status object inside GET /api/info's body ({ok, status, tls, info, ...}).
std::optional<json::object> nethernet_status(const core::info_reply& info) {
  if (!info.error.ok())
    return std::nullopt;
  auto body = base::parse_object(info.body);
  if (!body)
    return std::nullopt;
  if (auto* status = base::object_at(*body, "info"))
    return *status;
  return std::nullopt;
}

/// The verified identity key's id in a probed offer's body, if any.
std::optional<std::uint64_t> verified_key(const core::offer_reply& offer) {
  if (!offer.error.ok())
    return std::nullopt;
  auto body = base::parse_object(offer.body);
  if (!body)
    return std::nullopt;
  auto* identity = base::object_at(*body, "identity");
  if (!identity)
    return std::nullopt;
  auto verified = identity->find("verified");
  if (verified == identity->end() || !verified->value().is_bool() || !verified->value().as_bool())
    return std::nullopt;
  auto* key = base::string_at(*identity, "keySha256");
  return key ? core::key_id_of(base::view(*key)) : std::nullopt;
}

} // namespace

std::optional<core::join_summary> join_summary_of(const join_facts& join) {
  if (!join.present)
    return std::nullopt;
  auto stage = core::join_stage_from_name(join.stage);
  auto outcome = core::join_outcome_from_name(join.outcome);
  if (!stage || !outcome || (*outcome == core::join_outcome_code::joined) != join.joined
      || (join.joined && *stage != core::join_stage_code::game))
    return std::nullopt;
  core::join_summary summary{*stage, *outcome, std::nullopt};
  if (join.total_ms >= 0)
    summary.total_us = core::latency_us(join.total_ms);
  return summary;
}

check_facts facts_of_check(const core::target& where, const check_replies& replies) {
  check_facts facts;
  facts.where = where;
  facts.raknet = replies.raknet;
  facts.info_error = replies.info.error;
  facts.offer_error = replies.offer.error;
  facts.offered_as = replies.offer.offered_as;
  facts.link_failing = replies.offer.link_failing;
  facts.offer_tried = replies.offer_tried;
  if (replies.offer_tried && replies.offer.error.ok())
    facts.candidates = candidate_facts(replies.offer.body);
  if (replies.join)
    facts.join = join_facts_of(*replies.join);
  return facts;
}

core::verdict_code code_of(verdict_kind kind) {
  switch (kind) {
    case verdict_kind::joinable:
      return core::verdict_code::joinable;
    case verdict_kind::signalling_only:
      return core::verdict_code::signalling_only;
    case verdict_kind::private_candidates:
      return core::verdict_code::private_candidates;
    case verdict_kind::no_candidates:
      return core::verdict_code::no_candidates;
    case verdict_kind::auth_required:
      return core::verdict_code::auth_required;
    case verdict_kind::not_allowed:
      return core::verdict_code::not_allowed;
    case verdict_kind::raknet_only:
      return core::verdict_code::raknet_only;
    case verdict_kind::refused:
      return core::verdict_code::refused;
    case verdict_kind::offline:
      return core::verdict_code::offline;
    case verdict_kind::version_mismatch:
      return core::verdict_code::version_mismatch;
    case verdict_kind::join_failed:
      return core::verdict_code::join_failed;
  }
  return core::verdict_code::offline;
}

core::history_row row_of_check(const check_facts& facts, const check_verdict& verdict,
                              const check_replies& replies, std::int64_t at) {
  core::history_row row;
  row.at = at;
  row.verdict = code_of(verdict.kind);

  auto status = nethernet_status(replies.info);
  if (replies.info.error.ok())
    row.nethernet_us = core::latency_us(replies.info_ms);
  bool counted = status && take_counts(*status, row);
  row.raknet_checked = facts.raknet.tried;
  if (facts.raknet.tried && facts.raknet.ok) {
    row.raknet_us = core::latency_us(facts.raknet.latency_ms);
    if (!counted) {
      if (auto pong = base::parse_object(facts.raknet.body); pong && take_counts(*pong, row))
        row.players_from_raknet = true;
    }
    if (row.version.empty())
      row.version = core::bounded_version(facts.raknet.version);
  }

  if (replies.offer_tried && replies.offer.error.ok()) {
    row.offer_us = core::latency_us(replies.offer_ms);
    auto candidates = with_join_reach(facts);
    std::size_t total = candidates.size();
    std::size_t for_players = 0;
    std::size_t public_addresses = 0;
    std::size_t reachable = 0;
    for (const auto& c : candidates) {
      if (!c.for_players)
        continue;
      ++for_players;
      if (c.scope == "public")
        ++public_addresses;
      if (c.reachable == 1)
        ++reachable;
    }
    row.candidates.total = core::summary_count(total);
    row.candidates.for_players = core::summary_count(for_players);
    row.candidates.public_addresses = core::summary_count(public_addresses);
    row.candidates.reachable = core::summary_count(reachable);
    row.key_id = verified_key(replies.offer);
  }
  row.join = join_summary_of(facts.join);
  return row;
}

} // namespace netherscope::core
