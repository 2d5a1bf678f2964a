// The auth actor: exchanges a provider's code for the user's numeric id and login.
#pragma once

#include <map>
#include <memory>

#include "actors/messages.hpp"
#include "net/http_client.hpp"
#include "net/oauth.hpp"

namespace netherscope {

/// Who signed in, or why it failed.
struct signin_result {
  failure error;
  std::uint64_t user_id = 0;
  std::string login;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, signin_result& x) {
  return f(caf::meta::type_name("signin_result"), x.error, x.user_id, x.login);
}

/// Runs the two provider requests of a sign-in (code, state); it reports their end to itself
/// (done_atom). Each state is accepted once.
using auth_actor
  = caf::typed_actor<caf::replies_to<signin_atom, std::string, std::string>::with<signin_result>,
                     caf::reacts_to<done_atom, std::uint64_t, signin_result>>;

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
