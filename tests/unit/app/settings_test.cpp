// The one projection from the parsed configuration to the rooms' settings (app/settings):
// each option lands where its room reads it, with the margins the service adds.
#include <catch2/catch.hpp>

#include "app/settings.hpp"
#include "base/cidr.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

/// A configuration whose every projected option differs from its default and from the others.
config odd_config() {
  config cfg;
  cfg.data_dir = "/tmp/netherscope-settings-test";
  cfg.store_url = "redis://127.0.0.1:6390/2";
  cfg.store_map_size = 12345678;
  cfg.connect_timeout = 1101ms;
  cfg.status_timeout = 2202ms;
  cfg.answer_timeout = 3303ms;
  cfg.tls_detect_timeout = 404ms;
  cfg.scheme_memory = 505s;
  cfg.probe_idle = 606ms;
  cfg.dns_timeout = 707ms;
  cfg.dns_tries = 4;
  cfg.read_timeout = 808ms;
  cfg.pipeline_limit = 9;
  cfg.max_connections = 1010;
  cfg.cache_max_entries = 1111;
  cfg.cache_max_bytes = 121212;
  cfg.offers_per_target_per_minute = 13;
  cfg.limit_info_ip = 14;
  cfg.limit_info_key = 15;
  cfg.limit_offer_ip = 16;
  cfg.limit_offer_key = 17;
  cfg.limit_signin_per_hour = 18;
  cfg.limit_key_rotations_per_hour = 19;
  cfg.quota_reserve = 20;
  cfg.public_base_url = "https://status.example";
  cfg.github_client_id = "client-id";
  cfg.github_client_secret = "client-secret";
  cfg.user_agent = "agent/1";
  cfg.allow_cidrs = {*parse_cidr("127.0.0.0/8")};
  cfg.allow_loopback = true;
  cfg.webhook_retry_for = 21;
  return cfg;
}

} // namespace

TEST_CASE("settings: each option reaches the rooms that read it", "[settings]") {
  auto cfg = odd_config();

  auto store = store_options_of(cfg);
  CHECK(store.data_dir == cfg.data_dir);
  CHECK(store.url == cfg.store_url);
  CHECK(store.map_size == cfg.store_map_size);

  auto probe = probe_settings_of(cfg);
  CHECK(probe.connect_timeout == 1101ms);
  CHECK(probe.status_timeout == 2202ms);
  CHECK(probe.answer_timeout == 3303ms);
  CHECK(probe.tls_detect_timeout == 404ms);
  CHECK(probe.scheme_lifetime == 505s);
  CHECK(probe.idle == 606ms);

  // The actors wait a margin past the probes' own deadlines, for a lost reply only.
  auto front = front_settings_of(cfg);
  CHECK(front.info_deadline > probe.status_timeout);
  CHECK(front.signin_deadline > 2 * probe.status_timeout);
  CHECK(front.oauth.client_id == "client-id");
  CHECK(front.limits.offer_ip == 16);
  auto cache = cache_settings_of(cfg);
  CHECK(cache.flight_deadline > probe.answer_timeout);
  CHECK(cache.limits.max_entries == 1111);
  CHECK(cache.limits.max_bytes == 121212);
  auto gate = gate_settings_of(cfg);
  CHECK(gate.per_minute == 13);
  CHECK(gate.in_flight_ttl > probe.connect_timeout + probe.answer_timeout);

  auto limits = quota_limits_of(cfg);
  CHECK(limits.info_ip == 14);
  CHECK(limits.info_key == 15);
  CHECK(limits.offer_ip == 16);
  CHECK(limits.offer_key == 17);
  CHECK(limits.signin_ip == 18);
  auto quota = quota_settings_of(cfg);
  CHECK(quota.limits.offer_key == 17);
  CHECK(quota.reserve_max == 20);
  auto keys = keys_settings_of(cfg);
  CHECK(keys.rotations_per_hour == 19);
  CHECK(keys.limits.info_key == 15);

  auto server = server_settings_of(cfg);
  CHECK(server.read_timeout == 808ms);
  CHECK(server.pipeline_limit == 9);
  CHECK(server.max_connections == 1010);
  // Served over HTTPS: the cookies are Secure, and POSTs must come from that origin.
  CHECK(server.secure_cookies);
  CHECK(server.public_origin == "https://status.example");

  auto targets = target_client_settings_of(cfg);
  CHECK(targets.user_agent == "agent/1");
  CHECK(targets.offers_per_minute == 13);
  CHECK(targets.dns.timeout == 707ms);
  CHECK(targets.dns.tries == 4);
  // The targets' policy is the configured one; the provider is the operator's choice.
  auto loopback = boost::asio::ip::make_address("127.0.0.1");
  auto private_address = boost::asio::ip::make_address("10.0.0.1");
  CHECK(target_policy_of(cfg).check(loopback).allowed);
  CHECK_FALSE(target_policy_of(cfg).check(private_address).allowed);
  auto provider = provider_client_settings_of(cfg);
  CHECK(provider.policy.check(private_address).allowed);
  CHECK(provider.user_agent != targets.user_agent);
  CHECK(oauth_settings_of(cfg).timeout == probe.status_timeout);

  // A webhook's host is a stranger's choice too: the targets' policy guards its deliveries.
  auto hooks = webhook_client_settings_of(cfg);
  CHECK(hooks.user_agent == "netherscope");
  CHECK(hooks.policy.check(loopback).allowed);
  CHECK_FALSE(hooks.policy.check(private_address).allowed);
  CHECK(hooks.dns.timeout == 707ms);
  auto webhooks = webhook_settings_of(cfg);
  CHECK(webhooks.retries.retry_for == 21);
  CHECK(webhooks.allow_loopback);
  CHECK(webhooks.public_base_url == "https://status.example");
  CHECK(watch_settings_of(cfg).allow_loopback);
}
