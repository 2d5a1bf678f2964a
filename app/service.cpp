#include "app/service.hpp"

#include <ctime>
#include <sys/resource.h>
#include <unistd.h>
#include <functional>
#include <optional>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/object.hpp>
#include <caf/all.hpp>

#include "actors/auth_actor.hpp"
#include "actors/cache_actor.hpp"
#include "actors/edge_bridge.hpp"
#include "actors/front_actor.hpp"
#include "actors/history_actor.hpp"
#include "actors/keys_actor.hpp"
#include "actors/offer_gate.hpp"
#include "actors/quota_actor.hpp"
#include "actors/probe_registry.hpp"
#include "actors/target_memory_actor.hpp"
#include "actors/webhook_actor.hpp"
#include "actors/xbox_token_actor.hpp"
#include "base/log.hpp"
#include "net/upstream/http_client.hpp"
#include "net/upstream/udp_exchange.hpp"
#include "net/upstream/ice_check.hpp"
#include "net/upstream/join_runner.hpp"
#include "net/upstream/oauth.hpp"
#include "net/upstream/xbox_chain.hpp"
#include "net/http/listener.hpp"
#include "net/http/reply_inbox.hpp"
#include "net/http/signin.hpp"
#include "app/identity.hpp"
#include "app/secrets_key.hpp"
#include "app/settings.hpp"
#include "base/sealed.hpp"
#include "storage/open.hpp"
#include "storage/redis_url.hpp"

namespace netherscope::app {

namespace http = net::http;
namespace nethernet = net::nethernet;
namespace upstream = net::upstream;

namespace {

namespace asio = boost::asio;

/// How long the 503s for calls abandoned at the end of the grace period get to be written
/// before the io threads stop: each is one small write on a connection that was waiting.
constexpr std::chrono::milliseconds abandoned_reply_flush{1000};

/// Ends the service gracefully: on SIGTERM first turn /readyz to 503 and keep serving for the
/// drain period, so a load balancer's health check sees it and sends no more; then stop
/// accepting, let in-flight calls finish, answer the ones still waiting when the grace period
/// ends with 503, then stop. SIGINT (a terminal's ^C) skips the drain period.
class shutdown_sequence : public std::enable_shared_from_this<shutdown_sequence> {
public:
  shutdown_sequence(asio::io_context& ioc, std::function<void()> stop_all,
                    std::shared_ptr<http::listener> lst, http::server_context& ctx,
                    std::chrono::milliseconds drain, std::chrono::milliseconds grace)
    : stop_all_(std::move(stop_all)), listener_(std::move(lst)), ctx_(ctx), drain_(drain),
      grace_(grace), signals_(ioc), timer_(ioc) {
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
    auto drain = sig == SIGTERM ? drain_ : std::chrono::milliseconds{0};
    base::log::write(base::log::level::info, "shutdown",
               {{"signal", sig == SIGINT ? "SIGINT" : "SIGTERM"},
                {"in_flight", ctx_.in_flight.load()},
                {"drain_ms", drain.count()},
                {"grace_ms", grace_.count()}});
    // A second signal means "now".
    signals_.async_wait([self = shared_from_this()](boost::system::error_code ec, int) {
      if (!ec)
        self->stop_all_();
    });
    if (drain.count() == 0)
      return stop_accepting();
    ctx_.begin_leaving();
    timer_.expires_after(drain);
    timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (ec)
        return;
      base::log::write(base::log::level::info, "shutdown_drained",
                       {{"in_flight", self->ctx_.in_flight.load()}});
      self->stop_accepting();
    });
  }

  void stop_accepting() {
    listener_->stop();
    ctx_.begin_draining();
    deadline_ = std::chrono::steady_clock::now() + grace_;
    poll();
  }

