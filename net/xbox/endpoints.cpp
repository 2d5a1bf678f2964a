#include "net/xbox/endpoints.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>

#include <boost/asio/ip/address.hpp>
#include <boost/url/parse.hpp>

#include "base/json_access.hpp"
#include "base/text.hpp"
#include "net/xbox/read.hpp"

namespace netherscope::net::xbox {

namespace {

constexpr std::size_t max_endpoints_file_bytes = 64 * 1024;

bool is_production_host(std::string_view host) {
  return std::find(production_hosts.begin(), production_hosts.end(), host)
         != production_hosts.end();
}

// Whether a URL's host is loopback: an IPv4 literal in 127.0.0.0/8, [::1], or localhost
// (RFC 6761 §6.3 keeps localhost and the names under it on loopback).
bool loopback_host(const boost::urls::url_view& url) {
  switch (url.host_type()) {
    case boost::urls::host_type::ipv4:
      return url.host_ipv4_address().is_loopback();
    case boost::urls::host_type::ipv6:
      return url.host_ipv6_address().is_loopback();
    case boost::urls::host_type::name: {
      auto name = base::ascii_lower(url.encoded_host());
      while (!name.empty() && name.back() == '.')
        name.pop_back();
      return name == "localhost"
             || (name.size() > 10 && name.compare(name.size() - 10, 10, ".localhost") == 0);
    }
    default:
      return false;
  }
}

} // namespace

bool acceptable_base_url(std::string_view text, std::string& why) {
  auto url = boost::urls::parse_absolute_uri(text);
  if (!url) {
    why = "is not an absolute URL";
    return false;
  }
  bool https = url->scheme_id() == boost::urls::scheme::https;
  bool http = url->scheme_id() == boost::urls::scheme::http;
  if (!https && !http) {
    why = "must start with https:// (or http:// for a loopback fake)";
    return false;
  }
  if (url->encoded_host().empty()) {
    why = "names no host";
    return false;
  }
  if (url->has_userinfo() || url->has_query() || url->has_fragment()) {
    why = "must not carry user information, a query or a fragment";
    return false;
  }
  if (http && !loopback_host(*url)) {
    why = "uses plain http:// to a host that is not loopback; the chain sends tokens, so "
          "plain HTTP is only for fakes on 127.0.0.0/8, ::1 or localhost";
    return false;
  }
  return true;
}

std::optional<endpoints> parse_endpoints(std::string_view json, std::string& error) {
  auto object = base::parse_object(json);
  if (!object) {
    error = "the Xbox endpoints are not a JSON object";
    return std::nullopt;
  }
  endpoints map;
  for (const auto& member : *object) {
    std::string host{member.key()};
    if (!is_production_host(host)) {
      std::string known;
      for (auto h : production_hosts)
        known += (known.empty() ? "" : ", ") + std::string{h};
      error = "the Xbox endpoints name \"" + shown(host)
              + "\", which is no host of the chain (" + known + ")";
      return std::nullopt;
    }
    const auto* value = member.value().if_string();
    std::string why;
    if (value == nullptr) {
      error = "the Xbox endpoint for " + host + " is not a string";
      return std::nullopt;
    }
    if (!acceptable_base_url(base::view(*value), why)) {
      error = "the Xbox endpoint for " + host + " " + why;
      return std::nullopt;
    }
    std::string base{base::view(*value)};
    while (!base.empty() && base.back() == '/')
      base.pop_back();
    map.bases[host] = std::move(base);
  }
  return map;
}

std::optional<endpoints> load_endpoints(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read the Xbox endpoints file " + path;
    return std::nullopt;
  }
  std::string text;
  text.resize(max_endpoints_file_bytes + 1);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > max_endpoints_file_bytes) {
    error = "the Xbox endpoints file " + path + " is larger than 64 KiB";
    return std::nullopt;
  }
  auto map = parse_endpoints(text, error);
  if (!map)
    error += " (in " + path + ")";
  return map;
}

std::string join_url(std::string_view base, std::string_view path) {
  std::string out{base};
  while (!out.empty() && out.back() == '/')
    out.pop_back();
  if (path.empty() || path.front() != '/')
    out += '/';
  out += path;
  return out;
}

std::string url_for(const endpoints& map, std::string_view host, std::string_view path) {
  auto it = map.bases.find(host);
  if (it != map.bases.end())
    return join_url(it->second, path);
  return join_url("https://" + std::string{host}, path);
}

} // namespace netherscope::net::xbox
