// The auth actor: exchanges a provider's code for the user's numeric id and login.
#pragma once

#include <map>
#include <memory>

#include "actors/messages.hpp"
#include "net/upstream/http_client.hpp"
#include "net/upstream/oauth.hpp"

namespace netherscope {

/// State of the auth actor.
struct auth_state {
  static inline const char* name = "auth";
  net::oauth_settings settings;
  std::shared_ptr<net::http_client> client;
  std::map<std::uint64_t, caf::typed_response_promise<signin_result>> waiting;
  std::uint64_t next_id = 0;
  /// States already used, with when, so a callback cannot be replayed with other codes.
  std::map<std::string, std::chrono::steady_clock::time_point> used_states;
};

/// Implements auth_actor.
auth_actor::behavior_type auth(auth_actor::stateful_pointer<auth_state> self,
                               net::oauth_settings settings,
                               std::shared_ptr<net::http_client> client);

} // namespace netherscope
