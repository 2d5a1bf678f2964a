// The state every connection shares: the connection slots, the pending calls and the call sink.
#include "net/http/server_context.hpp"

#include <algorithm>

namespace netherscope::net::http {

slot_limits slot_limits_of(const server_settings& settings) {
  slot_limits limits;
  limits.max_total = settings.max_connections;
  limits.max_per_source = settings.max_connections_per_ip;
  limits.reserve = reserve_for(settings.max_connections, settings.connection_reserve_percent);
  limits.fair_share = settings.busy_connections_per_ip;
  return limits;
}

pending_calls::id pending_calls::add(std::function<void()> abandon) {
  std::lock_guard<std::mutex> guard{mutex_};
  auto call = next_++;
  calls_.emplace(call, std::move(abandon));
  return call;
}

void pending_calls::remove(id call) {
  std::lock_guard<std::mutex> guard{mutex_};
  calls_.erase(call);
}

std::size_t pending_calls::abandon_all() {
  std::unordered_map<id, std::function<void()>> taken;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    taken.swap(calls_);
  }
  // Outside the lock: answering a call renders its reply and may remove other entries.
  for (auto& [call, abandon] : taken)
    abandon();
  return taken.size();
}

server_context::server_context(server_settings settings, std::string openapi_json)
  : settings_(std::move(settings)), openapi_(std::move(openapi_json)),
    slots_(slot_limits_of(settings_)) {
  // nop
}

void server_context::set_call_sinks(std::vector<core::call_sink> sinks) {
  sinks_ = std::move(sinks);
}

connection_slots::admission server_context::admit(const boost::asio::ip::address& peer) {
  // A dual-stack listener reports IPv4 peers as mapped IPv6; the proxies are written as IPv4.
  auto addr = peer;
  if (peer.is_v6() && peer.to_v6().is_v4_mapped())
    addr = boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, peer.to_v6());
  bool exempt = std::any_of(settings_.trusted_proxies.begin(), settings_.trusted_proxies.end(),
                            [&](const base::cidr& proxy) { return contains(proxy, addr); });
  return slots_.admit(source_of(addr), exempt);
}

void server_context::submit(core::api_call&& call, std::size_t context) {
  // The sink only enqueues; the reply comes back through the call's callback, which hands it
  // to the session's io thread, so no Asio thread ever waits.
  if (context < sinks_.size() && sinks_[context])
    sinks_[context](std::move(call));
}

} // namespace netherscope::net::http
