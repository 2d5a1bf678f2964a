// The auth actor: exchanges a provider's code (with its PKCE verifier) for the user's numeric
// id and login. Whether a state was used is not its business: the keys actor records used
// states in the store, where every replica sees them.
#pragma once

#include <map>
#include <memory>

#include "actors/messages.hpp"
#include "net/upstream/http_client.hpp"
#include "net/upstream/oauth.hpp"

namespace netherscope::actors {

namespace upstream = net::upstream;

/// State of the auth actor.
struct auth_state {
  static inline const char* name = "auth";
  upstream::oauth_settings settings;
  std::shared_ptr<upstream::http_client> client;
  std::map<std::uint64_t, caf::typed_response_promise<signin_result>> waiting;
  std::uint64_t next_id = 0;
};

/// Implements auth_actor.
auth_actor::behavior_type auth(auth_actor::stateful_pointer<auth_state> self,
                               upstream::oauth_settings settings,
                               std::shared_ptr<upstream::http_client> client);

} // namespace netherscope::actors
