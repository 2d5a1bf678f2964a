#include "net/http/signin.hpp"

#include <boost/beast/http/field.hpp>
#include <boost/url/params_view.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/parse_query.hpp>

#include "core/signin_times.hpp"
#include "base/text.hpp"

namespace netherscope::net::http {

namespace beast = boost::beast;

namespace {

// The cookies' common attributes. HttpOnly: no script reads them. SameSite=Lax: the browser
// still sends them on the top-level GET back from the provider, but not on cross-site POSTs.
// Path=/ because __Host- requires it (and both names keep the same attributes).
std::string cookie(std::string_view name, std::string_view value, std::int64_t max_age,
                   bool secure) {
  std::string out{name};
  out += "=";
  out += value;
  out += "; Path=/; HttpOnly; SameSite=Lax; Max-Age=";
  out += std::to_string(max_age);
  if (secure)
    out += "; Secure";
  return out;
}

} // namespace

cookie_names signin_cookie_names(bool secure) {
  if (secure)
    return {"__Host-ns_signin", "__Host-ns_session"};
  return {"ns_signin", "ns_session"};
}

cookie_lookup find_cookie(const beast::http::fields& headers, std::string_view name) {
  cookie_lookup found;
  auto [first, last] = headers.equal_range(beast::http::field::cookie);
  for (auto header = first; header != last; ++header) {
    for (auto item : base::split(header->value(), ';')) {
      item = base::trim(item);
      auto eq = item.find('=');
      if (eq == std::string_view::npos || item.substr(0, eq) != name)
        continue;
      if (found.found) {
        found.ambiguous = true;
        found.value.clear();
        return found;
      }
      found.found = true;
      found.value = std::string{item.substr(eq + 1)};
    }
  }
  return found;
}

std::string binding_cookie(std::string_view value, bool secure) {
  return cookie(signin_cookie_names(secure).binding, value, core::signin_state_lifetime_seconds,
                secure);
}

std::string session_cookie(std::string_view value, bool secure) {
  return cookie(signin_cookie_names(secure).session, value, core::session_lifetime_seconds, secure);
}

std::string cleared_cookie(std::string_view name, bool secure) {
  return cookie(name, "", 0, secure);
}

std::string origin_of(std::string_view text) {
  auto url = boost::urls::parse_absolute_uri(text);
  if (!url || !url->has_authority() || url->encoded_host().empty())
    return {};
  auto scheme = base::ascii_lower(url->scheme());
  if (scheme != "https" && scheme != "http")
    return {};
  std::string origin = scheme + "://" + base::ascii_lower(url->encoded_host());
  auto default_port = scheme == "https" ? 443 : 80;
  if (url->has_port() && !url->port().empty() && url->port_number() != default_port)
    origin += ":" + std::to_string(url->port_number());
  return origin;
}

bool same_origin_post(const beast::http::fields& headers, std::string_view public_origin) {
  auto fetch_site = headers.find("Sec-Fetch-Site");
  auto vouched = fetch_site != headers.end() && base::iequals(fetch_site->value(), "same-origin");
  if (fetch_site != headers.end() && !vouched)
    return false;
  auto [first, last] = headers.equal_range(beast::http::field::origin);
  if (first == last)
    return vouched;
  if (std::next(first) != last)
    return false;
  auto origin = base::trim(first->value());
  if (origin == "null")
    return vouched;
  return !public_origin.empty() && origin_of(origin) == public_origin;
}

std::optional<std::string> form_field(std::string_view body, std::string_view name) {
  if (!boost::urls::parse_query(body))
    return std::nullopt;
  // Forms encode a space as '+', which this reads back as a space.
  boost::urls::params_view params{body, boost::urls::encoding_opts{true}};
  std::optional<std::string> value;
  for (auto param : params) {
    if (param.key != name)
      continue;
    if (value)
      return std::nullopt;
    value = std::string{param.value};
  }
  return value;
}

} // namespace netherscope::net::http
