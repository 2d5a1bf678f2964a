// GET and POST /api/status as the front actor runs them, and the pair of calls every status
// shares (GET /api/check and the badges too): ask the probe for GET /v1/join and for the
// RakNet ping at once, and go on when both replies are in.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include <caf/all.hpp>

#include "actors/front_actor.hpp"
#include "actors/outcomes.hpp"

namespace netherscope::actors {

/// Both replies of a status, handed on together.
using status_fn = std::function<void(core::info_reply&&, core::raknet_reply&&)>;

/// Asks the registry for where's status over both transports at once, the RakNet ping to
/// raknet_port (0: the target's own port); done runs on self's thread once both replies are
/// in, whatever kind of actor self is. A reply the actors lost is an internal error for
/// NetherNet, and no RakNet status.
template <class Self>
void ask_both_transports(Self* self, const probe_registry_actor& registry,
                         std::chrono::milliseconds deadline, const core::target& where,
                         std::uint16_t raknet_port, status_fn done) {
  struct joined {
    std::optional<core::info_reply> info;
    std::optional<core::raknet_reply> raknet;
    status_fn done;
    void settle() {
      if (info && raknet)
        done(std::move(*info), std::move(*raknet));
    }
  };
  auto join = std::make_shared<joined>();
  join->done = std::move(done);
  auto port = raknet_port != 0 ? raknet_port : where.port;
  self->request(registry, deadline, info_atom::value, where)
    .then(
      [join](core::info_reply& info) {
        join->info = std::move(info);
        join->settle();
      },
      [join](caf::error& err) {
        join->info = core::info_reply{};
        join->info->error = lost(err);
        join->settle();
      });
  self->request(registry, deadline, raknet_atom::value, where, port)
    .then(
      [join](core::raknet_reply& raknet) {
        join->raknet = std::move(raknet);
        join->settle();
      },
      [join](caf::error& err) {
        lost(err);
        join->raknet = core::raknet_reply{};
        join->settle();
      });
}

/// Asks for where's status over both transports at once, the RakNet ping to raknet_port (0:
/// the target's own port); done runs on self's thread once both replies are in. A reply the
/// actors lost is an internal error for NetherNet, and no RakNet status.
void ask_status(front_actor::pointer self, const front_peers& peers,
                const front_settings& settings, const core::target& where,
                std::uint16_t raknet_port, status_fn done);

/// Serves GET /api/status once its info call is counted; replies exactly once.
void serve_status(front_actor::pointer self, const front_peers& peers,
                  const front_settings& settings, core::api_call& call,
                  core::quota_verdict verdict);

/// Serves GET /badge once its info call is counted: the status as GET /api/status, with the
/// latest check of the server when a public watch checked it recently (the history actor's
/// latest checks, held in memory); replies exactly once.
void serve_badge(front_actor::pointer self, const front_peers& peers,
                 const front_settings& settings, core::api_call& call, core::quota_verdict verdict);

/// Serves POST /api/status: looks up where the caller stands and replies with the stream's
/// head (or the error that ends the call), then counts each target as one info call as its
/// turn comes, checks a bounded number at a time, and hands one line per target to
/// call.lines as each completes. Once a target's charge is refused, it and every target
/// after it get the refusal as their line, uncounted.
void serve_status_batch(front_actor::pointer self, const front_peers& peers,
                        const front_settings& settings, core::api_call& call);

/// How many targets of one POST /api/status are checked at a time.
inline constexpr std::size_t status_batch_parallel = 16;

} // namespace netherscope::actors
