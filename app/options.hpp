// The service's configuration: every option as a flag, an environment variable or a config file.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/log.hpp"
#include "net/upstream/address_policy.hpp"
#include "net/upstream/dns.hpp"
#include "net/xbox/endpoints.hpp"

namespace netherscope::app {

namespace upstream = net::upstream;

/// Every setting of the service, with the embedded defaults the README's quick start relies on.
struct config {
  // -- listening --------------------------------------------------------------
  std::string listen_address = "127.0.0.1";
  /// 0 lets the OS choose; the chosen port is logged in the "listening" line.
  std::uint16_t port = 8080;
  std::string data_dir = "data";

  // -- threads ----------------------------------------------------------------
  /// Threads running the HTTP sockets (Asio).
  unsigned io_threads = 2;
  /// Threads running the actors (CAF scheduler workers).
  unsigned actor_threads = 2;
  /// CAF's scheduling policy: "sharing" (one queue, workers sleep on a condition variable
  /// and wake at once) or "stealing" (per-worker queues, idle workers poll and nap).
  std::string actor_scheduler = "sharing";

  // -- our HTTP server --------------------------------------------------------
  /// How long a keep-alive connection may sit idle, and a request may take to arrive.
  std::chrono::milliseconds read_timeout{30000};
  /// Requests read ahead of their responses on one connection before reading pauses.
  std::size_t pipeline_limit = 16;
  /// Connections served at once; more are accepted and closed at once with a 503.
  std::size_t max_connections = 10000;
  /// Connections one client (an IPv4 address, or an IPv6 /64) may hold; trusted proxies are
  /// exempt.
  std::size_t max_connections_per_ip = 100;
  /// The share of max_connections, in percent, kept for clients holding few connections:
  /// once the rest is in use, a client holding busy_connections_per_ip or more is refused.
  unsigned connection_reserve_percent = 10;
  /// Connections one client may hold while the reserve is being used.
  std::size_t busy_connections_per_ip = 8;
  /// How long in-flight requests may take to finish after SIGTERM; those still waiting then
  /// are answered 503.
  std::chrono::milliseconds shutdown_grace{5000};
  /// After SIGTERM, how long /readyz answers 503 while calls are still served, before the
  /// listening socket closes (--shutdown-drain-ms).
  std::chrono::milliseconds shutdown_drain{5000};

  // -- talking to targets -----------------------------------------------------
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds status_timeout{10000};
  std::chrono::milliseconds answer_timeout{20000};
  /// How long a TLS handshake may take, when auto-detecting a target nothing is remembered
  /// about, before it counts as plain HTTP: some targets stay silent on a ClientHello, and
  /// waiting the whole connect deadline for them would slow every call.
  std::chrono::milliseconds tls_detect_timeout{1500};
  /// How long the scheme (HTTPS or HTTP) a target answered with is remembered in the store,
  /// so later auto-detected calls go straight to it; 0 turns that memory off.
  std::chrono::seconds scheme_memory{3600};
  /// The whole of a join after its answer, from ICE to the game's answer.
  std::chrono::milliseconds join_timeout{5000};
  /// The most joins running at once; past it a join is answered 503.
  unsigned join_concurrency = 64;
  /// The join worker's executable; empty for netherscope-join beside the service's own.
  std::string join_worker;
  std::vector<base::cidr> allow_cidrs;
  std::vector<base::cidr> deny_cidrs;
  /// Adds 127.0.0.0/8 and ::1/128 to allow_cidrs, for tests and local use.
  bool allow_loopback = false;
  /// PEM file of extra CAs trusted for HTTPS targets, besides the system store.
  std::string upstream_ca_file;
  std::string user_agent = "libhttpclient/1.0.0.0";
  /// The operator's secrets key file (base/sealed), which seals the linked Xbox account
  /// and the webhooks' secrets; empty when none is given.
  std::string secrets_key_file;
  /// --xbox-endpoints: the file, and the base URLs it maps the Xbox chain's production hosts
  /// to (read when the options are parsed).
  std::string xbox_endpoints_file;
  net::xbox::endpoints xbox_endpoints;
  /// Name servers for looking up targets (c-ares); empty for those in /etc/resolv.conf.
  std::vector<upstream::dns_server> dns_servers;
  /// How long a name server has to answer a query before it is sent again; c-ares doubles
  /// it on each later round over the servers.
  std::chrono::milliseconds dns_timeout{1000};
  /// Queries per name server before a lookup fails.
  unsigned dns_tries = 2;
  /// How long a probe actor without work lives before it is stopped.
  std::chrono::milliseconds probe_idle{60000};
  /// Upstream offers per target per minute across all callers (PRODUCT.md "Quotas").
  unsigned offers_per_target_per_minute = 6;

