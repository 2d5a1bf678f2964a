#include "storage/redis_url.hpp"

#include <optional>
#include <string>

#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

#include "base/text.hpp"

namespace netherscope::storage {

namespace {

constexpr std::string_view sentinel_scheme = "redis+sentinel://";
constexpr std::string_view sentinel_tls_scheme = "rediss+sentinel://";
/// The most sentinels one URL may name; deployments run three or five.
constexpr std::size_t max_sentinels = 16;

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

/// A port of one to five digits, 1 to 65535; nullopt otherwise.
std::optional<std::uint16_t> port_of(std::string_view digits) {
  if (digits.empty() || digits.size() > 5
      || digits.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  auto value = std::stoul(std::string{digits});
  if (value == 0 || value > 65535)
    return std::nullopt;
  return static_cast<std::uint16_t>(value);
}

/// HOST[:PORT] or [IPv6][:PORT], the port 26379 when not written.
std::optional<redis_endpoint> sentinel_endpoint(std::string_view text) {
  auto split = base::split_host_port(text);
  // A URL's authority writes an IPv6 address in brackets only.
  if (!split || (!split->bracketed && split->host.find(':') != std::string_view::npos))
    return std::nullopt;
  redis_endpoint e;
  e.port = 26379;
  e.host = std::string{split->host};
  if (e.host.empty() || e.host.find_first_of("/?#@[] ") != std::string::npos)
    return std::nullopt;
  if (split->has_port) {
    auto port = port_of(split->port);
    if (!port)
      return std::nullopt;
    e.port = *port;
  }
  return e;
}

/// redis+sentinel://[[USER]:PASSWORD@]HOST1[:PORT1][,...]/MASTER_NAME[/DB][?ssl_ca_certs=PATH]:
/// the hosts are split here (a URL parser takes one), and the rest is read as the redis://
/// URL it stands for, so credentials, the database and the query follow the same rules.
std::optional<redis_address> read_sentinel_url(std::string_view url, std::string& problem) {
  auto refuse = [&](std::string why) -> std::optional<redis_address> {
    problem = std::move(why);
    return std::nullopt;
  };
  bool tls = starts_with(url, sentinel_tls_scheme);
  auto rest = url.substr(tls ? sentinel_tls_scheme.size() : sentinel_scheme.size());
  auto slash = rest.find('/');
  if (slash == std::string_view::npos)
    return refuse("--store under Sentinel names the master: "
                  "redis+sentinel://HOST:PORT[,HOST:PORT...]/MASTER_NAME[/DB]");
  auto authority = rest.substr(0, slash);
  auto after = rest.substr(slash + 1);
  auto at = authority.rfind('@');
  auto userinfo = at == std::string_view::npos ? std::string_view{} : authority.substr(0, at + 1);
  auto hosts = at == std::string_view::npos ? authority : authority.substr(at + 1);
  redis_address out;
  for (std::size_t start = 0; start <= hosts.size();) {
    auto comma = hosts.find(',', start);
    auto one = hosts.substr(start, comma == std::string_view::npos ? std::string_view::npos
                                                                    : comma - start);
    auto endpoint = sentinel_endpoint(one);
    if (!endpoint)
      return refuse("--store's sentinel '" + std::string{one}
                    + "' is not HOST[:PORT] (the port 26379 when not written)");
    out.sentinels.push_back(std::move(*endpoint));
    if (out.sentinels.size() > max_sentinels)
      return refuse("--store names more than 16 sentinels");
    if (comma == std::string_view::npos)
      break;
    start = comma + 1;
  }
  auto name_end = after.find_first_of("/?#");
  out.master_name = std::string{after.substr(0, name_end)};
  if (out.master_name.empty()
      || out.master_name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789._-")
           != std::string::npos)
    return refuse("--store's master name must be letters, digits, '.', '_' or '-', as the "
                  "sentinels' `sentinel monitor NAME ...` has it");
  // The rest, as the redis:// URL of a placeholder host, for credentials, database and query.
  auto tail = name_end == std::string_view::npos ? std::string_view{} : after.substr(name_end);
  auto stand_in = std::string{tls ? "rediss://" : "redis://"} + std::string{userinfo} + "sentinel"
                  + std::string{tail};
  std::string inner_problem;
  auto inner = read_redis_url(stand_in, inner_problem);
  if (!inner)
    return refuse(inner_problem);
  out.db = inner->db;
  out.user = std::move(inner->user);
  out.password = std::move(inner->password);
  out.tls = inner->tls;
  out.ca_file = std::move(inner->ca_file);
  out.host.clear();
  out.port = 0;
  return out;
}

} // namespace

std::optional<redis_address> read_redis_url(std::string_view url, std::string& problem) {
  auto refuse = [&](std::string why) -> std::optional<redis_address> {
    problem = std::move(why);
    return std::nullopt;
  };
  if (starts_with(url, sentinel_scheme) || starts_with(url, sentinel_tls_scheme))
    return read_sentinel_url(url, problem);
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed)
    return refuse("--store is not a URL; expected redis://HOST:PORT[/DB]");
  auto& u = *parsed;
  if (u.scheme() != "redis" && u.scheme() != "rediss")
    return refuse("--store must be a redis://, rediss://, redis+sentinel:// or "
                  "rediss+sentinel:// URL");
  redis_address out;
  out.tls = u.scheme() == "rediss";
  out.host = u.host_address();
  if (out.host.empty())
    return refuse("--store names no host");
  if (u.has_port()) {
    auto port = u.port_number();
    if (port == 0)
      return refuse("--store has an invalid port");
    out.port = port;
  }
  auto path = u.path();
  if (!path.empty() && path != "/") {
    auto digits = std::string_view{path}.substr(1);
    if (digits.empty() || digits.size() > 4
        || digits.find_first_not_of("0123456789") != std::string_view::npos)
      return refuse("--store's path must be a database number, as in redis://host/2");
    out.db = static_cast<unsigned>(std::stoul(std::string{digits}));
  }
  if (u.has_userinfo()) {
    out.user = u.user();
    if (u.has_password())
      out.password = u.password();
    if (!out.user.empty() && out.password.empty())
      return refuse("--store names a user but no password: write redis://USER:PASSWORD@host, "
                    "or redis://:PASSWORD@host for the default user");
  }
  if (u.has_fragment())
    return refuse("--store takes no fragment");
  // rediss:// may name the CAs to trust, as redis-py's URLs do; nothing else is read.
  for (auto param : u.params()) {
    if (!out.tls || param.key != "ssl_ca_certs" || !param.has_value || param.value.empty()
        || !out.ca_file.empty())
      return refuse("--store takes no query but ?ssl_ca_certs=PATH, once, on rediss://");
    out.ca_file = param.value;
  }
  if (u.has_query() && u.params().empty())
    return refuse("--store takes no query but ?ssl_ca_certs=PATH, once, on rediss://");
  return out;
}

std::string redis_url_problem(std::string_view url) {
  std::string problem;
  read_redis_url(url, problem);
  return problem;
}

std::string redacted_store_url(std::string_view url) {
  if (starts_with(url, sentinel_scheme) || starts_with(url, sentinel_tls_scheme)) {
    // The sentinels' list is no authority a URL parser reads: the credentials are cut by hand.
    auto begin = url.find("://") + 3;
    auto slash = url.find('/', begin);
    auto at = url.substr(0, slash).rfind('@');
    if (at == std::string_view::npos || at < begin)
      return std::string{url};
    return std::string{url.substr(0, begin)} + "REDACTED:REDACTED" + std::string{url.substr(at)};
  }
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed)
    return std::string{url};
  boost::urls::url copy{*parsed};
  if (copy.has_password())
    copy.set_password("REDACTED");
  if (!copy.user().empty())
    copy.set_user("REDACTED");
  return std::string{copy.buffer()};
}

} // namespace netherscope::storage
