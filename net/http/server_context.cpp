// The state every connection shares: the per-address connection count and the call sink.
#include "net/http/server_context.hpp"

namespace netherscope::net {

server_context::server_context(server_settings settings, std::string openapi_json)
  : settings_(std::move(settings)), openapi_(std::move(openapi_json)) {
  // nop
}

void server_context::set_call_sink(call_sink sink) {
  sink_ = std::move(sink);
}

bool server_context::admit(const boost::asio::ip::address& addr) {
  for (auto& proxy : settings_.trusted_proxies)
    if (contains(proxy, addr))
      return true;
  std::lock_guard<std::mutex> guard{per_ip_mutex_};
  auto& held = per_ip_[addr];
  if (held >= settings_.max_connections_per_ip)
    return false;
  ++held;
  return true;
}

void server_context::release(const boost::asio::ip::address& addr) {
  for (auto& proxy : settings_.trusted_proxies)
    if (contains(proxy, addr))
      return;
  std::lock_guard<std::mutex> guard{per_ip_mutex_};
  auto i = per_ip_.find(addr);
  if (i != per_ip_.end() && --i->second == 0)
    per_ip_.erase(i);
}

void server_context::submit(api_call&& call) {
  // The sink only enqueues; the reply comes back through the call's callback, which posts
  // onto the session's strand, so no Asio thread ever waits.
  if (sink_)
    sink_(std::move(call));
}

} // namespace netherscope::net
