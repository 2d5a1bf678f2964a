#include "net/http/access_log.hpp"

#include <charconv>
#include <chrono>
#include <cstdio>

#include <boost/json/parse.hpp>

#include "base/crypto.hpp"
#include "base/text.hpp"

namespace netherscope::net::http {

bool is_probe_route(std::string_view route) {
  return route == "/healthz" || route == "/readyz" || route == "/metrics";
}

std::string error_code_of(std::string_view body) {
  // Error bodies are small (at most a few KB); a success body is never parsed, because the
  // caller asks only for responses with an error status.
  boost::system::error_code ec;
  auto value = boost::json::parse(body, ec);
  if (ec || !value.is_object())
    return {};
  auto* code = value.as_object().if_contains("code");
  if (code == nullptr || !code->is_string())
    return {};
  return std::string{code->as_string()};
}

request_ids::request_ids() {
  // Six random bytes: collisions between processes are negligible at the number of
  // replicas and restarts a service sees.
  auto bytes = base::random_bytes(6);
  if (!bytes) {
    auto now = std::chrono::system_clock::now().time_since_epoch().count();
    bytes = std::string(reinterpret_cast<const char*>(&now), 6);
  }
  prefix_ = base::hex_lower(*bytes);
}

std::string request_ids::next() {
  auto n = counter_.fetch_add(1, std::memory_order_relaxed) + 1;
  // std::to_chars, not snprintf: this runs for every request, and the profile of the cached
  // offer path showed printf's machinery in it.
  char counter[16];
  auto end = std::to_chars(counter, counter + sizeof counter, n, 16).ptr;
  std::string id;
  id.reserve(prefix_.size() + 1 + static_cast<std::size_t>(end - counter));
  id.append(prefix_).append(1, '-').append(counter, end);
  return id;
}

} // namespace netherscope::net::http
