#include "app/service.hpp"

#include <ctime>
#include <sys/resource.h>
#include <filesystem>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/object.hpp>
#include <caf/all.hpp>

#include "actors/auth_actor.hpp"
#include "actors/cache_actor.hpp"
#include "actors/edge_bridge.hpp"
#include "actors/front_actor.hpp"
#include "actors/keys_actor.hpp"
#include "actors/quota_actor.hpp"
#include "actors/probe_registry.hpp"
#include "net/base/log.hpp"
#include "net/upstream/http_client.hpp"
#include "net/http/listener.hpp"
#include "app/identity.hpp"
#include "storage/meta_records.hpp"
#include "storage/lmdb.hpp"

namespace netherscope {

namespace {

namespace asio = boost::asio;

/// Ends the service gracefully: stop accepting, let in-flight calls finish, then stop.
class shutdown_sequence : public std::enable_shared_from_this<shutdown_sequence> {
public:
  shutdown_sequence(asio::io_context& ioc, std::shared_ptr<net::listener> lst,
                    net::server_context& ctx, std::chrono::milliseconds grace)
    : ioc_(ioc), listener_(std::move(lst)), ctx_(ctx), grace_(grace), signals_(ioc),
      timer_(ioc) {
    signals_.add(SIGINT);
    signals_.add(SIGTERM);
  }

  void arm() {
    signals_.async_wait([self = shared_from_this()](boost::system::error_code ec, int sig) {
      if (!ec)
        self->begin(sig);
    });
  }

private:
  void begin(int sig) {
    log::write(log::level::info, "shutdown",
               {{"signal", sig == SIGINT ? "SIGINT" : "SIGTERM"},
                {"in_flight", ctx_.in_flight.load()},
                {"grace_ms", grace_.count()}});
    listener_->stop();
    ctx_.begin_draining();
    deadline_ = std::chrono::steady_clock::now() + grace_;
    // A second signal means "now".
    signals_.async_wait([self = shared_from_this()](boost::system::error_code ec, int) {
      if (!ec)
        self->ioc_.stop();
    });
    poll();
  }

  // Polling a counter every few milliseconds is simpler than having every session report
  // its end, and shutdown is not a hot path.
  void poll() {
    if (ctx_.in_flight.load() == 0 || std::chrono::steady_clock::now() >= deadline_) {
      if (ctx_.in_flight.load() > 0)
        log::write(log::level::warn, "shutdown_abandoned",
                   {{"in_flight", ctx_.in_flight.load()}});
      ioc_.stop();
      return;
    }
    timer_.expires_after(std::chrono::milliseconds(10));
    timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (!ec)
        self->poll();
    });
  }

  asio::io_context& ioc_;
  std::shared_ptr<net::listener> listener_;
  net::server_context& ctx_;
  std::chrono::milliseconds grace_;
  asio::signal_set signals_;
  asio::steady_timer timer_;
  std::chrono::steady_clock::time_point deadline_;
};

} // namespace

