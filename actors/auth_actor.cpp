#include "actors/auth_actor.hpp"

#include <caf/all.hpp>

namespace netherscope::actors {

namespace upstream = net::upstream;

namespace {

signin_result signin_failed(core::failure error) {
  signin_result result;
  result.error = std::move(error);
  return result;
}

// The second request: the user behind the token. Runs on an io thread; reports by message.
void fetch_user(std::shared_ptr<upstream::http_client> client, const upstream::oauth_settings& settings,
                const std::string& token, auth_actor self, std::uint64_t id) {
  auto req = upstream::user_request(settings, token);
  if (!req) {
    caf::anon_send(self, done_atom::value, id,
                   signin_failed(core::make_failure(core::error_code::internal, "the provider API URL is invalid")));
    return;
  }
  client->fetch(std::move(*req), [self, id](upstream::fetch_result&& r) {
    core::failure error;
    auto user = upstream::read_user(r, error);
    signin_result result;
    if (user) {
      result.user_id = user->id;
      result.login = std::move(user->login);
    } else {
      result.error = std::move(error);
    }
    caf::anon_send(self, done_atom::value, id, std::move(result));
  });
}

} // namespace

auth_actor::behavior_type auth(auth_actor::stateful_pointer<auth_state> self,
                               upstream::oauth_settings settings,
                               std::shared_ptr<upstream::http_client> client) {
  self->state.settings = std::move(settings);
  self->state.client = std::move(client);
  return {
    [=](signin_atom, const std::string& code,
        const std::string& verifier) -> caf::typed_response_promise<signin_result> {
      auto& st = self->state;
      auto promise = self->make_response_promise<signin_result>();
      auto req = upstream::token_request(st.settings, code, verifier);
      if (!req) {
        promise.deliver(
          signin_failed(core::make_failure(core::error_code::internal, "the provider token URL is invalid")));
        return promise;
      }
      auto id = st.next_id++;
      st.waiting.emplace(id, promise);
      auto handle = caf::actor_cast<auth_actor>(self);
      auto settings_copy = st.settings;
      auto http = st.client;
      http->fetch(std::move(*req), [=](upstream::fetch_result&& r) {
        core::failure error;
        auto token = upstream::read_token(r, error);
        if (!token) {
          caf::anon_send(handle, done_atom::value, id, signin_failed(std::move(error)));
          return;
        }
        fetch_user(http, settings_copy, *token, handle, id);
      });
      return promise;
    },
    [=](done_atom, std::uint64_t id, signin_result& result) {
      auto i = self->state.waiting.find(id);
      if (i == self->state.waiting.end())
        return;
      i->second.deliver(std::move(result));
      self->state.waiting.erase(i);
    },
  };
}

} // namespace netherscope::actors
