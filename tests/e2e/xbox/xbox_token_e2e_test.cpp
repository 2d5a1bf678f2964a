// The Xbox token actor (actors/xbox_token_actor) over a real LMDB store and the fake Xbox chain
// (tools/fake_xbox) on loopback: the sealed link read and opened, one renewal shared by the
// offers that ask meanwhile, a held token reused, a rotated refresh token stored at once, a
// revoked link turned into the operator's problem without a try per offer, and a link removed
// while the service runs.

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <caf/all.hpp>

#include "actors/xbox_token_actor.hpp"
#include "base/cidr.hpp"
#include "base/crypto.hpp"
#include "storage/xbox_records.hpp"
#include "support/fake_xbox.hpp"
#include "support/process.hpp"
#include "support/redis_server.hpp"
#include "support/store.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace xb = net::xbox;

namespace {

std::int64_t wall_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// The fake chain with short-lived tokens, a store holding a link made through it (LMDB, or a
// real redis-server that replicas share), the chain runner on an io thread, and token actors
// whose clock runs offset_ms ahead.
struct token_rig {
  explicit token_rig(std::vector<std::string> fake_args = {}, bool on_redis = false)
    : fake(std::move(fake_args)), work(asio::make_work_guard(ioc)) {
    io = std::thread([this] { ioc.run(); });
    client = make_chain_client(ioc);
    net::upstream::xbox_chain_settings chain_settings;
    chain_settings.endpoints = fake.endpoints();
    chain_settings.timeout = 10s;
    chain_settings.now_ms = [this] { return wall_ms() + offset_ms.load(); };
    chain = std::make_shared<net::upstream::xbox_chain>(ioc, client, chain_settings);
    key = base::secrets_key::from_bytes(*base::random_bytes(32));
    REQUIRE(key);
    if (on_redis) {
      redis.emplace();
      store = open_redis(redis->url()).store;
    } else {
      store = open_lmdb(dir.path()).store;
    }
    identity = base::generate_ec_key(base::ec_curve::p384);
    REQUIRE(identity);
    spki = *base::public_key_der(*identity);
    cfg.set("scheduler.max-threads", 2);
    system = std::make_unique<caf::actor_system>(cfg);
  }

  ~token_rig() {
    // The system waits for its detached actors, and an actor lives while a handle does.
    if (actor)
      caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
    actor = nullptr;
    for (auto& replica : replicas)
      caf::anon_send_exit(replica, caf::exit_reason::user_shutdown);
    replicas.clear();
    system.reset();
    work.reset();
    ioc.stop();
    io.join();
    client->stop();
  }

  // Links through the fake's device flow, approving at once, and stores the sealed link.
  void link() {
    std::promise<net::upstream::xbox_linking> done;
    auto result = done.get_future();
    chain->link([this](const xb::device_code&) { fake.control({{"device", "approve"}}); },
                [&done](net::upstream::xbox_linking&& r) { done.set_value(std::move(r)); });
    REQUIRE(result.wait_for(30s) == std::future_status::ready);
    auto linking = result.get();
    REQUIRE_FALSE(linking.error);
    auto sealed = base::seal(*key, xb::link_seal_label, xb::encode_link(linking.state.account));
    REQUIRE(sealed);
    in_records(*store, true, [&](storage::record_txn& t) {
      REQUIRE_FALSE(storage::save_xbox_link(t, *sealed));
    });
  }

  std::string stored() {
    std::string sealed;
    in_records(*store, false, [&](storage::record_txn& t) {
      auto found = storage::load_xbox_link(t);
      REQUIRE(found);
      sealed = found->value_or("");
    });
    return sealed;
  }

  actors::xbox_token_settings settings_of(std::chrono::milliseconds retry_after,
                                          std::chrono::milliseconds link_recheck) {
    actors::xbox_token_settings settings;
    settings.store = store;
    settings.key = *key;
    settings.chain = chain;
    settings.identity_spki_der = spki;
    settings.retry_after = retry_after;
    settings.link_recheck = link_recheck;
    settings.now_ms = [this] { return wall_ms() + offset_ms.load(); };
    return settings;
  }

  void start(std::chrono::milliseconds retry_after = 60s,
             std::chrono::milliseconds link_recheck = 0ms) {
    actor = system->spawn<caf::detached>(actors::xbox_token, settings_of(retry_after, link_recheck));
  }

  // Another replica on the Redis store, with connections of its own; returns its index.
  std::size_t start_replica() {
    auto settings = settings_of(60s, 0ms);
    auto own = open_redis(redis->url());
    settings.store = own.store;
    settings.shared = own.shared;
    replicas.push_back(system->spawn<caf::detached>(actors::xbox_token, settings));
    return replicas.size() - 1;
  }

