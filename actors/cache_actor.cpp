#include "actors/cache_actor.hpp"

#include <caf/all.hpp>

#include "net/api/api_json.hpp"
#include "net/api/telemetry.hpp"
#include "net/base/log.hpp"

namespace netherscope {

namespace {

using cache_pointer = cache_actor::stateful_pointer<cache_state>;

// A plain hit: the cache keeps its body with its fields already in it.
offer_reply from_hit(const offer_cache::hit& hit) {
  offer_reply reply;
  reply.body = *hit.body;
  reply.cached = true;
  reply.age = hit.age;
  return reply;
}

offer_reply from_fallback(offer_cache::fallback&& entry) {
  offer_reply reply;
  reply.body = std::move(entry.body);
  reply.cached = true;
  reply.stale = entry.stale;
  reply.age = entry.age;
  return reply;
}

// Shows the board what the cache now holds for a target: its plain hit, or nothing (an
// answer too large to keep replaced the entry with none).
void publish(cache_state& st, const target& where, offer_cache::clock_type::time_point now,
             bool probed) {
  if (!st.settings.board)
    return;
  if (auto hit = st.cache.fresh(where, now))
    st.settings.board->publish(where, *hit->body, now, probed);
  else
    st.settings.board->withdraw(where);
}

void finish_flight(cache_pointer self, const target& where, bool probe, offer_reply reply) {
  auto& st = self->state;
  auto now = st.settings.now();
  auto i = st.flights.find({where, probe});
  if (i == st.flights.end())
    return;
  auto waiters = std::move(i->second);
  st.flights.erase(i);
  if (reply.error.ok()) {
    auto retrieved_at = st.settings.wall_now();
    auto unix_seconds
      = std::chrono::duration_cast<std::chrono::seconds>(retrieved_at.time_since_epoch()).count();
    auto body
      = net::with_cache_fields(reply.body, net::cache_fields{false, false, unix_seconds, 0});
    st.cache.put(where, std::move(reply.body), now, retrieved_at, reply.probed);
    reply.body = std::move(body);
    publish(st, where, now, reply.probed);
  } else {
    // A refresh that failed falls back to what the target said before. Past the per-target
    // limit it is an ordinary hit, stale only when past its lifetime.
    auto limited = reply.error.code == error_code::target_rate_limited;
    if (auto entry = st.cache.usable(where, now, !limited, probe))
      reply = from_fallback(std::move(*entry));
  }
  for (auto& waiter : waiters)
    waiter.deliver(reply);
}

} // namespace

cache_actor::behavior_type cache(cache_pointer self, probe_registry_actor registry,
                                 cache_settings settings) {
  self->state.cache = offer_cache{settings.limits};
  self->state.settings = std::move(settings);
  self->state.registry = std::move(registry);
  return {
    [=](offer_atom, offer_request& req) -> caf::typed_response_promise<offer_reply> {
      auto& st = self->state;
      auto now = st.settings.now();
      auto promise = self->make_response_promise<offer_reply>();
      if (!req.fresh) {
        if (auto hit = st.cache.fresh(req.where, now, req.probe)) {
          process_telemetry().count_cache_hit();
          promise.deliver(from_hit(*hit));
          return promise;
        }
      }
      // Concurrent calls for a target share one upstream offer: each offer may hold one
      // of the server's UDP ports, so never send two at once.
      auto& waiters = st.flights[{req.where, req.probe}];
      waiters.push_back(promise);
      if (waiters.size() > 1)
        process_telemetry().count_cache_join();
      if (waiters.size() == 1) {
        process_telemetry().count_cache_miss();
        st.cache.expire(now);
        auto where = req.where;
        auto probe = req.probe;
        self->request(st.registry, st.settings.flight_deadline, offer_atom::value, req.where,
                      req.network_id, req.probe)
          .then([=](offer_reply& reply) { finish_flight(self, where, probe, std::move(reply)); },
                [=](caf::error& err) {
                  log::write(log::level::error, "offer_flight_failed",
                             {{"error", caf::to_string(err)}});
                  offer_reply reply;
                  reply.error = make_failure(error_code::internal,
                                             "the offer could not be completed");
                  finish_flight(self, where, probe, std::move(reply));
                });
      }
      return promise;
    },
    [=](count_atom) { return static_cast<std::uint64_t>(self->state.cache.size()); },
  };
}

} // namespace netherscope
