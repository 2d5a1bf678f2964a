#include "core/webhook_url.hpp"

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

#include "core/host_port.hpp"

namespace netherscope::core {

namespace {

webhook_url_check refuse(std::string sentence) {
  webhook_url_check check;
  check.error = std::move(sentence);
  return check;
}

/// Whether a normalized host is a loopback address: 127.0.0.0/8 or ::1 (IPv4-mapped forms
/// are normalized to IPv4), or localhost and the names under it, which RFC 6761 §6.3 keeps on
/// loopback and the resolver answers so (net/upstream/dns).
bool is_loopback(const std::string& host) {
  if (is_ip_literal(host))
    return host == "::1" || host.rfind("127.", 0) == 0;
  return host == "localhost"
         || (host.size() > 10 && host.compare(host.size() - 10, 10, ".localhost") == 0);
}

} // namespace

webhook_url_check check_webhook_url(std::string_view url, bool allow_loopback) {
  if (url.empty())
    return refuse("url is empty");
  if (url.size() > longest_webhook_url)
    return refuse("url is longer than " + std::to_string(longest_webhook_url) + " characters");
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed)
    return refuse("url is not an absolute URL");
  auto u = *parsed;
  auto scheme = u.scheme_id();
  if (scheme != boost::urls::scheme::https && scheme != boost::urls::scheme::http)
    return refuse("url must use https");
  if (!u.has_authority() || u.host_type() == boost::urls::host_type::none
      || u.encoded_host().empty())
    return refuse("url has no host");
  if (u.has_userinfo())
    return refuse("url must not hold a user name or password");
  if (u.has_fragment())
    return refuse("url must not have a fragment");
  if (u.host_type() == boost::urls::host_type::ipvfuture
      || u.encoded_host().find('%') != boost::urls::string_view::npos)
    return refuse("url host must be a DNS name or an IP address");

  std::string error;
  auto address = u.encoded_host_address();
  auto host = normalize_host(std::string_view{address.data(), address.size()}, error);
  if (!host)
    return refuse("url host is not valid: " + error);

  webhook_target target;
  target.tls = scheme == boost::urls::scheme::https;
  target.host = std::move(*host);
  target.port = target.tls ? 443 : 80;
  if (u.has_port()) {
    auto port = parse_port_text(std::string_view{u.port().data(), u.port().size()}, error);
    if (!port)
      return refuse("url port is not valid: " + error);
    target.port = *port;
  }
  if (!target.tls && !(allow_loopback && is_loopback(target.host)))
    return refuse("url must use https");

  auto path = u.encoded_path();
  target.target = path.empty() ? "/" : std::string{path.data(), path.size()};
  if (u.has_query()) {
    auto query = u.encoded_query();
    target.target += "?" + std::string{query.data(), query.size()};
  }
  webhook_url_check check;
  check.target = std::move(target);
  return check;
}

} // namespace netherscope::core
