#include "app/options.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

#include <boost/asio/ip/address.hpp>
#include <boost/program_options.hpp>

#include "base/sealed.hpp"
#include "net/xbox/endpoints.hpp"
#include "storage/redis_url.hpp"

namespace netherscope::app {

namespace upstream = net::upstream;

namespace po = boost::program_options;

namespace {

constexpr std::string_view env_prefix = "NETHERSCOPE_";

/// The most replicas a write may wait for: more than any deployment runs, and a typo's
/// thousand would make every write fail.
constexpr unsigned max_min_replicas = 16;

// The option table. Each entry is documented where it is declared, and --help prints these
// texts with their defaults, so this is the reference for every setting.
po::options_description make_description() {
  config d;
  po::options_description desc("netherscope options (flag, NETHERSCOPE_<NAME> or config file)");
  desc.add_options()
    ("help", "print this help and exit")
    ("version", "print the version and exit")
    ("config", po::value<std::string>(),
     "config file of 'name = value' lines, using the option names below")
    ("listen", po::value<std::string>()->default_value(d.listen_address),
     "address to listen on")
    ("port", po::value<unsigned>()->default_value(d.port),
     "port to listen on; 0 lets the OS choose (see the 'listening' log line)")
    ("data-dir", po::value<std::string>()->default_value(d.data_dir),
     "directory for the service's data; created if missing")
    ("threads", po::value<unsigned>()->default_value(d.io_threads),
     "threads serving callers' HTTP connections (one more runs the connections the service opens)")
    ("actor-threads", po::value<unsigned>()->default_value(d.actor_threads),
     "threads running the actors")
    ("actor-scheduler", po::value<std::string>()->default_value(d.actor_scheduler),
     "sharing (wakes idle workers at once) or stealing (idle workers poll and nap)")
    ("read-timeout-ms", po::value<unsigned>()->default_value(d.read_timeout.count()),
     "idle keep-alive and request read timeout")
    ("pipeline-limit", po::value<unsigned>()->default_value(d.pipeline_limit),
     "requests read ahead of their responses on one connection")
    ("max-connections", po::value<unsigned>()->default_value(d.max_connections),
     "connections served at once; past it new ones get 503")
    ("max-connections-per-ip", po::value<unsigned>()->default_value(d.max_connections_per_ip),
     "connections one client (IPv4 address or IPv6 /64) may hold; trusted proxies are exempt")
    ("connection-reserve-percent",
     po::value<unsigned>()->default_value(d.connection_reserve_percent),
     "share of --max-connections kept for clients holding few: once the rest is in use, a "
     "client holding --busy-connections-per-ip or more is refused")
    ("busy-connections-per-ip", po::value<unsigned>()->default_value(d.busy_connections_per_ip),
     "connections one client may hold while the reserve is in use")
    ("shutdown-drain-ms", po::value<unsigned>()->default_value(d.shutdown_drain.count()),
     "after SIGTERM, time /readyz answers 503 while every call is still served, so a load "
     "balancer stops sending before the socket closes (SIGINT skips it)")
    ("shutdown-grace-ms", po::value<unsigned>()->default_value(d.shutdown_grace.count()),
     "time in-flight requests get to finish after SIGTERM/SIGINT; those left are answered 503")
    ("connect-timeout-ms", po::value<unsigned>()->default_value(d.connect_timeout.count()),
     "deadline to resolve and connect to a target, TLS handshake included")
    ("status-timeout-ms", po::value<unsigned>()->default_value(d.status_timeout.count()),
     "total deadline for a target's GET /v1/join")
    ("answer-timeout-ms", po::value<unsigned>()->default_value(d.answer_timeout.count()),
     "total deadline for a target's answer to an offer")
    ("tls-detect-timeout-ms", po::value<unsigned>()->default_value(d.tls_detect_timeout.count()),
     "when detecting TLS on a target nothing is remembered about: how long the handshake may "
     "take before plain HTTP is tried (at most the connect deadline)")
    ("scheme-memory-s", po::value<unsigned>()->default_value(d.scheme_memory.count()),
     "how long the scheme a target answered with (HTTPS or HTTP) is remembered, so later "
     "auto-detected calls skip the detection; 0 turns it off")
    ("allow-cidr", po::value<std::vector<std::string>>()->multitoken(),
     "target networks to allow although the default policy refuses them (comma-separated or repeated)")
    ("deny-cidr", po::value<std::vector<std::string>>()->multitoken(),
     "target networks to refuse always (comma-separated or repeated)")
    ("allow-loopback", po::value<bool>()->default_value(false)->implicit_value(true),
     "allow loopback targets (127.0.0.0/8, ::1), for tests and local use")
    ("upstream-ca-file", po::value<std::string>()->default_value(""),
     "PEM file of CAs trusted for HTTPS targets besides the system store")
    ("secrets-key-file", po::value<std::string>()->default_value(""),
     "file holding the key that seals the linked Xbox account and the webhooks' secrets (32 "
     "random bytes in base64); default on LMDB: DATA_DIR/secrets.key, made on the first "
     "start; on Redis it must be given, the same file to every replica")
    ("xbox-endpoints", po::value<std::string>()->default_value(""),
     "JSON file mapping the Xbox sign-in chain's hosts to other base URLs (tests)")
    ("user-agent", po::value<std::string>()->default_value(d.user_agent),
     "User-Agent sent to targets (the vanilla client's, which some servers require)")
    ("dns-servers", po::value<std::string>()->default_value(""),
     "name servers for target lookups, comma-separated ip, ip:port or [ipv6]:port; "
     "empty: those in /etc/resolv.conf (the hosts file is read first either way)")
    ("dns-timeout-ms", po::value<unsigned>()->default_value(d.dns_timeout.count()),
     "time a name server has to answer before the query is sent again (doubled on each "
     "later round over the servers); the connect deadline also bounds a lookup")
    ("dns-tries", po::value<unsigned>()->default_value(d.dns_tries),
     "queries per name server before a lookup fails")
    ("resolver-threads", po::value<unsigned>(),
     "deprecated and ignored: name lookups no longer use threads of their own")
    ("join-timeout-ms", po::value<unsigned>()->default_value(d.join_timeout.count()),
     "deadline of a join after its answer: ICE, DTLS, SCTP, the channels and the game's answer")
    ("join-concurrency", po::value<unsigned>()->default_value(d.join_concurrency),
     "joins running at once (a worker process each); past it a join is answered 503")
    ("join-worker", po::value<std::string>()->default_value(d.join_worker),
     "the join worker's executable (default: netherscope-join beside this program)")
    ("probe-idle-ms", po::value<unsigned>()->default_value(d.probe_idle.count()),
     "how long a target's probe actor lives without work")
    ("offers-per-target-per-minute",
     po::value<unsigned>()->default_value(d.offers_per_target_per_minute),
     "fresh upstream offers per target per minute across all callers")
    ("cache-max-entries", po::value<unsigned>()->default_value(d.cache_max_entries),
     "offer results kept in memory at most")
    ("cache-max-mb", po::value<unsigned>()->default_value(d.cache_max_bytes >> 20),
     "memory the offer cache may use, in MiB")
    ("store-map-size-mb", po::value<unsigned>()->default_value(d.store_map_size >> 20),
     "the largest the LMDB data file may grow, in MiB")
    ("store", po::value<std::string>()->default_value(""),
     "shared store for replicas: redis://[[USER]:PASSWORD@]HOST[:PORT][/DB], or rediss:// for TLS "
     "(?ssl_ca_certs=PEM to name its CAs), or under Sentinel "
     "redis+sentinel://[[USER]:PASSWORD@]HOST1:PORT1[,HOST2:PORT2...]/MASTER_NAME[/DB] "
     "(rediss+sentinel:// for TLS); empty: LMDB under --data-dir")
    ("store-min-replicas", po::value<unsigned>(),
     "Redis replicas that must acknowledge each charge and each account, key, watch or "
     "webhook change (WAIT) before its reply; fewer within 500 ms answer 503 (default: 1 "
     "under Sentinel, 0 for one Redis)")
    ("store-sync", po::value<bool>()->default_value(true)->implicit_value(true),
     "fsync each commit: charges survive power loss; false: they survive a crash of the "
     "process but not of the machine")
    ("limit-info-ip", po::value<std::uint64_t>()->default_value(d.limit_info_ip),
     "monthly /api/info calls per client IP (IPv6: per /64)")
    ("limit-info-key", po::value<std::uint64_t>()->default_value(d.limit_info_key),
     "monthly /api/info calls per API key")
    ("limit-offer-ip", po::value<std::uint64_t>()->default_value(d.limit_offer_ip),
     "monthly /api/offer calls per client IP (IPv6: per /64)")
    ("limit-offer-key", po::value<std::uint64_t>()->default_value(d.limit_offer_key),
     "monthly /api/offer calls per API key")
    ("limit-signin-per-hour", po::value<std::uint64_t>()->default_value(d.limit_signin_per_hour),
     "sign-in callbacks per client IP (IPv6: per /64) and hour")
    ("quota-reserve", po::value<std::uint64_t>()->default_value(d.quota_reserve),
     "calls counted ahead for a busy caller, at most 1/64 of its limit, answered without "
     "waiting for the disk; a crash can cost a caller these, never give any back; 0: count "
     "each call on its own")
    ("limit-key-rotations-per-hour",
     po::value<std::uint64_t>()->default_value(d.limit_key_rotations_per_hour),
     "new API keys per account and hour (API and account page together)")
    ("watch-min-period", po::value<unsigned>()->default_value(d.watch_min_period),
     "the shortest period, in seconds, a watch may be checked on (the longest is 86400)")
    ("watch-max-per-account", po::value<unsigned>()->default_value(d.watch_max_per_account),
     "watches one account may hold")
    ("webhook-retry-for", po::value<unsigned>()->default_value(d.webhook_retry_for),
     "seconds after its first try a failed webhook delivery may still be retried (after 5, "
     "15, 45, 135 s, then every 300 s); then the webhook is marked failing; 0: no retries")
    ("public-base-url", po::value<std::string>()->default_value(d.public_base_url),
     "our address as browsers see it (the sign-in callback is below it; https, in any "
     "letter case, makes cookies Secure and __Host- named)")
    ("github-client-id", po::value<std::string>()->default_value(""),
     "OAuth app client id; sign-in is off without it and NETHERSCOPE_GITHUB_CLIENT_SECRET")
    ("github-authorize-url", po::value<std::string>()->default_value(d.github_authorize_url),
     "the provider's authorize URL")
    ("github-token-url", po::value<std::string>()->default_value(d.github_token_url),
     "the provider's code-for-token URL")
    ("github-api-url", po::value<std::string>()->default_value(d.github_api_url),
     "the provider's API base URL (GET /user)")
    ("trusted-proxy", po::value<std::vector<std::string>>()->multitoken(),
     "peers (CIDRs) whose X-Forwarded-For is believed (comma-separated or repeated)")
    ("log-level", po::value<std::string>()->default_value("info"),
     "debug, info, warn or error")
    ("access-log", po::value<bool>()->default_value(true)->implicit_value(true),
     "write one JSON line per request, with its error code and request id")
    ("access-log-probes", po::value<bool>()->default_value(false)->implicit_value(true),
     "also log /healthz, /readyz and /metrics (probes and scrapers call them every few "
     "seconds; their counts are in /metrics either way)");
  return desc;
}

// Options only the environment may set: a secret given as a flag shows in `ps`, and one in a
// config file tends to be committed along with it.
po::options_description make_environment_only() {
  po::options_description desc;
  desc.add_options()
    ("github-client-secret", po::value<std::string>(), "the OAuth app's client secret");
  return desc;
}

// Splits list options on commas, so both "a,b" and repeated flags work.
bool parse_cidr_list(const po::variables_map& vm, const char* name,
                     std::vector<base::cidr>& out, std::string& error) {
  if (!vm.count(name))
    return true;
  for (auto& item : vm[name].as<std::vector<std::string>>()) {
    std::stringstream parts{item};
    std::string part;
    while (std::getline(parts, part, ',')) {
      if (part.empty())
        continue;
      auto parsed = base::parse_cidr(part);
      if (!parsed) {
        error = std::string{"--"} + name + ": '" + part + "' is not a CIDR such as 10.0.0.0/8";
        return false;
      }
      out.push_back(*parsed);
    }
  }
  return true;
}

/// Boost converts "-1" to an unsigned type by wrapping it to the largest value, which would
/// turn a quota of -1 into "unlimited": a count or limit given with a minus sign is refused.
/// Returns the message for the first such value, or empty.
std::string negative_count(const po::parsed_options& parsed,
                           const po::options_description& desc) {
  for (const auto& option : parsed.options) {
    const auto* known = desc.find_nothrow(option.string_key, false);
    if (!known || option.value.empty())
      continue;
    auto semantic = known->semantic();
    const auto* typed = dynamic_cast<const po::typed_value_base*>(semantic.get());
    if (!typed)
      continue;
    const auto& type = typed->value_type();
    bool is_unsigned = type == typeid(unsigned) || type == typeid(unsigned long)
                       || type == typeid(unsigned long long) || type == typeid(unsigned short);
    for (const auto& text : option.value)
      if (is_unsigned && text.find_first_not_of(" \t") != std::string::npos
          && text[text.find_first_not_of(" \t")] == '-')
        return "--" + option.string_key + " must not be negative (got '" + text + "')";
  }
  return {};
}

// The number of single-letter edits (insert, delete, substitute) between a and b. Written here
// because neither Boost nor the standard library has an edit distance; option names are
// short, so the quadratic table costs nothing.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

bool in_range(const po::variables_map& vm, const char* name, unsigned lo, unsigned hi,
              std::string& error) {
  auto value = vm[name].as<unsigned>();
  if (value < lo || value > hi) {
    error = std::string{"--"} + name + " must be between " + std::to_string(lo) + " and "
            + std::to_string(hi);
    return false;
  }
  return true;
}

// The option whose name is nearest to wanted, if one is near enough to be the one meant.
std::string nearest_option(std::string_view wanted, const po::options_description& known) {
  // Two edits catch a doubled, dropped or swapped letter; more would suggest unrelated
  // options for short names.
  constexpr std::size_t most_edits = 2;
  std::string best;
  std::size_t best_distance = most_edits + 1;
  if (wanted.empty())
    return best;
  for (const auto& option : known.options()) {
    const auto& name = option->long_name();
    if (name == "help" || name == "version")
      continue;
    auto distance = edit_distance(wanted, name);
    if (distance < best_distance) {
      best_distance = distance;
      best = name;
    }
  }
  return best;
}

// The error for a NETHERSCOPE_ variable naming no option, with the nearest variable that does
// when it is a slip of a letter or two away.
std::string unknown_variable_message(const std::string& variable,
                                     const po::options_description& known) {
  auto message = "unknown environment variable " + variable + ": it names no option";
  auto wanted = option_for_variable(variable).value_or("");
  if (auto near = nearest_option(wanted, known); !near.empty())
    message += " (did you mean " + variable_for_option(near) + "?)";
  return message;
}

} // namespace

int exact_command_line_style() {
  return po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
}

std::string version_text() {
  return std::string{"netherscope "} + NETHERSCOPE_VERSION + "\n";
}

std::string variable_for_option(std::string_view option) {
  std::string name{env_prefix};
  for (auto c : option)
    name += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

parse_result parse_options(int argc, const char* const* argv) {
  parse_result result;
  auto desc = make_description();
  po::options_description env_desc;
  env_desc.add(desc).add(make_environment_only());
  // A NETHERSCOPE_ variable that names no option is refused, not skipped: a misspelt
  // NETHERSCOPE_DENY_CIRD would otherwise leave the address policy open without a word.
  std::vector<std::string> unknown_variables;
  auto variable_to_option = [&](const std::string& variable) -> std::string {
    auto name = option_for_variable(variable);
    if (!name)
      return {};
    if (name->empty() || *name == "help" || env_desc.find_nothrow(*name, false) == nullptr) {
      unknown_variables.push_back(variable);
      return {};
    }
    return *name;
  };
  po::variables_map vm;
  auto fail = [&](std::string message) {
    result.status = parse_status::exit_error;
    result.message = std::move(message);
    return result;
  };
  try {
    // The first source stored wins, so the order is: flags, environment, config file.
    // Names must match exactly: Boost's default style takes any unambiguous prefix, so a
    // later option sharing a prefix with an old one would silently change what a deployed
    // flag means (--store would have been read as --store-sync, or refused as ambiguous).
    auto from_flags = po::command_line_parser(argc, argv)
                        .options(desc)
                        .style(exact_command_line_style())
                        .run();
    auto from_env = po::parse_environment(env_desc, variable_to_option);
    for (auto* parsed : {&from_flags, &from_env})
      if (auto bad = negative_count(*parsed, desc); !bad.empty())
        return fail(bad);
    po::store(from_flags, vm);
    po::store(from_env, vm);
    if (vm.count("help")) {
      std::ostringstream text;
      // The admin CLI shares the binary; without this line nothing tells an operator it exists.
      text << "usage: netherscope [options]\n"
              "       netherscope admin [--data-dir DIR | --store URL] COMMAND   accounts, keys and "
              "usage in "
              "the store;\n"
              "         COMMAND: create-account --login NAME, accounts, usage [YYYY-MM],\n"
              "         issue-key LOGIN|ID, revoke-key LOGIN|ID, prune-usage YYYY-MM, prune;\n"
              "         see netherscope admin --help\n\n"
           << desc;
      result.status = parse_status::exit_ok;
      result.message = text.str();
      return result;
    }
    if (vm.count("version")) {
      result.status = parse_status::exit_ok;
      result.message = version_text();
      return result;
    }
    if (!unknown_variables.empty())
      return fail(unknown_variable_message(unknown_variables.front(), env_desc));
    if (vm.count("config")) {
      auto path = vm["config"].as<std::string>();
      std::ifstream file{path};
      if (!file)
        return fail("cannot read config file '" + path + "'");
      auto from_file = po::parse_config_file(file, desc);
      if (auto bad = negative_count(from_file, desc); !bad.empty())
        return fail(bad);
      po::store(from_file, vm);
    }
    po::notify(vm);
  } catch (const po::error& e) {
    return fail(e.what());
  }

  std::string error;
  auto& cfg = result.cfg;
  if (!in_range(vm, "port", 0, 65535, error) || !in_range(vm, "threads", 1, 64, error)
      || !in_range(vm, "actor-threads", 1, 64, error)
      || !in_range(vm, "pipeline-limit", 1, 1024, error)
      || !in_range(vm, "max-connections", 1, 1000000, error)
      || !in_range(vm, "max-connections-per-ip", 1, 1000000, error)
      || !in_range(vm, "connection-reserve-percent", 0, 50, error)
      || !in_range(vm, "busy-connections-per-ip", 1, 1000000, error)
      || !in_range(vm, "read-timeout-ms", 100, 3600000, error)
      || !in_range(vm, "shutdown-grace-ms", 0, 600000, error)
      || !in_range(vm, "shutdown-drain-ms", 0, 600000, error)
      || !in_range(vm, "connect-timeout-ms", 10, 600000, error)
      || !in_range(vm, "status-timeout-ms", 10, 600000, error)
      || !in_range(vm, "answer-timeout-ms", 10, 600000, error)
      || !in_range(vm, "tls-detect-timeout-ms", 10, 600000, error)
      || !in_range(vm, "scheme-memory-s", 0, 30 * 86400, error)
      || !in_range(vm, "probe-idle-ms", 10, 86400000, error)
      || !in_range(vm, "join-timeout-ms", 100, 60000, error)
      || !in_range(vm, "join-concurrency", 1, 4096, error)
      || !in_range(vm, "dns-timeout-ms", 10, 60000, error)
      || !in_range(vm, "dns-tries", 1, 10, error)
      || !in_range(vm, "offers-per-target-per-minute", 1, 10000, error)
      || !in_range(vm, "cache-max-entries", 1, 10000000, error)
      || !in_range(vm, "cache-max-mb", 1, 65536, error)
      || !in_range(vm, "store-map-size-mb", 16, 1048576, error)
      || !in_range(vm, "watch-min-period", 1, 86400, error)
      || !in_range(vm, "watch-max-per-account", 1, 100000, error)
      || !in_range(vm, "webhook-retry-for", 0, 86400, error))
    return fail(error);
  cfg.listen_address = vm["listen"].as<std::string>();
  cfg.port = static_cast<std::uint16_t>(vm["port"].as<unsigned>());
  cfg.data_dir = vm["data-dir"].as<std::string>();
  cfg.io_threads = vm["threads"].as<unsigned>();
  cfg.actor_threads = vm["actor-threads"].as<unsigned>();
  cfg.actor_scheduler = vm["actor-scheduler"].as<std::string>();
  if (cfg.actor_scheduler != "sharing" && cfg.actor_scheduler != "stealing")
    return fail("--actor-scheduler must be sharing or stealing");
  cfg.read_timeout = std::chrono::milliseconds{vm["read-timeout-ms"].as<unsigned>()};
  cfg.pipeline_limit = vm["pipeline-limit"].as<unsigned>();
  cfg.max_connections = vm["max-connections"].as<unsigned>();
  cfg.max_connections_per_ip = vm["max-connections-per-ip"].as<unsigned>();
  cfg.connection_reserve_percent = vm["connection-reserve-percent"].as<unsigned>();
  cfg.busy_connections_per_ip = vm["busy-connections-per-ip"].as<unsigned>();
  cfg.shutdown_grace = std::chrono::milliseconds{vm["shutdown-grace-ms"].as<unsigned>()};
  cfg.shutdown_drain = std::chrono::milliseconds{vm["shutdown-drain-ms"].as<unsigned>()};
  cfg.connect_timeout = std::chrono::milliseconds{vm["connect-timeout-ms"].as<unsigned>()};
  cfg.status_timeout = std::chrono::milliseconds{vm["status-timeout-ms"].as<unsigned>()};
  cfg.answer_timeout = std::chrono::milliseconds{vm["answer-timeout-ms"].as<unsigned>()};
  cfg.tls_detect_timeout = std::chrono::milliseconds{vm["tls-detect-timeout-ms"].as<unsigned>()};
  cfg.scheme_memory = std::chrono::seconds{vm["scheme-memory-s"].as<unsigned>()};
  cfg.allow_loopback = vm["allow-loopback"].as<bool>();
  cfg.upstream_ca_file = vm["upstream-ca-file"].as<std::string>();
  cfg.user_agent = vm["user-agent"].as<std::string>();
  cfg.secrets_key_file = vm["secrets-key-file"].as<std::string>();
  cfg.xbox_endpoints_file = vm["xbox-endpoints"].as<std::string>();
  cfg.probe_idle = std::chrono::milliseconds{vm["probe-idle-ms"].as<unsigned>()};
  cfg.join_timeout = std::chrono::milliseconds{vm["join-timeout-ms"].as<unsigned>()};
  cfg.join_concurrency = vm["join-concurrency"].as<unsigned>();
  cfg.join_worker = vm["join-worker"].as<std::string>();
  cfg.dns_timeout = std::chrono::milliseconds{vm["dns-timeout-ms"].as<unsigned>()};
  cfg.dns_tries = vm["dns-tries"].as<unsigned>();
  if (auto servers = vm["dns-servers"].as<std::string>(); !servers.empty()) {
    auto parsed = upstream::parse_dns_servers(servers, error);
    if (!parsed)
      return fail("--dns-servers: " + error);
    cfg.dns_servers = std::move(*parsed);
  }
  cfg.access_log = vm["access-log"].as<bool>();
  cfg.access_log_probes = vm["access-log-probes"].as<bool>();
  cfg.offers_per_target_per_minute = vm["offers-per-target-per-minute"].as<unsigned>();
  cfg.cache_max_entries = vm["cache-max-entries"].as<unsigned>();
  cfg.cache_max_bytes = std::size_t{vm["cache-max-mb"].as<unsigned>()} << 20;
  cfg.store_map_size = std::size_t{vm["store-map-size-mb"].as<unsigned>()} << 20;
  cfg.store_sync = vm["store-sync"].as<bool>();
  cfg.store_url = vm["store"].as<std::string>();
  if (!cfg.store_url.empty()) {
    // Checked here, before anything is opened, so a typo never starts a replica on LMDB.
    if (auto problem = storage::redis_url_problem(cfg.store_url); !problem.empty())
      return fail(problem);
  }
  if (vm.count("store-min-replicas")) {
    auto wanted = vm["store-min-replicas"].as<unsigned>();
    if (wanted > max_min_replicas)
      return fail("--store-min-replicas must be between 0 and " + std::to_string(max_min_replicas));
    if (wanted > 0 && cfg.store_url.empty())
      return fail("--store-min-replicas needs --store redis://... or redis+sentinel://...: the "
                  "embedded LMDB store has no replicas");
    cfg.store_min_replicas = wanted;
  }
  cfg.limit_info_ip = vm["limit-info-ip"].as<std::uint64_t>();
  cfg.limit_info_key = vm["limit-info-key"].as<std::uint64_t>();
  cfg.limit_offer_ip = vm["limit-offer-ip"].as<std::uint64_t>();
  cfg.limit_offer_key = vm["limit-offer-key"].as<std::uint64_t>();
  cfg.limit_signin_per_hour = vm["limit-signin-per-hour"].as<std::uint64_t>();
  cfg.quota_reserve = vm["quota-reserve"].as<std::uint64_t>();
  cfg.limit_key_rotations_per_hour = vm["limit-key-rotations-per-hour"].as<std::uint64_t>();
  cfg.watch_min_period = vm["watch-min-period"].as<unsigned>();
  cfg.watch_max_per_account = vm["watch-max-per-account"].as<unsigned>();
  cfg.webhook_retry_for = vm["webhook-retry-for"].as<unsigned>();
  cfg.public_base_url = vm["public-base-url"].as<std::string>();
  cfg.github_client_id = vm["github-client-id"].as<std::string>();
  cfg.github_authorize_url = vm["github-authorize-url"].as<std::string>();
  cfg.github_token_url = vm["github-token-url"].as<std::string>();
  cfg.github_api_url = vm["github-api-url"].as<std::string>();
  if (vm.count("github-client-secret"))
    cfg.github_client_secret = vm["github-client-secret"].as<std::string>();
  if (!base::log::parse_level(vm["log-level"].as<std::string>(), cfg.log_level))
    return fail("--log-level must be debug, info, warn or error");
  if (!parse_cidr_list(vm, "allow-cidr", cfg.allow_cidrs, error)
      || !parse_cidr_list(vm, "deny-cidr", cfg.deny_cidrs, error)
      || !parse_cidr_list(vm, "trusted-proxy", cfg.trusted_proxies, error))
    return fail(error);
  if (cfg.allow_loopback) {
    cfg.allow_cidrs.push_back(*base::parse_cidr("127.0.0.0/8"));
    cfg.allow_cidrs.push_back(*base::parse_cidr("::1/128"));
  }
  if (cfg.user_agent.find_first_of("\r\n") != std::string::npos)
    return fail("--user-agent must be one line");
  // What the service would otherwise find out only after making its data directory is
  // checked here, so a bad setting leaves nothing behind on disk.
  boost::system::error_code address_error;
  boost::asio::ip::make_address(cfg.listen_address, address_error);
  if (address_error)
    return fail("--listen '" + cfg.listen_address + "' is not an IP address");
  if (!cfg.upstream_ca_file.empty() && !std::ifstream{cfg.upstream_ca_file})
    return fail("--upstream-ca-file: cannot read '" + cfg.upstream_ca_file + "'");
  if (!cfg.secrets_key_file.empty()) {
    auto key = base::load_secrets_key(cfg.secrets_key_file);
    if (!key.key)
      return fail("--secrets-key-file: " + key.error);
  }
  if (!cfg.xbox_endpoints_file.empty()) {
    std::string problem;
    auto endpoints = net::xbox::load_endpoints(cfg.xbox_endpoints_file, problem);
    if (!endpoints)
      return fail("--xbox-endpoints: " + problem);
    cfg.xbox_endpoints = std::move(*endpoints);
  }
  return result;
}

std::optional<std::string> option_for_variable(std::string_view variable) {
  if (variable.substr(0, env_prefix.size()) != env_prefix)
    return std::nullopt;
  std::string name{variable.substr(env_prefix.size())};
  for (auto& c : name)
    c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

} // namespace netherscope::app
