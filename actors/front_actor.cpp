#include "actors/front_actor.hpp"

#include <caf/all.hpp>

#include "app/log.hpp"
#include "net/api_json.hpp"

namespace netherscope {

namespace {

api_outcome to_outcome(info_reply& reply) {
  api_outcome outcome;
  outcome.error = std::move(reply.error);
  outcome.body = std::move(reply.body);
  return outcome;
}

api_outcome to_outcome(offer_reply& reply) {
  api_outcome outcome;
  outcome.error = std::move(reply.error);
  if (outcome.error.ok())
    outcome.body = net::with_cache_flags(reply.body, reply.cached, reply.stale);
  return outcome;
}

api_outcome lost_reply(const caf::error& err) {
  // The caller learns only that it failed; the cause goes to the log.
  log::write(log::level::error, "actor_request_failed", {{"error", caf::to_string(err)}});
  return {make_failure(error_code::internal, "the request could not be completed"), {}};
}

} // namespace

front_actor::behavior_type front(front_actor::pointer self, front_peers peers,
                                 front_settings settings) {
  return {
    [=](api_call& call) {
      if (!call.invalid.ok()) {
        call.reply({std::move(call.invalid), {}});
        return;
      }
      switch (call.what) {
        case endpoint::info:
          self->request(peers.registry, settings.info_deadline, info_atom::value, call.where)
            .then([reply = call.reply](info_reply& r) { reply(to_outcome(r)); },
                  [reply = call.reply](caf::error& err) { reply(lost_reply(err)); });
          return;
        case endpoint::offer: {
          offer_request req{std::move(call.where), std::move(call.network_id), call.fresh};
          self->request(peers.cache, settings.offer_deadline, offer_atom::value, std::move(req))
            .then([reply = call.reply](offer_reply& r) { reply(to_outcome(r)); },
                  [reply = call.reply](caf::error& err) { reply(lost_reply(err)); });
          return;
        }
      }
    },
  };
}

} // namespace netherscope
