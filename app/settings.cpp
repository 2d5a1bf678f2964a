#include "app/settings.hpp"

#include <algorithm>
#include <filesystem>

#include <boost/json/object.hpp>

#include "base/cidr.hpp"
#include "base/log.hpp"
#include "base/sealed.hpp"
#include "net/http/signin.hpp"

namespace netherscope::app {

namespace http = net::http;
namespace upstream = net::upstream;

namespace {

/// The margin past the probes' own deadlines after which an actor gives up on a reply: the
/// probes' deadlines end every fetch, and this only catches a lost reply.
constexpr std::chrono::seconds lost_reply_margin{5};

} // namespace

storage::open_options store_options_of(const config& cfg) {
  storage::open_options options;
  options.data_dir = cfg.data_dir;
  options.url = cfg.store_url;
  options.map_size = cfg.store_map_size;
  options.sync = cfg.store_sync;
  options.min_replicas = cfg.store_min_replicas;
  return options;
}

upstream::oauth_settings oauth_settings_of(const config& cfg) {
  upstream::oauth_settings oauth;
  oauth.client_id = cfg.github_client_id;
  oauth.client_secret = cfg.github_client_secret;
  oauth.authorize_url = cfg.github_authorize_url;
  oauth.token_url = cfg.github_token_url;
  oauth.api_url = cfg.github_api_url;
  oauth.public_base_url = cfg.public_base_url;
  oauth.timeout = cfg.status_timeout;
  return oauth;
}

http::server_settings server_settings_of(const config& cfg) {
  http::server_settings server;
  server.read_timeout = cfg.read_timeout;
  server.pipeline_limit = cfg.pipeline_limit;
  server.max_connections = cfg.max_connections;
  server.max_connections_per_ip = cfg.max_connections_per_ip;
  server.connection_reserve_percent = cfg.connection_reserve_percent;
  server.busy_connections_per_ip = cfg.busy_connections_per_ip;
  server.trusted_proxies = cfg.trusted_proxies;
  server.access_log = cfg.access_log;
  server.access_log_probes = cfg.access_log_probes;
  // Cookies are Secure (and __Host- named) exactly when the sign-in pages are served over
  // HTTPS; the account page's POSTs must come from the public origin.
  server.secure_cookies = upstream::served_over_https(oauth_settings_of(cfg));
  server.public_origin = http::origin_of(cfg.public_base_url);
  return server;
}

upstream::dns_settings dns_settings_of(const config& cfg) {
  upstream::dns_settings dns;
  dns.servers = cfg.dns_servers;
  dns.timeout = cfg.dns_timeout;
  dns.tries = cfg.dns_tries;
  return dns;
}

upstream::address_policy target_policy_of(const config& cfg) {
  return upstream::address_policy{cfg.allow_cidrs, cfg.deny_cidrs};
}

upstream::client_settings target_client_settings_of(const config& cfg) {
  upstream::client_settings client;
  client.policy = target_policy_of(cfg);
  client.ca_file = cfg.upstream_ca_file;
  client.user_agent = cfg.user_agent;
  client.dns = dns_settings_of(cfg);
  client.offers_per_minute = cfg.offers_per_target_per_minute;
  return client;
}

upstream::client_settings xbox_client_settings_of(const config& cfg) {
  upstream::client_settings client;
  client.policy = upstream::address_policy{
    {*base::parse_cidr("0.0.0.0/0"), *base::parse_cidr("::/0")}, {}};
  client.ca_file = cfg.upstream_ca_file;
  client.dns = dns_settings_of(cfg);
  return client;
}

upstream::xbox_chain_settings xbox_chain_settings_of(const config& cfg) {
  upstream::xbox_chain_settings chain;
  chain.endpoints = cfg.xbox_endpoints;
  return chain;
}

std::optional<base::secrets_key> secrets_key_of(const config& cfg) {
  if (cfg.secrets_key_file.empty())
    return std::nullopt;
  auto loaded = base::load_secrets_key(cfg.secrets_key_file);
  if (!loaded.warning.empty())
    base::log::write(base::log::level::warn, "secrets_key_file",
                          boost::json::object{{"warning", loaded.warning}});
  return std::move(loaded.key);
}


upstream::client_settings provider_client_settings_of(const config& cfg) {
  upstream::client_settings provider;
  provider.policy = upstream::address_policy{
    {*base::parse_cidr("0.0.0.0/0"), *base::parse_cidr("::/0")}, {}};
  provider.ca_file = cfg.upstream_ca_file;
  provider.user_agent = "netherscope";
  provider.dns = dns_settings_of(cfg);
  return provider;
}

upstream::join_runner_settings join_runner_settings_of(const config& cfg) {
  upstream::join_runner_settings joins;
  joins.concurrency = cfg.join_concurrency;
  joins.worker_path = cfg.join_worker;
  if (joins.worker_path.empty()) {
    // The worker ships beside the service (the image's /usr/local/bin, the build directory).
    std::error_code ec;
    auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    joins.worker_path = ec ? std::string{"netherscope-join"}
                           : (self.parent_path() / "netherscope-join").string();
  }
  return joins;
}

actors::probe_settings probe_settings_of(const config& cfg) {
  actors::probe_settings probe;
  probe.connect_timeout = cfg.connect_timeout;
  probe.status_timeout = cfg.status_timeout;
  probe.answer_timeout = cfg.answer_timeout;
  probe.idle = cfg.probe_idle;
  probe.tls_detect_timeout = cfg.tls_detect_timeout;
  probe.scheme_lifetime = cfg.scheme_memory;
  probe.join_timeout = cfg.join_timeout;
  return probe;
}

actors::cache_settings cache_settings_of(const config& cfg) {
  actors::cache_settings cache;
  cache.limits.max_entries = cfg.cache_max_entries;
  cache.limits.max_bytes = cfg.cache_max_bytes;
  cache.flight_deadline = cfg.answer_timeout + lost_reply_margin;
  return cache;
}

actors::quota_limits quota_limits_of(const config& cfg) {
  return {cfg.limit_info_ip, cfg.limit_info_key, cfg.limit_offer_ip, cfg.limit_offer_key,
          cfg.limit_signin_per_hour};
}

actors::quota_settings quota_settings_of(const config& cfg) {
  actors::quota_settings quota;
  quota.limits = quota_limits_of(cfg);
  quota.reserve_max = cfg.quota_reserve;
  return quota;
}

actors::keys_settings keys_settings_of(const config& cfg) {
  actors::keys_settings keys;
  keys.limits = quota_limits_of(cfg);
  keys.rotations_per_hour = cfg.limit_key_rotations_per_hour;
  return keys;
}

actors::watch_settings watch_settings_of(const config& cfg) {
  actors::watch_settings watches;
  watches.bounds.min_period_seconds = cfg.watch_min_period;
  watches.bounds.max_per_account = cfg.watch_max_per_account;
  watches.policy = target_policy_of(cfg);
  watches.allow_loopback = cfg.allow_loopback;
  return watches;
}

/// How long a join may take in all: its offer, then the worker and the runner's grace.
std::chrono::milliseconds join_deadline_of(const config& cfg) {
  return cfg.connect_timeout + cfg.answer_timeout + cfg.join_timeout
         + join_runner_settings_of(cfg).grace + lost_reply_margin;
}

actors::scheduler_settings scheduler_settings_of(const config& cfg) {
  actors::scheduler_settings scheduler;
  std::chrono::milliseconds min_period{std::int64_t{cfg.watch_min_period} * 1000};
  scheduler.sync_interval = std::clamp(min_period, std::chrono::milliseconds{1000},
                                       std::chrono::milliseconds{10000});
  scheduler.poll_interval = std::clamp(min_period / 10, std::chrono::milliseconds{100},
                                       std::chrono::milliseconds{1000});
  scheduler.info_deadline = cfg.status_timeout + lost_reply_margin;
  scheduler.join_deadline = join_deadline_of(cfg);
  scheduler.check_deadline = scheduler.info_deadline + scheduler.join_deadline;
  return scheduler;
}

upstream::client_settings webhook_client_settings_of(const config& cfg) {
  upstream::client_settings client;
  client.policy = target_policy_of(cfg);
  client.ca_file = cfg.upstream_ca_file;
  client.user_agent = "netherscope";
  client.dns = dns_settings_of(cfg);
  return client;
}

actors::webhook_settings webhook_settings_of(const config& cfg) {
  actors::webhook_settings webhooks;
  webhooks.retries.retry_for = cfg.webhook_retry_for;
  webhooks.allow_loopback = cfg.allow_loopback;
  webhooks.public_base_url = upstream::canonical_base_url(cfg.public_base_url);
  return webhooks;
}

actors::front_settings front_settings_of(const config& cfg) {
  actors::front_settings front;
  front.limits = quota_limits_of(cfg);
  front.info_deadline = cfg.status_timeout + lost_reply_margin;
  front.signin_deadline = 2 * cfg.status_timeout + lost_reply_margin;
  front.join_deadline = join_deadline_of(cfg);
  front.oauth = oauth_settings_of(cfg);
  return front;
}

actors::offer_gate_settings gate_settings_of(const config& cfg) {
  actors::offer_gate_settings gate;
  gate.per_minute = cfg.offers_per_target_per_minute;
  // A mark lives as long as a fetch may.
  gate.in_flight_ttl = std::chrono::duration_cast<std::chrono::milliseconds>(
    cfg.connect_timeout + cfg.answer_timeout + lost_reply_margin);
  return gate;
}

} // namespace netherscope::app