int run_service(const config& cfg) {
  log::set_level(cfg.log_level);

  std::error_code fs_ec;
  std::filesystem::create_directories(cfg.data_dir, fs_ec);
  if (fs_ec) {
    log::write(log::level::error, "startup_failed",
               {{"error", "cannot create --data-dir '" + cfg.data_dir + "': "
                            + fs_ec.message()}});
    return 1;
  }

  storage::env_options store_cfg;
  store_cfg.map_size = cfg.store_map_size;
  store_cfg.sync = cfg.store_sync;
  auto store = storage::env::open(cfg.data_dir, store_cfg);
  if (!store) {
    log::write(log::level::error, "startup_failed",
               {{"error", "cannot open the store in '" + cfg.data_dir + "': "
                            + caf::to_string(store.error())}});
    return 1;
  }
  auto meta_db = (*store)->open_db("meta");
  auto usage_db = (*store)->open_db("usage");
  auto accounts_db = (*store)->open_db("accounts");
  for (auto* db : {&meta_db, &usage_db, &accounts_db}) {
    if (!*db) {
      log::write(log::level::error, "startup_failed",
                 {{"error", caf::to_string(db->error())}});
      return 1;
    }
  }
  store_handles handles{*store, *usage_db, *accounts_db};
  auto state_key = storage::load_or_create_secret(**store, *meta_db, "oauth_state_key", 32);
  if (!state_key) {
    log::write(log::level::error, "startup_failed",
               {{"error", caf::to_string(state_key.error())}});
    return 1;
  }
  auto identity = load_or_create_identity(**store, *meta_db, std::time(nullptr));
  if (!identity) {
    log::write(log::level::error, "startup_failed",
               {{"error", "identity: " + caf::to_string(identity.error())}});
    return 1;
  }
  log::write(log::level::info, "identity", {{"fingerprint", (*identity)->fingerprint}});
  if (cfg.github_client_id.empty() != cfg.github_client_secret.empty())
    log::write(log::level::warn, "signin_disabled",
               {{"reason", "set both --github-client-id and NETHERSCOPE_GITHUB_CLIENT_SECRET"}});

  net::server_settings server_cfg;
  server_cfg.read_timeout = cfg.read_timeout;
  server_cfg.pipeline_limit = cfg.pipeline_limit;
  server_cfg.max_connections = cfg.max_connections;
  server_cfg.max_connections_per_ip = cfg.max_connections_per_ip;
  // Each connection is a descriptor, and so is each fetch: raise the soft limit as far as
  // allowed, and keep connections within it with room for fetches and the store.
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
    getrlimit(RLIMIT_NOFILE, &files);
    auto room = files.rlim_cur > 256 ? static_cast<std::size_t>(files.rlim_cur / 2) : 64;
    if (server_cfg.max_connections > room) {
      log::write(log::level::warn, "max_connections_lowered",
                 {{"asked", server_cfg.max_connections},
                  {"now", room},
                  {"reason", "half the open-files limit, the rest for fetches"}});
      server_cfg.max_connections = room;
    }
  }
  server_cfg.trusted_proxies = cfg.trusted_proxies;
  server_cfg.access_log = cfg.access_log;
  server_cfg.secure_cookies = cfg.public_base_url.rfind("https://", 0) == 0;
  // The order of these declarations is their order of destruction in reverse, and it
  // matters: sessions (owned by pending handlers of the io_context and by reply callbacks
  // inside actors) use the server context, so it is made first and destroyed last; the
  // actor system goes first, releasing every callback while sockets can still close.
  net::server_context ctx{server_cfg, openapi_document};
  asio::io_context ioc{static_cast<int>(cfg.io_threads)};

  // Both clients look names up the same way, each with its own c-ares channel and cache.
  net::dns_settings dns_cfg;
  dns_cfg.servers = cfg.dns_servers;
  dns_cfg.timeout = cfg.dns_timeout;
  dns_cfg.tries = cfg.dns_tries;
  net::client_settings client_cfg;
  client_cfg.policy = net::address_policy{cfg.allow_cidrs, cfg.deny_cidrs};
  client_cfg.ca_file = cfg.upstream_ca_file;
  client_cfg.user_agent = cfg.user_agent;
  client_cfg.dns = dns_cfg;
  std::string error;
  auto client = net::http_client::make(ioc, std::move(client_cfg), error);
  if (!client) {
    log::write(log::level::error, "startup_failed", {{"error", error}});
    return 1;
  }
  // The sign-in provider is the operator's choice, not a stranger's, so its client has no
  // address policy; it verifies certificates against the system store as usual.
  net::client_settings provider_cfg;
  provider_cfg.policy = net::address_policy{{*net::parse_cidr("0.0.0.0/0"),
                                             *net::parse_cidr("::/0")},
                                            {}};
  provider_cfg.ca_file = cfg.upstream_ca_file;
  provider_cfg.user_agent = "netherscope";
  provider_cfg.dns = dns_cfg;
  auto provider_client = net::http_client::make(ioc, std::move(provider_cfg), error);
  if (!provider_client) {
    log::write(log::level::error, "startup_failed", {{"error", error}});
    return 1;
  }

  boost::system::error_code ec;
  auto address = asio::ip::make_address(cfg.listen_address, ec);
  if (ec) {
    log::write(log::level::error, "startup_failed",
               {{"error", "--listen '" + cfg.listen_address + "' is not an IP address"}});
    return 1;
  }
  auto lst = std::make_shared<net::listener>(
    ioc, asio::ip::tcp::endpoint{address, cfg.port}, ctx, ec);
  if (ec) {
    log::write(log::level::error, "startup_failed",
               {{"error", "cannot listen on " + cfg.listen_address + ":"
                            + std::to_string(cfg.port) + ": " + ec.message()}});
    return 1;
  }

  caf::actor_system_config caf_cfg;
  caf_cfg.set("scheduler.max-threads", static_cast<std::size_t>(cfg.actor_threads));
  caf_cfg.set("scheduler.policy", caf::atom_from_string(cfg.actor_scheduler));
  caf::actor_system system{caf_cfg};

  probe_deps deps;
  deps.settings.connect_timeout = cfg.connect_timeout;
  deps.settings.status_timeout = cfg.status_timeout;
  deps.settings.answer_timeout = cfg.answer_timeout;
  deps.settings.idle = cfg.probe_idle;
  deps.limiter = std::make_shared<net::offer_limiter>(cfg.offers_per_target_per_minute);
  deps.client = client;
  deps.identity = *identity;
  auto registry = system.spawn(probe_registry, deps);

  // The probes' own deadlines end every fetch; these margins only catch a lost reply.
  cache_settings cache_cfg;
  cache_cfg.limits.max_entries = cfg.cache_max_entries;
  cache_cfg.limits.max_bytes = cfg.cache_max_bytes;
  cache_cfg.flight_deadline = cfg.answer_timeout + std::chrono::seconds(5);
  auto offer_cache = system.spawn(cache, registry, cache_cfg);

  quota_limits limits{cfg.limit_info_ip, cfg.limit_info_key, cfg.limit_offer_ip,
                      cfg.limit_offer_key};
  auto unix_now = []() -> std::int64_t { return std::time(nullptr); };
  // Detached: a commit waits for the disk, and that must not stall the scheduler's workers.
  auto quotas = system.spawn<caf::detached>(quota, handles, quota_settings{limits, unix_now});
  auto accounts = system.spawn<caf::detached>(keys, handles, limits, unix_now);

  net::oauth_settings oauth_cfg;
  oauth_cfg.client_id = cfg.github_client_id;
  oauth_cfg.client_secret = cfg.github_client_secret;
  oauth_cfg.authorize_url = cfg.github_authorize_url;
  oauth_cfg.token_url = cfg.github_token_url;
  oauth_cfg.api_url = cfg.github_api_url;
  oauth_cfg.public_base_url = cfg.public_base_url;
  oauth_cfg.timeout = cfg.status_timeout;
  auto signin = system.spawn(auth, oauth_cfg, provider_client);

  front_settings front_cfg;
  front_cfg.info_deadline = cfg.status_timeout + std::chrono::seconds(5);
  front_cfg.signin_deadline = 2 * cfg.status_timeout + std::chrono::seconds(5);
  front_cfg.oauth = oauth_cfg;
  front_cfg.state_key = *state_key;
  std::vector<front_actor> fronts;
  for (unsigned i = 0; i < cfg.actor_threads; ++i)
    fronts.push_back(system.spawn(
      front, front_peers{registry, offer_cache, quotas, accounts, signin}, front_cfg));
  ctx.set_call_sink(make_edge_bridge(fronts));

  lst->run();
  auto bound = lst->local_endpoint();
  std::make_shared<shutdown_sequence>(ioc, lst, ctx, cfg.shutdown_grace)->arm();
  log::write(log::level::info, "listening",
             {{"address", bound.address().to_string()},
              {"port", bound.port()},
              {"io_threads", cfg.io_threads},
              {"actor_threads", cfg.actor_threads},
              {"data_dir", cfg.data_dir}});

  std::vector<std::thread> threads;
  for (unsigned i = 1; i < cfg.io_threads; ++i)
    threads.emplace_back([&ioc] { ioc.run(); });
  ioc.run();
  for (auto& t : threads)
    t.join();
  client->stop();
  provider_client->stop();

  // Long-lived actors end only when told; the actor system waits for them on destruction.
  ctx.set_call_sink({});
  for (auto& f : fronts)
    caf::anon_send_exit(f, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(offer_cache, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(quotas, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(accounts, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(signin, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(registry, caf::exit_reason::user_shutdown);
  fronts.clear();
  log::write(log::level::info, "stopped");
  return 0;
}

} // namespace netherscope
