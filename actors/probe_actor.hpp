// The probe actor: everything the service says to one target goes through it.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <vector>

#include "actors/messages.hpp"
#include "net/upstream/address_policy.hpp"
#include "net/upstream/http_client.hpp"
#include "net/upstream/ice_check.hpp"
#include "net/upstream/join_runner.hpp"
#include "net/upstream/udp_exchange.hpp"
#include "net/nethernet/identity.hpp"
#include "net/nethernet/identity_attributes.hpp"

namespace netherscope::actors {

namespace nethernet = net::nethernet;
namespace upstream = net::upstream;

/// Deadlines, limits and lifetime of probe actors.
struct probe_settings {
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds status_timeout{10000};
  std::chrono::milliseconds answer_timeout{20000};
  /// A probe with no work for this long asks the registry to retire it.
  std::chrono::milliseconds idle{60000};
  /// With tls auto-detected and nothing remembered: how long the TLS handshake may take
  /// before the target counts as plain HTTP.
  std::chrono::milliseconds tls_detect_timeout{1500};
  /// How long the scheme a target answered with is remembered; 0 turns that memory off.
  std::chrono::seconds scheme_lifetime{3600};
  /// How long a probe waits for the memory before calling without it.
  std::chrono::milliseconds recall_deadline{2000};
  /// How long an offer waits for the linked Xbox account's token (a renewal runs the whole
  /// chain) before it goes with the self-signed identity.
  std::chrono::milliseconds token_deadline{15000};
  /// The whole of a join after its answer (--join-timeout-ms): ICE to the game's answer.
  std::chrono::milliseconds join_timeout{5000};
};

/// What every probe shares: settings, the HTTP client (which keeps the per-target offer limit),
/// and our identity.
struct probe_deps {
  probe_settings settings;
  std::shared_ptr<upstream::http_client> client;
  std::shared_ptr<const nethernet::local_identity> identity;
  /// The identity attribute every probe's offers share while it is good; without one each
  /// offer signs its own.
  std::shared_ptr<nethernet::identity_attributes> attributes;
  /// Runs the connectivity checks of offers made with probe: true; without one (tests of the
  /// probe alone) such offers are answered without checks.
  std::shared_ptr<upstream::ice_checker> checker;
  /// Sends RakNet status pings, under the targets' address policy; without one (tests of the
  /// probe alone) a RakNet status is answered as not tried.
  std::shared_ptr<upstream::udp_exchanger> pinger;
  /// Runs joins in worker processes; without one (tests of the probe alone) a join is
  /// answered unavailable.
  std::shared_ptr<upstream::join_runner> joiner;
  /// Where a join may send UDP: the targets' address policy, as for the checks.
  upstream::address_policy join_policy;
  /// What the service remembers about targets (scheme, identity key); without one (tests of
  /// the probe alone) every call detects and no key is compared.
  actors::memory_actor memory;
  /// Hands out the linked Xbox account's GameServerToken; without one (no secrets key, or
  /// tests of the probe alone) every offer goes with the self-signed identity.
  actors::xbox_token_actor tokens;
};

/// State of one probe actor.
struct probe_state {
  static inline const char* name = "probe";
  core::target where;
  probe_deps deps;
  actors::probe_registry_actor registry;
  /// Callers waiting for the GET /v1/join in flight; they all get its answer.
  std::vector<caf::typed_response_promise<core::info_reply>> info_waiters;
  /// A caller waiting for the offer in flight, and whether it asked for the candidates to be
  /// checked.
  struct offer_waiter {
    caf::typed_response_promise<core::offer_reply> promise;
    bool probe = false;
  };
  /// Callers waiting for the offer in flight: never two offers at once to one target, since
  /// each may hold one of the server's UDP ports. Callers that asked for no checks get the
  /// answer as soon as it arrives; the others wait for the checks.
  std::vector<offer_waiter> offer_waiters;
  /// Callers waiting for the RakNet ping in flight to each UDP port: one exchange per port at
  /// a time, however many callers ask.
  std::map<std::uint16_t, std::vector<caf::typed_response_promise<core::raknet_reply>>>
    raknet_waiters;
  /// Callers waiting for the connectivity checks in progress.
  std::vector<caf::typed_response_promise<core::offer_reply>> reach_waiters;
  /// Callers waiting for their joins, by the join's number. Each join makes its own offer,
  /// never shared: its ICE credentials and certificate belong to that join.
  std::map<std::uint64_t, caf::typed_response_promise<core::join_result>> join_waiters;
  std::uint64_t next_join = 0;
  /// Whether connectivity checks are in progress; a probe:true caller arriving meanwhile, with
  /// no offer in flight, shares their result.
  bool checking = false;
  /// Requests received, reported to the registry so it can tell whether any are in transit.
  std::uint64_t seen = 0;
  /// Whether anything happened since the last idle check.
  bool active = false;
};

/// Implements probe_actor for one target.
actors::probe_actor::behavior_type probe(probe_actor::stateful_pointer<probe_state> self, core::target where,
                                 probe_deps deps, probe_registry_actor registry);

} // namespace netherscope::actors
