#include "actors/cache_actor.hpp"

#include <caf/all.hpp>

#include "core/api_json.hpp"
#include "core/telemetry.hpp"
#include "base/crypto.hpp"
#include "base/log.hpp"

namespace netherscope::actors {


namespace {

using cache_pointer = actors::cache_actor::stateful_pointer<cache_state>;

// A plain hit: the cache keeps its body with its fields already in it.
core::offer_reply from_hit(const offer_cache::hit& hit) {
  core::offer_reply reply;
  reply.body = *hit.body;
  reply.cached = true;
  reply.age = hit.age;
  return reply;
}

core::offer_reply from_fallback(offer_cache::fallback&& entry) {
  core::offer_reply reply;
  reply.body = std::move(entry.body);
  reply.cached = true;
  reply.stale = entry.stale;
  reply.age = entry.age;
  return reply;
}

// Shows the io threads' boards what the cache now holds for a target: its plain hit, or
// nothing (an answer too large to keep replaced the entry with none). The body is copied once
// here and shared by every board.
void publish(cache_state& st, const core::target& where, offer_cache::clock_type::time_point stored,
             bool probed) {
  if (!st.settings.publish_hits)
    return;
  board_update update{where, nullptr, stored, probed};
  if (auto hit = st.cache.fresh(where, stored))
    update.body = std::make_shared<const std::string>(*hit->body);
  st.settings.publish_hits(std::move(update));
}

std::int64_t unix_of(offer_cache::wall_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

// Stores a finished flight's result for the other replicas and frees the shared lock,
// through the shared-offers worker: the store's calls block.
void publish_flight(cache_pointer self, const core::target& where, bool probe,
                    const core::offer_reply& reply, std::int64_t retrieved_unix) {
  auto& st = self->state;
  auto lock = st.owned_locks.find({where, probe});
  if (lock == st.owned_locks.end())
    return;
  auto owner = std::move(lock->second);
  st.owned_locks.erase(lock);
  auto ok = reply.error.ok();
  caf::anon_send(st.shared_worker, publish_atom::value, where, probe, std::move(owner), ok,
                 ok ? reply.body : std::string{}, retrieved_unix, reply.probed);
}

void finish_flight(cache_pointer self, const core::target& where, bool probe, core::offer_reply reply) {
  auto& st = self->state;
  auto now = st.settings.now();
  auto i = st.flights.find({where, probe});
  if (i == st.flights.end())
    return;
  auto waiters = std::move(i->second);
  st.flights.erase(i);
  auto retrieved_at = st.settings.wall_now();
  publish_flight(self, where, probe, reply, unix_of(retrieved_at));
  if (reply.error.ok()) {
    auto unix_seconds = unix_of(retrieved_at);
    auto body
      = core::with_cache_fields(reply.body, core::cache_fields{false, false, unix_seconds, 0});
    st.cache.put(where, std::move(reply.body), now, retrieved_at, reply.probed);
    reply.body = std::move(body);
    publish(st, where, now, reply.probed);
  } else {
    // A refresh that failed falls back to what the target said before. Past the per-target
    // limit it is an ordinary hit, stale only when past its lifetime.
    auto limited = reply.error.code == core::error_code::target_rate_limited;
    if (auto entry = st.cache.usable(where, now, !limited, probe))
      reply = from_fallback(std::move(*entry));
  }
  for (auto& waiter : waiters)
    waiter.deliver(reply);
}

// Sends the target the offer (through the probe registry) and answers the flight's waiters.
void fetch(cache_pointer self, const core::target& where, const std::string& network_id, bool probe) {
  auto& st = self->state;
  self->request(st.registry, st.settings.flight_deadline, offer_atom::value, where, network_id,
                probe)
    .then([=](core::offer_reply& reply) { finish_flight(self, where, probe, std::move(reply)); },
          [=](caf::error& err) {
            base::log::write(base::log::level::error, "offer_flight_failed",
                       {{"error", caf::to_string(err)}});
            core::offer_reply reply;
            reply.error = core::make_failure(core::error_code::internal, "the offer could not be completed");
            finish_flight(self, where, probe, std::move(reply));
          });
}

// Starts the one flight for a target: through the shared store when there is one.
void start_flight(cache_pointer self, const core::offer_request& req) {
  auto& st = self->state;
  if (!st.shared_worker || req.fresh)
    return fetch(self, req.where, req.network_id, req.probe);
  auto key = std::make_pair(req.where, req.probe);
  auto token = base::random_bytes(16);
  shared_flight flight;
  flight.network_id = req.network_id;
  flight.owner = base::base64url_encode(token ? *token : std::string{});
  flight.give_up = st.settings.now() + st.settings.flight_deadline;
  st.shared_flights[key] = flight;
  caf::anon_send(st.shared_worker, lookup_atom::value, req.where, req.probe, flight.owner);
}

// The shared store answered a flight: serve another replica's hit, fetch (holding the lock
// when owned), or, while another replica holds the lock, look again after a pause. Waiting
// takes no thread: the next look is a delayed message to the worker.
void on_shared(cache_pointer self, const core::target& where, bool probe, const std::string& kind,
               std::string body, std::int64_t retrieved_unix, bool probed) {
  auto& st = self->state;
  auto key = std::make_pair(where, probe);
  auto i = st.shared_flights.find(key);
  if (i == st.shared_flights.end())
    return;
  auto now = st.settings.now();
  if (kind == "busy" && now < i->second.give_up) {
    caf::delayed_anon_send(st.shared_worker, st.settings.shared_poll, lookup_atom::value,
                           where, probe, i->second.owner);
    return;
  }
  auto flight = std::move(i->second);
  st.shared_flights.erase(i);
  if (kind == "hit") {
    // Stored as if it had been fetched here when the other replica fetched it, so its age
    // and expiry read the same on every replica.
    auto age = std::max<std::int64_t>(0, unix_of(st.settings.wall_now()) - retrieved_unix);
    auto stored = now - std::chrono::seconds(age);
    st.cache.put(where, std::move(body), stored,
                 offer_cache::wall_clock::time_point{std::chrono::seconds(retrieved_unix)},
                 probed);
    publish(st, where, stored, probed);
    if (auto hit = st.cache.fresh(where, now, probe)) {
      core::process_telemetry().count_shared_hit();
      auto f = st.flights.find(key);
      if (f != st.flights.end()) {
        auto waiters = std::move(f->second);
        st.flights.erase(f);
        for (auto& waiter : waiters)
          waiter.deliver(from_hit(*hit));
      }
      return;
    }
  } else if (kind == "owned") {
    st.owned_locks[key] = std::move(body);
  }
  // "fetch" (the store failed), "busy" past the deadline (the holder did not finish), or a
  // hit too old to serve: this replica asks the target itself.
  fetch(self, where, flight.network_id, probe);
}

} // namespace

// -- the shared-offers worker ------------------------------------------------------

shared_lookup look_up_shared_once(storage::shared_store& store, const core::target& where,
                                  bool probe, const std::string& owner,
                                  std::chrono::milliseconds lock_ttl) {
  auto cached = store.get_offer(where, probe);
  if (!cached)
    return {};
  if (*cached)
    return {"hit", std::move(**cached)};
  auto locked = store.lock_flight(where, probe, owner, lock_ttl);
  if (!locked)
    return {};
  if (!*locked)
    return {"busy", {}};
  // The holder before us may have stored its result between our read and our lock.
  auto again = store.get_offer(where, probe);
  if (again && *again) {
    store.unlock_flight(where, probe, owner);
    return {"hit", std::move(**again)};
  }
  return {"owned", {}};
}

caf::behavior shared_offers(caf::event_based_actor* self,
                            std::shared_ptr<storage::shared_store> store, actors::cache_actor cache,
                            std::chrono::milliseconds lock_ttl, std::chrono::seconds offer_ttl) {
  return {
    [=](lookup_atom, const core::target& where, bool probe, const std::string& owner) {
      auto found = look_up_shared_once(*store, where, probe, owner, lock_ttl);
      self->send(cache, shared_atom::value, where, probe, found.kind,
                 found.kind == "owned" ? owner : std::move(found.offer.body),
                 found.offer.retrieved_unix, found.offer.probed);
    },
    [=](publish_atom, const core::target& where, bool probe, const std::string& owner, bool ok,
        std::string& body, std::int64_t retrieved_unix, bool probed) {
      if (ok) {
        storage::shared_offer offer{std::move(body), retrieved_unix, probed};
        if (auto err = store->put_offer(where, offer, offer_ttl))
          base::log::write(base::log::level::warn, "shared_cache_failed", {{"error", caf::to_string(err)}});
      }
      if (auto err = store->unlock_flight(where, probe, owner))
        base::log::write(base::log::level::warn, "shared_cache_failed", {{"error", caf::to_string(err)}});
    },
  };
}

actors::cache_actor::behavior_type cache(cache_pointer self, actors::probe_registry_actor registry,
                                 cache_settings settings) {
  self->state.cache = offer_cache{settings.limits};
  if (settings.shared) {
    // One worker thread for every blocking call to the shared store; linked, so it ends with
    // the cache. A flight's lock lives as long as the flight may.
    self->state.shared_worker
      = self->spawn<caf::detached + caf::linked>(shared_offers, settings.shared,
                                                 caf::actor_cast<cache_actor>(self),
                                                 settings.flight_deadline, settings.limits.ttl);
  }
  self->state.settings = std::move(settings);
  self->state.registry = std::move(registry);
  return {
    [=](offer_atom, core::offer_request& req) -> caf::typed_response_promise<core::offer_reply> {
      auto& st = self->state;
      auto now = st.settings.now();
      auto promise = self->make_response_promise<core::offer_reply>();
      if (!req.fresh) {
        if (auto hit = st.cache.fresh(req.where, now, req.probe)) {
          core::process_telemetry().count_cache_hit();
          promise.deliver(from_hit(*hit));
          return promise;
        }
      }
      // Concurrent calls for a target share one upstream offer: each offer may hold one
      // of the server's UDP ports, so never send two at once.
      auto& waiters = st.flights[{req.where, req.probe}];
      waiters.push_back(promise);
      if (waiters.size() > 1)
        core::process_telemetry().count_cache_join();
      if (waiters.size() == 1) {
        core::process_telemetry().count_cache_miss();
        st.cache.expire(now);
        start_flight(self, req);
      }
      return promise;
    },
    [=](count_atom) { return static_cast<std::uint64_t>(self->state.cache.size()); },
    [=](shared_atom, const core::target& where, bool probe, const std::string& kind,
        std::string& body, std::int64_t retrieved_unix, bool probed) {
      on_shared(self, where, probe, kind, std::move(body), retrieved_unix, probed);
    },
  };
}

} // namespace netherscope::actors
