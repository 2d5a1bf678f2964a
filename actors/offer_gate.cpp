#include "actors/offer_gate.hpp"

#include <caf/all.hpp>

#include "base/log.hpp"

namespace netherscope::actors {

namespace upstream = net::upstream;

offer_gate_actor::behavior_type offer_gate(std::shared_ptr<storage::shared_store> store,
                                           offer_gate_settings settings) {
  // While the store is away every offer fails here: one line per 10 s says so, with how many
  // it stands for.
  auto failures = std::make_shared<base::log::sampler>(std::chrono::seconds{10});
  return {
    [=](gate_atom, const std::vector<std::string>& servers, const std::string& owner,
        unsigned in_flight_limit, const gate_fn& done) {
      auto wait = store->take_offer_slot(servers, settings.per_minute, owner,
                                         settings.in_flight_ttl, in_flight_limit);
      if (!wait) {
        // Refusing every offer while the store is away would take the whole API down with
        // it for a limit each replica still keeps on its own.
        base::log::write_sampled(*failures, base::log::level::warn, "offer_gate_failed",
                           {{"error", caf::to_string(wait.error())}});
        return done(std::chrono::seconds::zero());
      }
      done(*wait);
    },
    [=](release_atom, const std::vector<std::string>& servers, const std::string& owner) {
      if (auto err = store->release_offer_slot(servers, owner))
        base::log::write_sampled(*failures, base::log::level::warn, "offer_gate_failed",
                           {{"error", caf::to_string(err)}});
    },
  };
}

upstream::shared_offer_gate gate_through(offer_gate_actor gate) {
  // Weak references: the client to targets keeps these functions, and it outlives the actor
  // system, which waits for the detached gate until no strong reference to it is left.
  auto weak = caf::actor_cast<caf::actor_addr>(gate);
  upstream::shared_offer_gate out;
  out.start = [weak](const std::vector<std::string>& servers, const std::string& owner,
                     unsigned in_flight_limit, upstream::shared_offer_gate::done_fn done) {
    // A gate that is gone (the service stops) never answers: the fetch goes on when the
    // connect deadline ends the wait, as for a slow gate.
    if (auto strong = caf::actor_cast<offer_gate_actor>(weak))
      caf::anon_send(strong, gate_atom::value, servers, owner, in_flight_limit,
                     gate_fn{std::move(done)});
  };
  out.finish = [weak](const std::vector<std::string>& servers, const std::string& owner) {
    if (auto strong = caf::actor_cast<offer_gate_actor>(weak))
      caf::anon_send(strong, release_atom::value, servers, owner);
  };
  return out;
}

} // namespace netherscope::actors
