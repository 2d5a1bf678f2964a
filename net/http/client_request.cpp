#include "net/http/client_request.hpp"

#include <algorithm>

#include "base/text.hpp"

namespace netherscope::net::http {

namespace {

using boost::asio::ip::address;

// IPv4-mapped peers (from a dual-stack listener) are IPv4 clients.
address unmap(const address& addr) {
  if (addr.is_v6() && addr.to_v6().is_v4_mapped())
    return boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, addr.to_v6());
  return addr;
}

bool is_trusted(const address& addr, const std::vector<base::cidr>& trusted) {
  return std::any_of(trusted.begin(), trusted.end(),
                     [&](const base::cidr& net) { return contains(net, addr); });
}

// Parses one X-Forwarded-For element: "1.2.3.4", "1.2.3.4:5678", "2001:db8::1" or
// "[2001:db8::1]:5678".
bool parse_hop(std::string_view text, address& out) {
  auto split = base::split_host_port(base::trim(text));
  if (!split || split->host.empty())
    return false;
  auto host = split->host;
  boost::system::error_code ec;
  out = boost::asio::ip::make_address(std::string{host}, ec);
  return !ec;
}

} // namespace

std::string quota_subject(const address& addr) {
  auto client = unmap(addr);
  if (client.is_v4())
    return client.to_string();
  auto bytes = client.to_v6().to_bytes();
  std::fill(bytes.begin() + 8, bytes.end(), 0);
  return boost::asio::ip::address_v6{bytes}.to_string() + "/64";
}

client_identity identify_client(const address& peer, std::string_view forwarded_for,
                                const std::vector<base::cidr>& trusted_proxies) {
  auto client = unmap(peer);
  if (!forwarded_for.empty() && is_trusted(client, trusted_proxies)) {
    // Walk from the right: each hop was appended by the proxy after it. Stop at the first
    // hop that is not a trusted proxy, or at a malformed one, which nobody vouches for.
    auto rest = forwarded_for;
    while (!rest.empty()) {
      auto comma = rest.rfind(',');
      auto item = comma == std::string_view::npos ? rest : rest.substr(comma + 1);
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(0, comma);
      address hop;
      if (!parse_hop(item, hop))
        break;
      client = unmap(hop);
      if (!is_trusted(client, trusted_proxies))
        break;
    }
  }
  return {client, quota_subject(client)};
}

} // namespace netherscope::net::http