  // Polling a counter every few milliseconds is simpler than having every session report
  // its end, and shutdown is not a hot path. A call counts as in flight until its response
  // is written, so zero means every client has its answer.
  void poll() {
    auto now = std::chrono::steady_clock::now();
    if (ctx_.in_flight.load() == 0)
      return stop_all_();
    if (now >= deadline_ && !abandoned_) {
      // The calls still with the actors are answered 503 now, on this thread; the sessions
      // write those answers on their own threads, which keep running a little longer.
      abandoned_ = true;
      auto answered = ctx_.pending.abandon_all();
      base::log::write(base::log::level::warn, "shutdown_abandoned",
                 {{"in_flight", ctx_.in_flight.load()}, {"answered_503", answered}});
      deadline_ = now + abandoned_reply_flush;
    } else if (now >= deadline_) {
      // Clients too slow to take even a 503 are closed bare.
      base::log::write(base::log::level::warn, "shutdown_unflushed", {{"in_flight", ctx_.in_flight.load()}});
      return stop_all_();
    }
    timer_.expires_after(std::chrono::milliseconds(10));
    timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (!ec)
        self->poll();
    });
  }

  std::function<void()> stop_all_;
  std::shared_ptr<http::listener> listener_;
  http::server_context& ctx_;
  std::chrono::milliseconds drain_;
  std::chrono::milliseconds grace_;
  asio::signal_set signals_;
  asio::steady_timer timer_;
  std::chrono::steady_clock::time_point deadline_;
  bool abandoned_ = false;
};

/// The io_contexts the service runs, one thread each: the main one holds the listener and the
/// signals, and every serving context (the main one included) serves its share of the
/// connections. The clients to targets, providers and webhook receivers run on a context of
/// their own, so that the work an answer from outside costs (parsing an SDP answer, verifying
/// its identity signature) never holds up a caller's connection.
struct io_pool {
  explicit io_pool(unsigned threads) {
    for (unsigned i = 1; i < threads; ++i) {
      extra.push_back(std::make_unique<asio::io_context>(1));
      // A context with no connection yet must not return from run() at once.
      guards.push_back(asio::make_work_guard(*extra.back()));
    }
    guards.push_back(asio::make_work_guard(upstream));
  }

  /// Every serving context, the main one first.
  std::vector<asio::io_context*> all() {
    std::vector<asio::io_context*> out{&main};
    for (auto& c : extra)
      out.push_back(c.get());
    return out;
  }

  /// Stops every context; their threads return from run().
  void stop_all() {
    for (auto* c : all())
      c->stop();
    upstream.stop();
  }

  /// The clients' context: declared first, so destroyed last, after the clients and the
  /// actors that hold them.
  asio::io_context upstream{1};
  std::vector<std::unique_ptr<asio::io_context>> extra;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards;
  // Declared last, so destroyed first: the listener's accept still pending on it holds a
  // socket on a strand of one of the extra contexts, and abandoning it touches that strand,
  // which must still exist (TSan saw the reverse order use a destroyed strand's mutex).
  asio::io_context main{1};
};

// -- the steps of run_service, in the order it takes them --

/// Logs why the service cannot start; run_service then returns 1.
void startup_failed(const std::string& error) {
  base::log::write(base::log::level::error, "startup_failed", {{"error", error}});
}

/// Opens the store --data-dir or --store names, creating --data-dir when missing.
std::optional<storage::opened> open_store(const config& cfg) {
  auto opened = storage::open(store_options_of(cfg));
  if (!opened) {
    startup_failed(storage::message_of(opened.error()));
    return std::nullopt;
  }
  if (!cfg.store_url.empty())
    base::log::write(base::log::level::info, "store",
               {{"backend", "redis"},
                {"url", storage::redacted_store_url(cfg.store_url)},
                {"min_replicas",
                 std::to_string(cfg.store_min_replicas.value_or(
                   storage::default_min_replicas(cfg.store_url)))}});
  return std::move(*opened);
}

