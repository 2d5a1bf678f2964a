#include "actors/probe_actor.hpp"

#include <ctime>

#include <caf/all.hpp>

#include "net/report/replies.hpp"
#include "net/api/offer_request.hpp"
#include "net/nethernet/sdp_offer.hpp"

namespace netherscope {

probe_actor::behavior_type probe(probe_actor::stateful_pointer<probe_state> self, target where,
                                 probe_deps deps, probe_registry_actor registry) {
  auto& st = self->state;
  st.where = std::move(where);
  st.deps = std::move(deps);
  st.registry = std::move(registry);
  self->delayed_send(self, st.deps.settings.idle, idle_atom::value);
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
        req.connect_timeout = st.deps.settings.connect_timeout;
        req.total_timeout = st.deps.settings.status_timeout;
        auto handle = caf::actor_cast<probe_actor>(self);
        st.deps.client->fetch(std::move(req), [handle](net::fetch_result&& r) {
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
    [=](offer_atom, const target&,
        std::string& network_id) -> caf::typed_response_promise<offer_reply> {
      auto& st = self->state;
      ++st.seen;
      st.active = true;
      auto promise = self->make_response_promise<offer_reply>();
      if (!st.offer_waiters.empty()) {
        st.offer_waiters.push_back(promise);
        return promise;
      }
      auto params = net::make_offer_parameters(*st.deps.identity, std::time(nullptr));
      if (!params) {
        offer_reply reply;
        reply.error = make_failure(error_code::internal, "cannot build an offer");
        promise.deliver(std::move(reply));
        return promise;
      }
      st.offer_waiters.push_back(promise);
      if (network_id.empty())
        network_id = net::random_network_id();
      net::fetch_request req;
      req.where = st.where;
      req.method = "POST";
      req.path = "/v1/join/" + network_id;
      req.content_type = "application/sdp";
      req.body = net::build_offer(*params);
      // Answers are a few KB; 1 MiB is every known implementation's own limit.
      req.body_limit = 1024 * 1024;
      req.connect_timeout = st.deps.settings.connect_timeout;
      req.total_timeout = st.deps.settings.answer_timeout;
      req.limiter = st.deps.limiter;
      auto handle = caf::actor_cast<probe_actor>(self);
      net::offer_context context;
      context.network_id = network_id;
      context.signalling_port = st.where.port;
      st.deps.client->fetch(std::move(req), [handle, context](net::fetch_result&& r) mutable {
        // The answer's identity is checked against the time it arrived.
        context.now_unix = std::time(nullptr);
        caf::anon_send(handle, answer_atom::value, make_offer_reply(std::move(r), context));
      });
      return promise;
    },
    [=](answer_atom, offer_reply& reply) {
      auto waiters = std::move(self->state.offer_waiters);
      self->state.offer_waiters.clear();
      for (auto& waiter : waiters)
        waiter.deliver(reply);
    },
    [=](idle_atom) {
      auto& st = self->state;
      if (!st.active && st.info_waiters.empty() && st.offer_waiters.empty())
        self->send(st.registry, idle_atom::value, caf::actor_cast<probe_actor>(self), st.seen);
      st.active = false;
      self->delayed_send(self, st.deps.settings.idle, idle_atom::value);
    },
    [=](stop_atom) { self->quit(); },
  };
}

} // namespace netherscope
