// The probe actor: everything the service says to one target goes through it.
#pragma once

#include <chrono>
#include <memory>

#include "actors/messages.hpp"
#include "net/http_client.hpp"

namespace netherscope {

/// Deadlines and lifetime of probe actors.
struct probe_settings {
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds status_timeout{10000};
  std::chrono::milliseconds answer_timeout{20000};
  /// A probe with no work for this long asks the registry to retire it.
  std::chrono::milliseconds idle{60000};
};

/// State of one probe actor.
struct probe_state {
  static inline const char* name = "probe";
  target where;
  probe_settings settings;
  std::shared_ptr<net::http_client> client;
  probe_registry_actor registry;
  /// Callers waiting for the GET /v1/join in flight; they all get its answer.
  std::vector<caf::typed_response_promise<info_reply>> info_waiters;
  /// Requests received, reported to the registry so it can tell whether any are in transit.
  std::uint64_t seen = 0;
  /// Whether anything happened since the last idle check.
  bool active = false;
};

/// Implements probe_actor for one target.
probe_actor::behavior_type probe(probe_actor::stateful_pointer<probe_state> self, target where,
                                 probe_settings settings,
                                 std::shared_ptr<net::http_client> client,
                                 probe_registry_actor registry);

/// Turns what the target answered to GET /v1/join into the API's reply (SPEC 2.1).
/// A 2xx is success whatever the body; anything else is upstream_status, never followed.
info_reply make_info_reply(net::fetch_result&& fetched);

} // namespace netherscope