/// Settles which secrets key file the service reads (app/secrets_key): on the embedded store
/// without --secrets-key-file, the data directory's, made on the first start and said so once.
/// False when that key cannot be made or read.
bool use_secrets_key_file(config& cfg) {
  auto choice = choose_secrets_key_file(cfg.secrets_key_file, cfg.store_url, cfg.data_dir, true);
  if (!choice.error.empty()) {
    startup_failed("secrets key: " + choice.error);
    return false;
  }
  if (choice.created)
    base::log::write(base::log::level::info, "secrets_key_created",
                     {{"path", choice.path},
                      {"advice", "it seals the webhooks' secrets and the Xbox link: keep a copy "
                                 "apart from the data directory, and in production give "
                                 "--secrets-key-file from your secret store instead"}});
  if (choice.path.empty()) {
    base::log::write(base::log::level::warn, "secrets_key_missing",
                     {{"effect", "no webhooks and no Xbox link: on Redis every replica must be "
                                 "given the same --secrets-key-file"}});
    return true;
  }
  if (cfg.secrets_key_file.empty()) {
    // The data directory's key is read here, as options.cpp reads a given one.
    auto loaded = base::load_secrets_key(choice.path);
    if (!loaded.key) {
      startup_failed("secrets key: " + loaded.error);
      return false;
    }
  }
  cfg.secrets_key_file = choice.path;
  return true;
}

/// What the store keeps besides counters and accounts, made on the first start.
struct stored_secrets {
  /// Signs sign-in states; shared by replicas on the same store.
  std::string state_key;
  std::shared_ptr<const nethernet::local_identity> identity;
};

/// Loads the sign-in state key and our NetherNet identity, making them when missing; error
/// says why not.
std::optional<stored_secrets> try_load_secrets(const storage::opened& opened, std::string& error) {
  auto state_key = storage::load_or_create_secret(*opened.store, "oauth_state_key", 32);
  if (!state_key) {
    error = caf::to_string(state_key.error());
    return std::nullopt;
  }
  auto identity = app::load_or_create_identity(*opened.store, std::time(nullptr));
  if (!identity) {
    error = "identity: " + caf::to_string(identity.error());
    return std::nullopt;
  }
  base::log::write(base::log::level::info, "identity", {{"fingerprint", (*identity)->fingerprint}});
  return stored_secrets{std::move(*state_key), std::move(*identity)};
}

/// As try_load_secrets, asking a store that refuses again, three times in all, a second
/// apart: a service started beside its Redis may find a replica still catching up, which
/// acknowledges the writes (--store-min-replicas) a moment later. Both are idempotent: a
/// second try loads what the first one wrote.
std::optional<stored_secrets> load_secrets(const storage::opened& opened) {
  constexpr int attempts = 3;
  for (int attempt = 1;; ++attempt) {
    std::string error;
    if (auto secrets = try_load_secrets(opened, error))
      return secrets;
    if (attempt == attempts) {
      startup_failed(error);
      return std::nullopt;
    }
    base::log::write(base::log::level::warn, "startup_retry",
                     {{"error", error}, {"attempt", attempt}});
    std::this_thread::sleep_for(std::chrono::seconds{1});
  }
}

/// Warns when only half of the sign-in credentials are set, which leaves sign-in off.
void check_signin_credentials(const config& cfg) {
  if (cfg.github_client_id.empty() != cfg.github_client_secret.empty())
    base::log::write(base::log::level::warn, "signin_disabled",
               {{"reason", "set both --github-client-id and NETHERSCOPE_GITHUB_CLIENT_SECRET"}});
}

/// Each connection is a descriptor, and so is each fetch: raises the soft open-files limit as
/// far as allowed, and keeps connections within half of it, leaving room for fetches and the
/// store.
void fit_connections_to_file_limit(http::server_settings& server_cfg) {
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) != 0)
    return;
  files.rlim_cur = files.rlim_max;
  setrlimit(RLIMIT_NOFILE, &files);
  getrlimit(RLIMIT_NOFILE, &files);
  auto room = files.rlim_cur > 256 ? static_cast<std::size_t>(files.rlim_cur / 2) : 64;
  if (server_cfg.max_connections > room) {
    base::log::write(base::log::level::warn, "max_connections_lowered",
               {{"asked", server_cfg.max_connections},
                {"now", room},
                {"reason", "half the open-files limit, the rest for fetches"}});
    server_cfg.max_connections = room;
  }
}

