// The webhook actor: delivers the watches' events to their webhooks (docs/WATCHES.md,
// "Alerts"). An alert of a target (core/watch_alert.hpp) becomes one change event for each
// webhook of each watch of the target that existed before the previous check; each is POSTed
// in the webhook's format, signed (X-Netherscope-Signature), through the HTTP client (HTTPS
// with the certificate checked, the address policy at each try, no redirects, a 5 s deadline
// for the whole try), and retried with backoff (core/webhook_retry) for the retry time;
// then the webhook is marked failing in the store until a delivery succeeds. A test is tried
// once and answered with its outcome. A discord_live webhook's deliveries edit one message
// (core/discord_live.hpp), wait as long as a 429 asks, and skip to the newest state.
//
// It knows nothing of HTTP routes: the watch actor decides who may test which webhook. Timers
// are CAF's delayed messages, so nothing waits; each webhook's deliveries go one at a time,
// in order, from a bounded lane (actors/webhook_lanes.hpp). The lanes live in memory: the
// deliveries still waiting when the service stops are not sent. Runs detached: it reads the
// records and writes the webhooks' state in the store, which blocks.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "actors/messages.hpp"
#include "actors/webhook_lanes.hpp"
#include "core/webhook_retry.hpp"
#include "base/sealed.hpp"
#include "net/upstream/http_client.hpp"
#include "storage/store.hpp"
#include "storage/watch_store.hpp"

namespace netherscope::actors {

/// The deliveries one webhook's lane holds at most; a newer one drops the oldest waiting.
inline constexpr std::size_t webhook_lane_limit = 8;

/// What the webhook actor needs.
struct webhook_settings {
  std::shared_ptr<storage::store> store;
  /// Where a test reads the server's latest check (none: a test carries no check).
  std::shared_ptr<storage::watch_store> watching;
  /// The service's public base URL without a trailing slash (--public-base-url), which the
  /// events' links start with; empty: no link.
  std::string public_base_url;
  /// The client deliveries go through: the targets' address policy, the User-Agent
  /// "netherscope".
  std::shared_ptr<net::upstream::http_client> client;
  /// The operator's secrets key, which opens the webhooks' secrets; without it nothing can be
  /// signed, and every try fails.
  std::optional<base::secrets_key> secrets;
  /// When failed deliveries are tried again (retry_for is --webhook-retry-for).
  core::retry_policy retries;
  /// Whether a webhook may be plain http to loopback (--allow-loopback).
  bool allow_loopback = false;
  /// How long one try may take, connecting included.
  std::chrono::milliseconds timeout{5000};
  /// The most of a response's body read (then discarded); a larger one fails the try.
  std::size_t body_limit = 64 * 1024;
  std::size_t lane_limit = webhook_lane_limit;
  /// Unix time now; tests set it.
  std::function<std::int64_t()> now;
};

/// One try on the wire: what it is for, and who waits for its outcome.
struct webhook_try {
  std::string watch_id;
  std::string webhook_id;
  /// For a lane's delivery: its lane and number.
  std::string lane;
  std::uint64_t number = 0;
  /// For a test: the caller waiting for the outcome.
  std::optional<caf::typed_response_promise<core::webhook_delivery>> promise;
  /// scheme://host:port of the URL, all a log line may show of it.
  std::string shown_url;
  /// Whether the webhook was failing when the try began: only then does a success write.
  bool was_failing = false;
  /// Whether the try is a discord_live lane delivery, which edits the webhook's message.
  bool live = false;
};

/// State of the webhook actor.
struct webhook_actor_state {
  static inline const char* name = "webhooks";
  webhook_settings settings;
  delivery_lanes lanes{webhook_lane_limit};
  std::uint64_t next_number = 1;
  /// The tries on the wire, by number.
  std::map<std::uint64_t, webhook_try> tries;
  /// For each discord_live lane, the message its deliveries edit. In memory: after a restart
  /// the next delivery posts a new message.
  std::map<std::string, std::string> live_messages;
};

/// Implements webhook_actor; spawn it detached.
webhook_actor::behavior_type webhooks(webhook_actor::stateful_pointer<webhook_actor_state> self,
                                      webhook_settings settings);

} // namespace netherscope::actors