  actors::offer_identity ask() {
    return ask(actor);
  }

  actors::offer_identity ask(const actors::xbox_token_actor& who) {
    caf::scoped_actor self{*system};
    actors::offer_identity result;
    self->request(who, 60s, actors::token_atom::value)
      .receive([&](actors::offer_identity& id) { result = std::move(id); },
               [](caf::error& err) { FAIL("no identity: " << caf::to_string(err)); });
    return result;
  }

  fake_xbox_process fake;
  asio::io_context ioc;
  asio::executor_work_guard<asio::io_context::executor_type> work;
  std::thread io;
  std::shared_ptr<net::upstream::http_client> client;
  std::shared_ptr<net::upstream::xbox_chain> chain;
  std::atomic<std::int64_t> offset_ms{0};
  std::optional<base::secrets_key> key;
  temp_dir dir;
  std::optional<redis_server> redis;
  std::shared_ptr<storage::store> store;
  base::pkey_ptr identity;
  std::string spki;
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> system;
  actors::xbox_token_actor actor;
  std::vector<actors::xbox_token_actor> replicas;
};

} // namespace

TEST_CASE("xbox token e2e: without a link, offers go self-signed", "[xbox][e2e]") {
  token_rig rig;
  rig.start();
  auto id = rig.ask();
  CHECK_FALSE(id.signed_in());
  CHECK(id.link_problem.empty());
  CHECK(rig.fake.stat("refresh") == 0);
}

TEST_CASE("xbox token e2e: a linked account signs offers, one renewal for many",
          "[xbox][e2e]") {
  token_rig rig;
  rig.link();
  rig.start();
  std::vector<std::future<actors::offer_identity>> asked;
  for (int i = 0; i < 4; ++i)
    asked.push_back(std::async(std::launch::async, [&rig] { return rig.ask(); }));
  for (auto& f : asked) {
    auto id = f.get();
    REQUIRE(id.signed_in());
    CHECK(id.gamertag == "Fake Steve");
    CHECK(id.idp_domain == rig.fake.base_url() + "/");
    auto claims = xb::read_game_server_claims(id.game_server_token);
    REQUIRE(claims);
    CHECK(xb::cpk_matches(*claims, rig.spki));
  }
  // However many offers asked at once, the chain ran once.
  CHECK(rig.fake.stat("multiplayer_start") == 1);
  // A token still good is handed out again without asking the services.
  CHECK(rig.ask().signed_in());
  CHECK(rig.fake.stat("multiplayer_start") == 1);
}

TEST_CASE("xbox token e2e: a rotated refresh token is stored at once", "[xbox][e2e]") {
  token_rig rig{{"--rotation", "strict"}};
  rig.link();
  rig.start();
  auto before = rig.stored();
  REQUIRE(rig.ask().signed_in());
  // 70 s later every one-minute token is stale: the renewal starts at the refresh token, which
  // rotates, and the old one no longer works (strict rotation).
  rig.offset_ms = 70000;
  REQUIRE(rig.ask().signed_in());
  CHECK(rig.fake.stat("refresh_rotations") >= 1);
  auto after = rig.stored();
  CHECK(after != before);
  // What is stored opens to the new refresh token: the old one was spent.
  auto opened = base::open_sealed(*rig.key, xb::link_seal_label, after);
  REQUIRE(opened);
  auto link = xb::decode_link(*opened);
  REQUIRE(link);
  auto old = xb::decode_link(*base::open_sealed(*rig.key, xb::link_seal_label, before));
  REQUIRE(old);
  CHECK(link->refresh_token != old->refresh_token);
  CHECK(link->device_id == old->device_id);
}

TEST_CASE("xbox token e2e: a revoked link is the operator's problem, tried once per period",
          "[xbox][e2e]") {
  token_rig rig;
  rig.link();
  rig.start(60s);
  REQUIRE(rig.ask().signed_in());
  rig.fake.control({{"revoke", true}});
  rig.offset_ms = 70000;
  auto id = rig.ask();
  CHECK_FALSE(id.signed_in());
  CHECK(id.link_problem.find("xbox-login") != std::string::npos);
  CHECK(rig.fake.stat("refresh_refused") == 1);
  // Within retry_after the chain is not tried again: the offer goes self-signed at once.
  auto again = rig.ask();
  CHECK_FALSE(again.signed_in());
  CHECK(again.link_problem == id.link_problem);
  CHECK(rig.fake.stat("refresh_refused") == 1);
  // After it, it is.
  rig.offset_ms = 70000 + 61000;
  CHECK_FALSE(rig.ask().signed_in());
  CHECK(rig.fake.stat("refresh_refused") == 2);
}