/// The HTTP server's settings, with as many connections as the open-files limit allows.
http::server_settings make_server_settings(const config& cfg) {
  auto server_cfg = server_settings_of(cfg);
  fit_connections_to_file_limit(server_cfg);
  return server_cfg;
}

/// The two HTTP clients: one to the targets strangers name, one to the sign-in provider.
struct upstream_clients {
  std::shared_ptr<upstream::http_client> targets;
  std::shared_ptr<upstream::http_client> provider;
  /// Connectivity checks toward answers' candidates, under the targets' address policy.
  std::shared_ptr<upstream::ice_checker> checks;
  /// RakNet status pings, under the same policy, with their own resolver.
  std::shared_ptr<upstream::dns_resolver> ping_resolver;
  std::shared_ptr<upstream::udp_exchanger> pings;
  /// The Xbox sign-in chain's own client and runner; null without --secrets-key-file.
  std::shared_ptr<upstream::http_client> xbox;
  std::shared_ptr<upstream::xbox_chain> chain;
  /// Webhook deliveries, under the targets' address policy.
  std::shared_ptr<upstream::http_client> webhooks;
  /// The join workers (POST /api/join), started from this io_context.
  std::shared_ptr<upstream::join_runner> joins;
};

/// Makes both clients on ioc; they fail only when the TLS set-up does (a bad CA file).
std::optional<upstream_clients> make_clients(asio::io_context& ioc, const config& cfg) {
  std::string error;
  auto client = upstream::http_client::make(ioc, target_client_settings_of(cfg), error);
  if (!client) {
    startup_failed(error);
    return std::nullopt;
  }
  auto provider_client = upstream::http_client::make(ioc, provider_client_settings_of(cfg), error);
  if (!provider_client) {
    startup_failed(error);
    return std::nullopt;
  }
  auto checks = std::make_shared<upstream::ice_checker>(ioc, target_policy_of(cfg));
  auto resolver = upstream::dns_resolver::make(ioc, dns_settings_of(cfg), error);
  if (!resolver) {
    startup_failed(error);
    return std::nullopt;
  }
  auto pings = std::make_shared<upstream::udp_exchanger>(ioc, resolver, target_policy_of(cfg));
  upstream_clients made{std::move(client), std::move(provider_client), std::move(checks),
                        std::move(resolver), std::move(pings), nullptr, nullptr, nullptr, nullptr};
  auto joins = join_runner_settings_of(cfg);
  if (::access(joins.worker_path.c_str(), X_OK) != 0)
    base::log::write(base::log::level::warn, "join_worker_missing",
                     {{"path", joins.worker_path},
                      {"effect", "every join fails until --join-worker names the worker"}});
  made.joins = std::make_shared<upstream::join_runner>(ioc, std::move(joins));
  made.webhooks = upstream::http_client::make(ioc, webhook_client_settings_of(cfg), error);
  if (!made.webhooks) {
    startup_failed(error);
    return std::nullopt;
  }
  if (!cfg.secrets_key_file.empty()) {
    made.xbox = upstream::http_client::make(ioc, xbox_client_settings_of(cfg), error);
    if (!made.xbox) {
      startup_failed(error);
      return std::nullopt;
    }
    made.chain = std::make_shared<upstream::xbox_chain>(ioc, made.xbox, xbox_chain_settings_of(cfg));
  }
  return made;
}

