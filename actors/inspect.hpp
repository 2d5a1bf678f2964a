// How CAF (or any inspector) reads the rules' message types (core/), field by field.
//
// The overloads open the types' own namespace, where argument-dependent lookup finds them
// when CAF serializes a message or prints it. They live here, with the runtime that needs
// them, so that core/ needs no CAF; tools/check_layout.sh allows this one file to open
// netherscope::core. actors/messages.hpp includes it, so the whole protocol between actors is
// still read in two adjacent files.
#pragma once

#include <optional>

#include <caf/error.hpp>
#include <caf/meta/load_callback.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/none.hpp>

#include "core/failure.hpp"
#include "core/join_request.hpp"
#include "core/quota.hpp"
#include "core/reachability.hpp"
#include "core/results.hpp"
#include "core/target.hpp"
#include "core/target_memory.hpp"
#include "core/watch.hpp"
#include "core/watch_schedule.hpp"
#include "core/watch_alert.hpp"
#include "core/webhook.hpp"

namespace netherscope::core {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, target& x) {
  return f(caf::meta::type_name("target"), x.host, x.port, x.tls);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, failure& x) {
  return f(caf::meta::type_name("failure"), x.code, x.message, x.http_status,
           x.body, x.nethernet_error, x.reason, x.retry_after);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, info_reply& x) {
  return f(caf::meta::type_name("info_reply"), x.error, x.status, x.tls, x.body);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, raknet_reply& x) {
  return f(caf::meta::type_name("raknet_reply"), x.tried, x.ok, x.code, x.message, x.body, x.port,
           x.latency_ms, x.protocol, x.version, x.motd);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, offer_reply& x) {
  return f(caf::meta::type_name("offer_reply"), x.error, x.body, x.cached, x.stale, x.age,
           x.probed);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, reach_target& x) {
  return f(caf::meta::type_name("reach_target"), x.address, x.port, x.skip);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, reach_plan& x) {
  return f(caf::meta::type_name("reach_plan"), x.valid, x.offer_ufrag, x.answer_ufrag,
           x.answer_pwd, x.candidates);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, join_order& x) {
  return f(caf::meta::type_name("join_order"), x.network_id, x.protocol, x.server_protocol,
           x.server_version);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, offer_request& x) {
  return f(caf::meta::type_name("offer_request"), x.where, x.network_id, x.fresh,
           x.expect_ports, x.probe);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, quota_charge& x) {
  return f(caf::meta::type_name("quota_charge"), x.what, x.client, x.key_hash, x.mode,
           x.charged_scope, x.charged_user_id, x.charged_reset);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, quota_verdict& x) {
  return f(caf::meta::type_name("quota_verdict"), x.error, x.scope, x.limit, x.remaining,
           x.reset, x.user_id);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, account_view& x) {
  return f(caf::meta::type_name("account_view"), x.error, x.user_id, x.login, x.created,
           x.month, x.info_used, x.info_limit, x.offer_used, x.offer_limit, x.reset,
           x.usage_known, x.new_key, x.key_active, x.session, x.csrf);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, target_memory& x) {
  return f(caf::meta::type_name("target_memory"), x.scheme, x.scheme_expires, x.key_sha256);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, target_memory_update& x) {
  return f(caf::meta::type_name("target_memory_update"), x.change, x.scheme, x.scheme_expires,
           x.key_sha256);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, watch_spec& x) {
  return f(caf::meta::type_name("watch_spec"), x.host, x.port, x.period_seconds, x.is_public);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, webhook_spec& x) {
  return f(caf::meta::type_name("webhook_spec"), x.url, x.format);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, webhook_view& x) {
  return f(caf::meta::type_name("webhook_view"), x.id, x.url, x.format, x.created, x.failing,
           x.failing_since, x.last_failure_at, x.last_failure);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, webhook_delivery& x) {
  return f(caf::meta::type_name("webhook_delivery"), x.error, x.status, x.live_message,
           x.live_gone, x.wait_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, watch_view& x) {
  return f(caf::meta::type_name("watch_view"), x.id, x.host, x.port, x.period_seconds,
           x.is_public, x.created, x.webhooks);
}

// A webhook's secret is left out, so no printed message can show it; these messages never
// leave the process, so nothing needs it serialized.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, watch_answer& x) {
  return f(caf::meta::type_name("watch_answer"), x.error, x.watches, x.limit);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, schedule_claim& x) {
  return f(caf::meta::type_name("schedule_claim"), x.key, x.due_ms, x.lease_until_ms,
           x.taken_from);
}

/// A std::optional field as CAF 0.17 inspects one (it knows only caf::optional): whether it
/// is present, then its value (the type's default when absent).
template <class T>
struct inspected_optional {
  std::optional<T>& value;
};

template <class Inspector, class T>
typename Inspector::result_type inspect(Inspector& f, inspected_optional<T>& x) {
  bool present = x.value.has_value();
  T held = x.value.value_or(T{});
  auto store = caf::meta::load_callback([&]() -> caf::error {
    x.value = present ? std::optional<T>{held} : std::nullopt;
    return caf::none;
  });
  return f(present, held, store);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, candidate_summary& x) {
  return f(caf::meta::type_name("candidate_summary"), x.total, x.for_players,
           x.public_addresses, x.reachable);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, history_row& x) {
  inspected_optional<std::uint32_t> players{x.players};
  inspected_optional<std::uint32_t> max_players{x.max_players};
  inspected_optional<std::uint32_t> nethernet_us{x.nethernet_us};
  inspected_optional<std::uint32_t> raknet_us{x.raknet_us};
  inspected_optional<std::uint32_t> offer_us{x.offer_us};
  inspected_optional<std::uint64_t> key_id{x.key_id};
  return f(caf::meta::type_name("history_row"), x.at, x.verdict, players, max_players,
           x.players_from_raknet, x.version, nethernet_us, x.raknet_checked, raknet_us,
           offer_us, x.candidates, key_id);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, verdict_change& x) {
  return f(caf::meta::type_name("verdict_change"), x.joinable, x.online, x.key, x.version,
           x.verdict);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, watch_alert& x) {
  return f(caf::meta::type_name("watch_alert"), x.host, x.port, x.previous, x.current,
           x.changes);
}

} // namespace netherscope::core