TEST_CASE("xbox token e2e: xbox-logout and a link under another key take effect at once",
          "[xbox][e2e]") {
  token_rig rig;
  rig.link();
  rig.start(60s, 0ms);
  REQUIRE(rig.ask().signed_in());
  in_records(*rig.store, true, [](storage::record_txn& t) {
    REQUIRE(storage::delete_xbox_link(t));
  });
  auto unlinked = rig.ask();
  CHECK_FALSE(unlinked.signed_in());
  CHECK(unlinked.link_problem.empty());
  // A link sealed under another deployment's key yields no identity, and says why.
  auto other = base::secrets_key::from_bytes(*base::random_bytes(32));
  auto foreign = base::seal(*other, xb::link_seal_label, xb::encode_link({"M.R3_x", "k", "d"}));
  REQUIRE(foreign);
  in_records(*rig.store, true, [&](storage::record_txn& t) {
    REQUIRE_FALSE(storage::save_xbox_link(t, *foreign));
  });
  auto id = rig.ask();
  CHECK_FALSE(id.signed_in());
  CHECK(id.link_problem.find("another secrets key") != std::string::npos);
}

TEST_CASE("xbox token e2e: replicas on Redis share one renewal per expiry", "[xbox][e2e][redis]") {
  token_rig rig{{"--rotation", "strict"}, true};
  rig.link();
  for (int i = 0; i < 3; ++i)
    rig.start_replica();
  auto ask_all = [&rig] {
    std::vector<std::future<actors::offer_identity>> asked;
    for (int round = 0; round < 2; ++round)
      for (auto& replica : rig.replicas)
        asked.push_back(std::async(std::launch::async, [&rig, replica] { return rig.ask(replica); }));
    std::vector<actors::offer_identity> out;
    for (auto& f : asked)
      out.push_back(f.get());
    return out;
  };
  auto first = ask_all();
  for (const auto& id : first) {
    REQUIRE(id.signed_in());
    CHECK(id.game_server_token == first.front().game_server_token);
    CHECK(id.gamertag == "Fake Steve");
  }
  // Six offers on three replicas at once: one chain.
  CHECK(rig.fake.stat("multiplayer_start") == 1);
  CHECK(rig.fake.stat("refresh") == 1);

  // Past the tokens' expiry, one replica renews for all, with the refresh token as it stands
  // after the last rotation (strict rotation refuses a spent one).
  rig.offset_ms = 70000;
  auto second = ask_all();
  for (const auto& id : second) {
    REQUIRE(id.signed_in());
    CHECK(id.game_server_token == second.front().game_server_token);
  }
  CHECK(rig.fake.stat("multiplayer_start") == 2);
  CHECK(rig.fake.stat("refresh_refused") == 0);
  rig.offset_ms = 140000;
  REQUIRE(ask_all().front().signed_in());
  CHECK(rig.fake.stat("multiplayer_start") == 3);
  CHECK(rig.fake.stat("refresh_refused") == 0);

  // What the replicas share is sealed: no token, no gamertag in Redis.
  auto own = open_redis(rig.redis->url());
  auto shared = own.shared->get_value("xbox-tokens");
  REQUIRE(shared);
  REQUIRE(*shared);
  CHECK((*shared)->find("eyJ") == std::string::npos);
  CHECK((*shared)->find("Fake Steve") == std::string::npos);
}

TEST_CASE("xbox token e2e: a replica waits while another holds the renewal lease",
          "[xbox][e2e][redis]") {
  token_rig rig{{}, true};
  rig.link();
  auto other = open_redis(rig.redis->url());
  REQUIRE(*other.shared->take_lease("xbox-renewal", "another replica", 60s));
  auto replica = rig.replicas.at(rig.start_replica());
  auto asked = std::async(std::launch::async, [&rig, replica] { return rig.ask(replica); });
  // While the lease is held elsewhere, this replica runs no chain of its own.
  CHECK(asked.wait_for(1s) == std::future_status::timeout);
  CHECK(rig.fake.stat("refresh") == 0);
  // The holder gives up without sharing tokens: the waiting replica takes the lease and renews.
  REQUIRE_FALSE(other.shared->release_lease("xbox-renewal", "another replica"));
  auto id = asked.get();
  CHECK(id.signed_in());
  CHECK(rig.fake.stat("multiplayer_start") == 1);
}
