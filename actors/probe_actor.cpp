#include "actors/probe_actor.hpp"

#include <caf/all.hpp>

#include "net/api_json.hpp"

namespace netherscope {

info_reply make_info_reply(net::fetch_result&& fetched) {
  info_reply reply;
  reply.tls = fetched.tls;
  reply.status = fetched.status;
  if (!fetched.error.ok()) {
    reply.error = std::move(fetched.error);
    return reply;
  }
  if (fetched.status < 200 || fetched.status > 299) {
    // Redirects land here too: they are reported, never followed (PRODUCT.md).
    reply.error.code = error_code::upstream_status;
    reply.error.http_status = fetched.status;
    reply.error.body = std::move(fetched.body);
    return reply;
  }
  reply.body = net::render_info(fetched.status, fetched.tls, fetched.body);
  return reply;
}

probe_actor::behavior_type probe(probe_actor::stateful_pointer<probe_state> self, target where,
                                 probe_settings settings,
                                 std::shared_ptr<net::http_client> client,
                                 probe_registry_actor registry) {
  auto& st = self->state;
  st.where = std::move(where);
  st.settings = settings;
  st.client = std::move(client);
  st.registry = std::move(registry);
  self->delayed_send(self, settings.idle, idle_atom::value);
  return {
    [=](info_atom, const target&) -> caf::typed_response_promise<info_reply> {
      auto& st = self->state;
      ++st.seen;
      st.active = true;
      auto promise = self->make_response_promise<info_reply>();
      st.info_waiters.push_back(promise);
      // Callers asking while a GET is in flight share its answer: one request per target at
      // a time, however many callers ask.
      if (st.info_waiters.size() == 1) {
        net::fetch_request req;
        req.where = st.where;
        req.method = "GET";
        req.path = "/v1/join";
        req.body_limit = 64 * 1024;
        req.connect_timeout = st.settings.connect_timeout;
        req.total_timeout = st.settings.status_timeout;
        st.client->fetch(std::move(req), [handle = caf::actor_cast<probe_actor>(self)](net::fetch_result&& r) {
          // Runs on an io thread: build the reply there and hand it over as a message, so
          // the actor's state is only ever touched by the actor.
          caf::anon_send(handle, done_atom::value, make_info_reply(std::move(r)));
        });
      }
      return promise;
    },
    [=](done_atom, info_reply& reply) {
      auto waiters = std::move(self->state.info_waiters);
      self->state.info_waiters.clear();
      for (auto& waiter : waiters)
        waiter.deliver(reply);
    },
    [=](idle_atom) {
      auto& st = self->state;
      if (!st.active && st.info_waiters.empty())
        self->send(st.registry, idle_atom::value, caf::actor_cast<probe_actor>(self), st.seen);
      st.active = false;
      self->delayed_send(self, st.settings.idle, idle_atom::value);
    },
    [=](stop_atom) { self->quit(); },
  };
}

} // namespace netherscope