/// Binds the listening socket; null when the address is not an IP address or is taken.
std::shared_ptr<http::listener> open_listener(io_pool& pool, http::server_context& ctx,
                                             const config& cfg) {
  auto& ioc = pool.main;
  boost::system::error_code ec;
  auto address = asio::ip::make_address(cfg.listen_address, ec);
  if (ec) {
    startup_failed("--listen '" + cfg.listen_address + "' is not an IP address");
    return nullptr;
  }
  auto lst = std::make_shared<http::listener>(
    ioc, asio::ip::tcp::endpoint{address, cfg.port}, ctx, ec, pool.all());
  if (ec) {
    startup_failed("cannot listen on " + cfg.listen_address + ":" + std::to_string(cfg.port)
                   + ": " + ec.message());
    return nullptr;
  }
  return lst;
}

/// The long-lived actors: the peers every front talks to, the fronts calls are dealt to, and
/// the memory the probes share.
struct service_actors {
  actors::front_peers peers;
  std::vector<actors::front_actor> fronts;
  actors::memory_actor memory;
  /// The per-target offer limit replicas share; none unless the store is shared across hosts.
  actors::offer_gate_actor gate;
  /// The linked Xbox account's tokens; none without --secrets-key-file.
  actors::xbox_token_actor tokens;
  /// The cache's fresh answers for the bridges' cache-hit path, one board per io_context
  /// in the listener's order (actors/hit_board.hpp).
  std::vector<std::shared_ptr<actors::hit_board>> boards;
  /// Runs the watched servers' checks.
  actors::watch_scheduler_actor scheduler;
};

/// Makes one hit board per io_context, and the publisher that hands the cache actor's
/// updates to each through its context's reply inbox: each board is then written, as it is
/// read, only on its own io thread.
actors::board_publisher make_boards(const std::vector<asio::io_context*>& contexts,
                            const actors::cache_settings& cache_cfg,
                            std::vector<std::shared_ptr<actors::hit_board>>& boards) {
  std::vector<std::pair<http::reply_inbox*, std::shared_ptr<actors::hit_board>>> copies;
  for (auto* context : contexts) {
    boards.push_back(std::make_shared<actors::hit_board>(cache_cfg.limits, cache_cfg.now));
    copies.emplace_back(&asio::use_service<http::reply_inbox>(*context), boards.back());
  }
  return [copies = std::move(copies)](actors::board_update update) {
    for (auto& [inbox, board] : copies)
      inbox->push([board = board, update] { board->apply(update); });
  };
}

/// What every probe shares.
actors::probe_deps make_probe_deps(const config& cfg, const upstream_clients& clients,
                           const stored_secrets& secrets, actors::memory_actor memory,
                           actors::offer_gate_actor gate, actors::xbox_token_actor tokens) {
  actors::probe_deps deps;
  deps.settings = probe_settings_of(cfg);
  deps.memory = std::move(memory);
  // The client counts offers against the per-target limit (net/upstream/offer_limiter), and
  // on a store shared across hosts asks the gate every replica shares after its own limit.
  if (gate)
    clients.targets->share_offer_gate(actors::gate_through(std::move(gate)));
  deps.client = clients.targets;
  deps.checker = clients.checks;
  deps.pinger = clients.pings;
  deps.joiner = clients.joins;
  deps.join_policy = target_policy_of(cfg);
  deps.identity = secrets.identity;
  deps.attributes = std::make_shared<nethernet::identity_attributes>();
  deps.tokens = std::move(tokens);
  return deps;
}

