// The one projection from the parsed configuration to the settings each room needs: every
// option reaches the rooms through these functions, and nowhere else. Pure functions, so a
// test can check where an option lands without starting anything; what only exists once the
// service runs (the store, clocks, secrets, actors) is added by app/service.cpp.
#pragma once

#include "actors/cache_actor.hpp"
#include "actors/front_actor.hpp"
#include "actors/keys_actor.hpp"
#include "actors/offer_gate.hpp"
#include "actors/probe_actor.hpp"
#include "actors/quota_actor.hpp"
#include "actors/watch_actor.hpp"
#include "actors/watch_scheduler.hpp"
#include "actors/webhook_actor.hpp"
#include "app/options.hpp"
#include "net/http/server_context.hpp"
#include "net/upstream/address_policy.hpp"
#include "net/upstream/dns.hpp"
#include "net/upstream/http_client.hpp"
#include "actors/xbox_token_actor.hpp"
#include "net/upstream/oauth.hpp"
#include "net/upstream/xbox_chain.hpp"
#include "storage/open.hpp"

namespace netherscope::app {

/// Where the store is (--data-dir or --store) and how LMDB is opened.
storage::open_options store_options_of(const config& cfg);

/// The Xbox sign-in chain's client: the chain's hosts are the operator's (production, or
/// --xbox-endpoints), so no address is refused.
net::upstream::client_settings xbox_client_settings_of(const config& cfg);

/// The Xbox chain runner's settings (--xbox-endpoints).
net::upstream::xbox_chain_settings xbox_chain_settings_of(const config& cfg);

/// The operator's secrets key, read from --secrets-key-file (already checked when the options
/// were parsed), with a warning logged when the file is open to others; none without the
/// option. Read once: it seals the Xbox link and the webhooks' secrets.
std::optional<base::secrets_key> secrets_key_of(const config& cfg);


/// The sign-in provider's settings.
net::upstream::oauth_settings oauth_settings_of(const config& cfg);

/// The HTTP server's settings, before the connection limit is fitted to the open-files limit.
net::http::server_settings server_settings_of(const config& cfg);

/// How names are looked up; each client makes its own c-ares channel from these.
net::upstream::dns_settings dns_settings_of(const config& cfg);

/// Where the service may send what strangers name (targets, their candidates, RakNet pings).
net::upstream::address_policy target_policy_of(const config& cfg);

/// The HTTP client to targets, which the address policy guards.
net::upstream::client_settings target_client_settings_of(const config& cfg);

/// The HTTP client to the sign-in provider: the operator's choice, so not guarded.
net::upstream::client_settings provider_client_settings_of(const config& cfg);

/// The join workers: the executable (--join-worker, else netherscope-join beside the running
/// program) and how many may run at once.
net::upstream::join_runner_settings join_runner_settings_of(const config& cfg);

/// How long a join may take in all (its offer, the worker, the runner's grace): the deadline
/// of POST /api/join's, a check's and a watch check's join.
std::chrono::milliseconds join_deadline_of(const config& cfg);

/// The probes' deadlines and lifetime.
actors::probe_settings probe_settings_of(const config& cfg);

/// The offer cache's bounds and its margin for a lost reply.
actors::cache_settings cache_settings_of(const config& cfg);

/// The quotas.
actors::quota_limits quota_limits_of(const config& cfg);

/// The quota actor's limits and reservations.
actors::quota_settings quota_settings_of(const config& cfg);

/// The keys actor's limits.
actors::keys_settings keys_settings_of(const config& cfg);

/// The watch actor's limits and the targets' address policy; the secrets key is added by
/// app/service.cpp.
actors::watch_settings watch_settings_of(const config& cfg);

/// The watch scheduler's timers and deadlines: it reads the watches again and polls for due
/// checks often enough for the shortest period allowed, and leases a check for as long as
/// its status and its offer may take. The owner and the clock are the caller's.
actors::scheduler_settings scheduler_settings_of(const config& cfg);

/// The HTTP client webhooks are delivered through: the targets' address policy (a webhook's
/// host is a stranger's choice too), the system's CAs and --upstream-ca-file, User-Agent
/// "netherscope".
net::upstream::client_settings webhook_client_settings_of(const config& cfg);

/// The webhook actor's retries and --allow-loopback; the store, the client and the secrets
/// key are added by app/service.cpp.
actors::webhook_settings webhook_settings_of(const config& cfg);

/// The fronts' deadlines, quotas and sign-in settings.
actors::front_settings front_settings_of(const config& cfg);

/// The per-target offer limit replicas share.
actors::offer_gate_settings gate_settings_of(const config& cfg);

} // namespace netherscope::app