  // -- offer cache ------------------------------------------------------------
  std::size_t cache_max_entries = 10000;
  std::size_t cache_max_bytes = std::size_t{64} << 20;

  // -- storage ----------------------------------------------------------------
  /// The largest the LMDB environment may grow.
  std::size_t store_map_size = std::size_t{1} << 30;
  /// fsync every commit (survives power loss) rather than only the process's crash.
  bool store_sync = true;
  /// --store: a redis:// URL for a store shared by replicas; empty for LMDB under data_dir.
  std::string store_url;
  /// --store-min-replicas; unset: storage's default for the URL (1 under Sentinel, else 0).
  std::optional<unsigned> store_min_replicas;

  // -- quotas (SPEC 8.1) ------------------------------------------------------
  std::uint64_t limit_info_ip = 2000;
  std::uint64_t limit_info_key = 20000;
  std::uint64_t limit_offer_ip = 200;
  std::uint64_t limit_offer_key = 2000;
  /// Sign-in callbacks per client address (IPv6: per /64) and clock hour; each costs two
  /// requests to the provider, so it has its own limit rather than the info quota.
  std::uint64_t limit_signin_per_hour = 20;
  /// New keys per account and clock hour (POST /api/account/key and the account page
  /// together); every new key leaves a revoked record behind for a while.
  std::uint64_t limit_key_rotations_per_hour = 5;
  /// The most calls counted ahead for one busy caller (actors/quota_actor.hpp,
  /// "Reservations"); 0 counts every call on its own.
  std::uint64_t quota_reserve = 1024;

  // -- watches ----------------------------------------------------------------
  /// The shortest period a watch may ask for, in seconds (the longest is a day).
  unsigned watch_min_period = 60;
  /// Watches one account may hold.
  unsigned watch_max_per_account = 10;
  /// How long after its first try a failed webhook delivery may still be tried again, in
  /// seconds; then the webhook is marked failing.
  unsigned webhook_retry_for = 600;

  // -- sign-in ----------------------------------------------------------------
  /// Our address as browsers see it; the OAuth callback is below it.
  std::string public_base_url = "http://127.0.0.1:8080";
  std::string github_client_id;
  /// Only from NETHERSCOPE_GITHUB_CLIENT_SECRET, never a flag or file: flags show in `ps`.
  std::string github_client_secret;
  std::string github_authorize_url = "https://github.com/login/oauth/authorize";
  std::string github_token_url = "https://github.com/login/oauth/access_token";
  std::string github_api_url = "https://api.github.com";

  // -- clients ----------------------------------------------------------------
  /// Peers whose X-Forwarded-For header is believed.
  std::vector<base::cidr> trusted_proxies;

  // -- logging ----------------------------------------------------------------
  base::log::level log_level = base::log::level::info;
  /// One JSON line per response on stdout (default true).
  bool access_log = true;
  /// Whether those lines include /healthz, /readyz and /metrics (default false).
  bool access_log_probes = false;
};

/// What main should do after parsing the command line.
enum class parse_status { run, exit_ok, exit_error };

/// The parsed configuration, or the text to print before exiting.
struct parse_result {
  parse_status status = parse_status::run;
  config cfg;
  /// Help text (exit_ok) or the error (exit_error).
  std::string message;
};

/// Parses flags, then the process environment's NETHERSCOPE_* variables, then the --config
/// file; the first source that sets an option wins, and defaults fill the rest. A
/// NETHERSCOPE_* variable that names no option is an error.
parse_result parse_options(int argc, const char* const* argv);

/// The NETHERSCOPE_* environment variable that sets an option (allow-cidr gives
/// NETHERSCOPE_ALLOW_CIDR).
std::string variable_for_option(std::string_view option);

/// "netherscope <version>" and a newline, for --version (the service and admin).
std::string version_text();

/// program_options' command-line style with prefix guessing turned off, so that only whole
/// option names match; the service and admin both parse with it.
int exact_command_line_style();

/// The option a NETHERSCOPE_* environment variable sets (NETHERSCOPE_ALLOW_CIDR sets
/// allow-cidr), whether or not that option exists; nothing for a variable without the prefix.
std::optional<std::string> option_for_variable(std::string_view variable);

} // namespace netherscope::app