/// Spawns every long-lived actor, the peers first and then one front per actor thread.
service_actors spawn_actors(caf::actor_system& system, const config& cfg,
                            const storage::opened& opened, const stored_secrets& secrets,
                            const upstream_clients& clients,
                            const std::vector<asio::io_context*>& contexts) {
  service_actors actors;
  auto& peers = actors.peers;
  auto unix_now = []() -> std::int64_t { return std::time(nullptr); };
  // Read once: it seals the Xbox link and the webhooks' secrets.
  auto secrets_key = secrets_key_of(cfg);
  // Detached, as the quota actor: its writes wait for the disk and for other writers.
  actors::memory_settings memory_cfg;
  memory_cfg.now = unix_now;
  memory_cfg.store = opened.store;
  actors.memory = system.spawn<caf::detached>(actors::memory, std::move(memory_cfg));
  if (opened.shared) {
    // Detached: each start is a round trip to Redis. A mark lives as long as a fetch may.
    actors.gate = system.spawn<caf::detached>(actors::offer_gate, opened.shared,
                                              gate_settings_of(cfg));
  }
  if (clients.chain) {
    // Detached: it reads the link from the store and writes rotated ones back.
    actors::xbox_token_settings tokens_cfg;
    tokens_cfg.key = secrets_key;
    tokens_cfg.store = opened.store;
    tokens_cfg.shared = opened.shared;
    tokens_cfg.chain = clients.chain;
    tokens_cfg.identity_spki_der
      = base::public_key_der(*secrets.identity->identity_key).value_or("");
    actors.tokens = system.spawn<caf::detached>(actors::xbox_token, std::move(tokens_cfg));
  }
  peers.registry = system.spawn(actors::probe_registry,
                                make_probe_deps(cfg, clients, secrets, actors.memory, actors.gate,
                                                actors.tokens));
  auto cache_cfg = cache_settings_of(cfg);
  cache_cfg.shared = opened.shared;
  cache_cfg.publish_hits = make_boards(contexts, cache_cfg, actors.boards);
  peers.cache = system.spawn(actors::cache, peers.registry, std::move(cache_cfg));
  // Detached: a commit waits for the disk, and that must not stall the scheduler's workers.
  auto quota_cfg = quota_settings_of(cfg);
  quota_cfg.now = unix_now;
  peers.quotas = system.spawn<caf::detached>(actors::quota_on, opened.store, std::move(quota_cfg));
  auto keys_cfg = keys_settings_of(cfg);
  keys_cfg.now = unix_now;
  peers.accounts = system.spawn<caf::detached>(actors::keys, opened.store, std::move(keys_cfg));
  peers.signin = system.spawn(actors::auth, oauth_settings_of(cfg), clients.provider);
  auto watch_cfg = watch_settings_of(cfg);
  watch_cfg.now = unix_now;
  watch_cfg.secrets = secrets_key;
  peers.watches = system.spawn<caf::detached>(actors::watches, opened.store, std::move(watch_cfg));
  auto unix_now_ms = []() -> std::int64_t {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
  };
  // Detached: it reads the webhooks and writes their state in the store.
  auto webhook_cfg = webhook_settings_of(cfg);
  webhook_cfg.store = opened.store;
  webhook_cfg.watching = opened.watching;
  webhook_cfg.client = clients.webhooks;
  webhook_cfg.secrets = secrets_key;
  webhook_cfg.now = unix_now;
  peers.webhooks = system.spawn<caf::detached>(actors::webhooks, std::move(webhook_cfg));
  // Detached: every schedule claim and history write waits for the store.
  peers.history = system.spawn<caf::detached>(actors::history, opened.store, opened.watching,
                                              unix_now_ms, peers.webhooks);
  auto scheduler_cfg = scheduler_settings_of(cfg);
  scheduler_cfg.now_ms = unix_now_ms;
  actors.scheduler = system.spawn(actors::watch_scheduler,
                                  actors::scheduler_peers{peers.registry, peers.history},
                                  std::move(scheduler_cfg));
  auto front_cfg = front_settings_of(cfg);
  front_cfg.state_key = secrets.state_key;
  for (unsigned i = 0; i < cfg.actor_threads; ++i)
    actors.fronts.push_back(system.spawn(actors::front, peers, front_cfg));
  return actors;
}

