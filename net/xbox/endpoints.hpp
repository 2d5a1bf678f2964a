// Where each host of the chain is reached. By default every request goes to the production
// host over HTTPS; `--xbox-endpoints FILE` names a base URL for some hosts instead, which is
// how the tests point the chain at the loopback fake (tools/fake_xbox):
//
//   {"login.live.com": "http://127.0.0.1:40123",
//    "device.auth.xboxlive.com": "http://127.0.0.1:40123", ...}
//
// Keys must be production hosts of the chain (a typo is refused, not silently ignored). A
// base URL is https:// to any host, or http:// only to a loopback address (127.0.0.0/8, ::1,
// localhost), since the chain sends refresh tokens and session tickets: plain HTTP is for
// loopback fakes. It may carry a path prefix, but no query, fragment or user information.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace netherscope::net::xbox {

/// The production hosts of the chain, in the order the chain reaches them.
inline constexpr std::array<std::string_view, 9> production_hosts = {
  "login.live.com",
  "device.auth.xboxlive.com",
  "sisu.xboxlive.com",
  "user.auth.xboxlive.com",
  "title.auth.xboxlive.com",
  "xsts.auth.xboxlive.com",
  "20ca2.playfabapi.com",
  "authorization.franchise.minecraft-services.net",
  "client.discovery.minecraft-services.net",
};

/// The hosts named by the production_hosts entries, for readability at call sites.
namespace hosts {
inline constexpr std::string_view login_live = production_hosts[0];
inline constexpr std::string_view device_auth = production_hosts[1];
inline constexpr std::string_view sisu = production_hosts[2];
inline constexpr std::string_view user_auth = production_hosts[3];
inline constexpr std::string_view title_auth = production_hosts[4];
inline constexpr std::string_view xsts = production_hosts[5];
inline constexpr std::string_view playfab = production_hosts[6];
inline constexpr std::string_view franchise_auth = production_hosts[7];
inline constexpr std::string_view discovery = production_hosts[8];
} // namespace hosts

/// The base URLs used instead of production hosts; empty means production everywhere.
struct endpoints {
  /// Production host → base URL without a trailing slash.
  std::map<std::string, std::string, std::less<>> bases;
};

/// Whether url may serve as a base URL of the chain: an absolute https:// URL, or http:// to a
/// loopback address or localhost, without query, fragment or user information. When not,
/// why says so in a sentence.
bool acceptable_base_url(std::string_view url, std::string& why);

/// Parses the endpoints file's JSON: an object whose keys are production hosts and whose
/// values are acceptable base URLs. nullopt with error set (naming the key) otherwise.
std::optional<endpoints> parse_endpoints(std::string_view json, std::string& error);

/// Reads and parses the file (at most 64 KiB); nullopt with error set, naming the file.
std::optional<endpoints> load_endpoints(const std::string& path, std::string& error);

/// The URL of path (which starts with "/") on host: the host's base URL from the map, or
/// "https://" + host. Hosts outside production_hosts go to production too.
std::string url_for(const endpoints& map, std::string_view host, std::string_view path);

/// Joins a base URL and a path with exactly one "/" between them.
std::string join_url(std::string_view base, std::string_view path);

} // namespace netherscope::net::xbox
