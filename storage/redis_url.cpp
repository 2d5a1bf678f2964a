#include "storage/redis_url.hpp"

#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>
#include <caf/sec.hpp>

namespace netherscope::storage {

std::optional<redis_address> read_redis_url(std::string_view url, std::string& problem) {
  auto refuse = [&](std::string why) -> std::optional<redis_address> {
    problem = std::move(why);
    return std::nullopt;
  };
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed)
    return refuse("--store is not a URL; expected redis://HOST:PORT[/DB]");
  auto& u = *parsed;
  if (u.scheme() != "redis" && u.scheme() != "rediss")
    return refuse("--store must be a redis:// or rediss:// URL");
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

caf::expected<redis_address> parse_redis_url(std::string_view url) {
  std::string problem;
  auto address = read_redis_url(url, problem);
  if (!address)
    return caf::make_error(caf::sec::invalid_argument, problem);
  return std::move(*address);
}

std::string redis_url_problem(std::string_view url) {
  std::string problem;
  read_redis_url(url, problem);
  return problem;
}

std::string redacted_store_url(std::string_view url) {
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