/// Serves on cfg.io_threads threads, this one included (one per serving io_context), and the
/// clients' thread, until the shutdown sequence that a signal starts stops every context.
void serve(io_pool& pool, const std::shared_ptr<http::listener>& lst, http::server_context& ctx,
           const config& cfg) {
  lst->run();
  auto bound = lst->local_endpoint();
  std::make_shared<shutdown_sequence>(pool.main, [&pool] { pool.stop_all(); }, lst, ctx,
                                      cfg.shutdown_drain, cfg.shutdown_grace)
    ->arm();
  base::log::write(base::log::level::info, "listening",
             {{"address", bound.address().to_string()},
              {"port", bound.port()},
              {"io_threads", cfg.io_threads},
              {"actor_threads", cfg.actor_threads},
              {"data_dir", cfg.data_dir}});
  std::vector<std::thread> threads;
  for (auto& context : pool.extra)
    threads.emplace_back([c = context.get()] { c->run(); });
  threads.emplace_back([&pool] { pool.upstream.run(); });
  pool.main.run();
  for (auto& t : threads)
    t.join();
}

/// Tells the long-lived actors to exit, since they end only when told; the actor system waits
/// for them on destruction.
void stop_actors(http::server_context& ctx, service_actors& actors) {
  ctx.set_call_sinks({});
  for (auto& f : actors.fronts)
    caf::anon_send_exit(f, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(actors.peers.cache, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(actors.peers.quotas, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(actors.peers.accounts, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(actors.peers.signin, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(actors.peers.watches, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(actors.scheduler, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(actors.peers.history, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(actors.peers.webhooks, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(actors.peers.registry, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(actors.memory, caf::exit_reason::user_shutdown);
  if (actors.tokens)
    caf::anon_send_exit(actors.tokens, caf::exit_reason::user_shutdown);
  if (actors.gate)
    caf::anon_send_exit(actors.gate, caf::exit_reason::user_shutdown);
  actors.fronts.clear();
}

} // namespace

int run_service(const config& given) {
  base::log::set_level(given.log_level);
  config cfg = given;
  auto opened = open_store(cfg);
  if (!opened)
    return 1;
  if (!use_secrets_key_file(cfg))
    return 1;
  auto secrets = load_secrets(*opened);
  if (!secrets)
    return 1;
  check_signin_credentials(cfg);

  // The order of these declarations is their order of destruction in reverse, and it
  // matters: sessions (owned by pending handlers of the io_context and by reply callbacks
  // inside actors) use the server context, so it is made first and destroyed last; the
  // actor system goes first, releasing every callback while sockets can still close.
  http::server_context ctx{make_server_settings(cfg), openapi_document};
  io_pool pool{cfg.io_threads};
  auto clients = make_clients(pool.upstream, cfg);
  if (!clients)
    return 1;
  auto lst = open_listener(pool, ctx, cfg);
  if (!lst)
    return 1;
  // The actor system keeps a reference to its configuration, so both live here.
  caf::actor_system_config caf_cfg;
  caf_cfg.set("scheduler.max-threads", static_cast<std::size_t>(cfg.actor_threads));
  caf_cfg.set("scheduler.policy", caf::atom_from_string(cfg.actor_scheduler));
  caf::actor_system system{caf_cfg};
  auto actors = spawn_actors(system, cfg, *opened, *secrets, *clients, pool.all());
  // One sink per io_context, each with that context's board, as the listener deals
  // connections to them; the quota actor's leases reach each through its context's inbox.
  std::vector<core::call_sink> sinks;
  auto contexts = pool.all();
  for (std::size_t i = 0; i < actors.boards.size(); ++i) {
    auto* inbox = &asio::use_service<http::reply_inbox>(*contexts[i]);
    actors::hit_path hits{actors.boards[i], actors.peers.quotas,
                          [inbox](std::function<void()> work) { inbox->push(std::move(work)); },
                          [] { return static_cast<std::int64_t>(std::time(nullptr)); }};
    sinks.push_back(actors::make_edge_bridge(actors.fronts, std::move(hits)));
  }
  ctx.set_call_sinks(std::move(sinks));

  serve(pool, lst, ctx, cfg);
  clients->targets->stop();
  clients->provider->stop();
  clients->webhooks->stop();
  if (clients->xbox)
    clients->xbox->stop();
  clients->ping_resolver->stop();
  stop_actors(ctx, actors);
  base::log::write(base::log::level::info, "stopped");
  return 0;
}

} // namespace netherscope::app
