#include "actors/probe_registry.hpp"

#include <caf/all.hpp>

namespace netherscope::actors {


namespace {

actors::probe_actor& probe_for(probe_registry_actor::stateful_pointer<probe_registry_state> self,
                       const core::target& where) {
  auto& st = self->state;
  auto i = st.probes.find(where);
  if (i == st.probes.end()) {
    // Linked, so the probes go down with the registry at shutdown.
    auto handle = self->spawn<caf::linked>(probe, where, st.deps,
                                           caf::actor_cast<probe_registry_actor>(self));
    i = st.probes.emplace(where, probe_registry_state::entry{handle, 0}).first;
  }
  ++i->second.forwarded;
  return i->second.handle;
}

} // namespace

actors::probe_registry_actor::behavior_type
probe_registry(probe_registry_actor::stateful_pointer<probe_registry_state> self,
               probe_deps deps) {
  self->state.deps = std::move(deps);
  // A probe that retires exits normally; that must not take the registry down with it.
  self->set_exit_handler([=](caf::exit_msg& msg) {
    if (msg.reason != caf::exit_reason::normal)
      self->quit(msg.reason);
  });
  return {
    [=](info_atom, const core::target& where) {
      return self->delegate(probe_for(self, where), info_atom::value, where);
    },
    [=](raknet_atom, const core::target& where, std::uint16_t port) {
      return self->delegate(probe_for(self, where), raknet_atom::value, where, port);
    },
    [=](offer_atom, const core::target& where, const std::string& network_id, bool probe) {
      return self->delegate(probe_for(self, where), offer_atom::value, where, network_id,
                            probe);
    },
    [=](join_atom, const core::target& where, const core::join_order& order) {
      return self->delegate(probe_for(self, where), join_atom::value, where, order);
    },
    [=](idle_atom, const probe_actor& handle, std::uint64_t seen) {
      auto& probes = self->state.probes;
      for (auto i = probes.begin(); i != probes.end(); ++i) {
        // Equal counts mean no request is on its way to the probe, so stopping it cannot
        // strand one; otherwise it stays and reports again later.
        if (i->second.handle == handle && i->second.forwarded == seen) {
          self->send(handle, stop_atom::value);
          probes.erase(i);
          break;
        }
      }
    },
    [=](count_atom) { return static_cast<std::uint64_t>(self->state.probes.size()); },
  };
}

} // namespace netherscope::actors
