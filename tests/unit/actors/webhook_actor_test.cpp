// The webhook actor with real parts: an LMDB store in a temp dir, the service's HTTP client
// on an io thread, and a real receiver on 127.0.0.1. An alert (as the scheduler will send
// it) reaches the webhooks of the target's watches made before the previous check, signed;
// a receiver that fails is retried, then its webhook is marked failing, and a later delivery
// marks it ok; a test is tried once, and a redirect is a failure, never followed.
#include <catch2/catch.hpp>

#include <atomic>
#include <ctime>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>
#include <caf/all.hpp>

#include "actors/watch_actor.hpp"
#include "actors/webhook_actor.hpp"
#include "core/api_key.hpp"
#include "core/webhook_signature.hpp"
#include "base/text.hpp"
#include "storage/accounts.hpp"
#include "support/history_rows.hpp"
#include "support/loopback_client.hpp"
#include "support/process.hpp"
#include "support/store.hpp"
#include "support/fake_discord.hpp"
#include "support/wait.hpp"
#include "support/webhook_receiver.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

namespace asio = boost::asio;

/// The watch actor (to make watches and webhooks and list them, as the routes do) and the
/// webhook actor, over one store, with a receiver to deliver to.
class webhook_rig {
public:
  explicit webhook_rig(std::int64_t retry_for = 600) : guard_(asio::make_work_guard(ioc_)) {
    auto opened = test::open_lmdb(dir_.path());
    store_ = opened.store;
    watching_ = opened.watching;
    in_records(*store_, true, [&](storage::record_txn& t) {
      auto issued = storage::issue_key(t, 501, "alice", std::time(nullptr));
      REQUIRE(issued);
      key_hash_ = core::hash_api_key(issued->key);
      auto second = storage::issue_key(t, 502, "bob", std::time(nullptr));
      REQUIRE(second);
      second_key_hash_ = core::hash_api_key(second->key);
    });
    auto loopback = upstream::address_policy{{*base::parse_cidr("127.0.0.0/8"),
                                              *base::parse_cidr("::1/128")},
                                             {}};
    client_ = loopback_client(ioc_);
    io_ = std::thread([this] { ioc_.run(); });

    cfg_.set("scheduler.max-threads", 2);
    system_.emplace(cfg_);
    auto key = base::secrets_key::from_bytes(std::string(32, 's'));
    actors::watch_settings watch_cfg;
    watch_cfg.policy = loopback;
    watch_cfg.allow_loopback = true;
    watch_cfg.secrets = key;
    watch_cfg.now = [this] { return watch_clock.load(); };
    watches_ = system_->spawn<caf::detached>(actors::watches, store_, watch_cfg);
    actors::webhook_settings hook_cfg;
    hook_cfg.store = store_;
    hook_cfg.watching = watching_;
    hook_cfg.public_base_url = "https://netherscope.example";
    hook_cfg.client = client_;
    hook_cfg.secrets = key;
    hook_cfg.allow_loopback = true;
    hook_cfg.retries.retry_for = retry_for;
    hook_cfg.now = [] { return static_cast<std::int64_t>(std::time(nullptr)); };
    hooks_ = system_->spawn<caf::detached>(actors::webhooks, hook_cfg);
  }

  ~webhook_rig() {
    caf::anon_send_exit(hooks_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(watches_, caf::exit_reason::user_shutdown);
    guard_.reset();
    ioc_.stop();
    io_.join();
    client_->stop();
    // A detached actor's thread ends once the actor is destroyed: no handle may outlive this.
    hooks_ = nullptr;
    watches_ = nullptr;
    system_.reset();
  }

  /// When the watch actor makes watches: an hour ago unless a test moves it.
  std::atomic<std::int64_t> watch_clock{static_cast<std::int64_t>(std::time(nullptr)) - 3600};

  /// Asks the watch actor, as a route would with an account's API key (the first account's,
  /// or the second's).
  core::watch_answer ask(actors::watch_command cmd, bool second_account = false) {
    cmd.key_hash = second_account ? second_key_hash_ : key_hash_;
    core::watch_answer out;
    caf::scoped_actor self{*system_};
    self->request(watches_, std::chrono::seconds(10), actors::watch_atom::value, cmd)
      .receive([&](core::watch_answer& a) { out = std::move(a); },
               [&](caf::error& err) { FAIL(caf::to_string(err)); });
    return out;
  }

  /// A new watch of host and port; its id.
  std::string watch(const std::string& host, std::uint16_t port, bool second_account = false) {
    actors::watch_command cmd;
    cmd.action = actors::watch_action::create;
    cmd.spec.host = host;
    cmd.spec.port = port;
    auto made = ask(cmd, second_account);
    REQUIRE(made.error.ok());
    return made.watches.front().id;
  }

  /// A new webhook of the watch; its view and secret.
  std::pair<core::webhook_view, std::string> webhook(const std::string& watch_id,
                                                    const std::string& url,
                                                    core::webhook_format format
                                                    = core::webhook_format::json,
                                                    bool second_account = false) {
    actors::watch_command cmd;
    cmd.action = actors::watch_action::add_webhook;
    cmd.id = watch_id;
    cmd.webhook.url = url;
    cmd.webhook.format = format;
    auto made = ask(cmd, second_account);
    INFO(made.error.message);
    REQUIRE(made.error.ok());
    return {made.watches.front().webhooks.front(), made.secret};
  }

  /// The webhook as the account's list shows it.
  core::webhook_view listed(const std::string& watch_id, const std::string& webhook_id) {
    actors::watch_command cmd;
    cmd.action = actors::watch_action::list;
    for (auto& w : ask(cmd).watches)
      for (auto& h : w.webhooks)
        if (w.id == watch_id && h.id == webhook_id)
          return h;
    FAIL("no webhook " << webhook_id);
    return {};
  }

  /// Waits, at most 30 s, until the listed webhook is failing or not.
  bool wait_for_state(const std::string& watch_id, const std::string& webhook_id, bool failing) {
    for (int i = 0; i < 300; ++i) {
      if (listed(watch_id, webhook_id).failing == failing)
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  /// The history the webhook actor reads a test's latest check from.
  storage::watch_store& watching() {
    return *watching_;
  }

  void alert(const core::watch_alert& a) {
    caf::anon_send(hooks_, actors::alert_atom::value, a);
  }

  core::webhook_delivery test(const std::string& watch_id, const std::string& webhook_id) {
    core::webhook_delivery out;
    caf::scoped_actor self{*system_};
    self->request(hooks_, std::chrono::seconds(20), actors::test_atom::value, watch_id, webhook_id)
      .receive([&](core::webhook_delivery& d) { out = std::move(d); },
               [&](caf::error& err) { FAIL(caf::to_string(err)); });
    return out;
  }

private:
  test::temp_dir dir_;
  std::shared_ptr<storage::store> store_;
  std::shared_ptr<storage::watch_store> watching_;
  std::string key_hash_;
  std::string second_key_hash_;
  asio::io_context ioc_{1};
  asio::executor_work_guard<asio::io_context::executor_type> guard_;
  std::shared_ptr<upstream::http_client> client_;
  std::thread io_;
  caf::actor_system_config cfg_;
  std::optional<caf::actor_system> system_;
  actors::watch_actor watches_;
  actors::webhook_actor hooks_;
};

/// An alert of host:port: joinable a minute ago (previous_at), offline now.
core::watch_alert offline_alert(const std::string& host, std::uint16_t port,
                              std::int64_t previous_at) {
  core::watch_alert a;
  a.host = host;
  a.port = port;
  a.previous = check_row(previous_at, core::verdict_code::joinable, 3, 10);
  a.current = check_row(previous_at + 60, core::verdict_code::offline);
  a.changes = *core::change_between(a.previous, a.current);
  return a;
}

std::vector<received_webhook> received_at_path(const webhook_receiver& receiver, const std::string& path) {
  std::vector<received_webhook> out;
  for (auto& r : receiver.received())
    if (r.target == path)
      out.push_back(r);
  return out;
}

} // namespace

TEST_CASE("webhook actor: an alert reaches the webhooks of the target's watches made before "
          "the previous check, signed",
          "[webhook][actors]") {
  webhook_receiver receiver;
  webhook_rig rig;
  auto a = rig.watch("play.example.com", 19132);
  auto [json_hook, json_secret] = rig.webhook(a, receiver.url("/a"));
  auto [discord_hook, discord_secret] =
    rig.webhook(a, receiver.url("/a-discord"), core::webhook_format::discord);
  auto other = rig.watch("play.example.com", 19133);
  rig.webhook(other, receiver.url("/other-port"));
  auto now = static_cast<std::int64_t>(std::time(nullptr));
  // A watch made after the previous check has not seen it: no alert for it.
  rig.watch_clock = now;
  auto late = rig.watch("play.example.com", 19132, true);
  rig.webhook(late, receiver.url("/late"), core::webhook_format::json, true);

  rig.alert(offline_alert("play.example.com", 19132, now - 60));
  REQUIRE(receiver.wait_for(2, std::chrono::seconds(30)));
  // A test carries the server's latest stored check.
  auto latest = check_row(now - 30, core::verdict_code::offline);
  REQUIRE(rig.watching().record_check("play.example.com|19132", latest, core::budget_for(60)));
  // A test sent after the alert is tried after every delivery the alert started.
  CHECK(rig.test(a, json_hook.id).delivered());
  REQUIRE(receiver.wait_for(3, std::chrono::seconds(30)));
  CHECK(received_at_path(receiver, "/late").empty());
  CHECK(received_at_path(receiver, "/other-port").empty());

  auto json_sent = received_at_path(receiver, "/a");
  REQUIRE(json_sent.size() == 2);
  auto& change = json_sent.front();
  CHECK(change.method == "POST");
  CHECK(change.content_type == "application/json");
  auto body = boost::json::parse(change.body);
  CHECK(body.at("event") == "change");
  CHECK(body.at("watchId").as_string() == a);
  CHECK(body.at("host") == "play.example.com");
  CHECK(body.at("verdict") == "offline");
  CHECK(body.at("changes") == boost::json::parse(R"(["joinable","online"])"));
  CHECK(body.at("from").at("verdict") == "joinable");
  const auto link = "https://netherscope.example/api/history?host=play.example.com&port=19132"
                    "&range=24h";
  CHECK(body.at("link") == link);
  auto checked_at = static_cast<std::int64_t>(std::time(nullptr));
  CHECK(core::verify_signature(change.signature, json_secret, change.body, checked_at)
        == core::signature_check::valid);
  // A captured delivery replayed later, or checked with another secret, is refused.
  CHECK(core::verify_signature(change.signature, json_secret, change.body,
                              checked_at + core::signature_tolerance_seconds + 60)
        == core::signature_check::stale);
  CHECK(core::verify_signature(change.signature, discord_secret, change.body, checked_at)
        == core::signature_check::mismatch);
  auto& tested = json_sent.back();
  auto test_body = boost::json::parse(tested.body);
  CHECK(test_body.at("event") == "test");
  CHECK(test_body.at("verdict") == "offline");
  CHECK(test_body.at("to").at("at").as_string() == *base::rfc3339_utc(latest.at));
  CHECK(test_body.at("from").is_null());
  CHECK(test_body.at("link") == link);
  CHECK(core::verify_signature(tested.signature, json_secret, tested.body, checked_at)
        == core::signature_check::valid);

  auto discord_sent = received_at_path(receiver, "/a-discord");
  REQUIRE(discord_sent.size() == 1);
  auto discord = boost::json::parse(discord_sent.front().body);
  CHECK(discord.at("content").as_string().find("play.example.com:19132") != std::string::npos);
  CHECK(discord.at("embeds").as_array().size() == 1);
  CHECK(discord.at("allowed_mentions").at("parse").as_array().empty());
  CHECK(core::verify_signature(discord_sent.front().signature, discord_secret,
                              discord_sent.front().body, checked_at)
        == core::signature_check::valid);
}

TEST_CASE("webhook actor: a failing receiver is retried, the webhook marked failing, and a "
          "later delivery marks it ok",
          "[webhook][actors]") {
  webhook_receiver receiver;
  receiver.answer_with(500);
  // Tries at 0 and after 4 to 5 s; the next would be past 6 s, so the delivery gives up.
  webhook_rig rig{6};
  auto w = rig.watch("a.example", 19132);
  auto [hook, secret] = rig.webhook(w, receiver.url("/down"));
  CHECK_FALSE(rig.listed(w, hook.id).failing);
  auto now = static_cast<std::int64_t>(std::time(nullptr));
  rig.alert(offline_alert("a.example", 19132, now - 60));
  REQUIRE(receiver.wait_for(2, std::chrono::seconds(30)));
  REQUIRE(rig.wait_for_state(w, hook.id, true));
  auto failing = rig.listed(w, hook.id);
  CHECK(failing.last_failure == "HTTP 500");
  CHECK(failing.failing_since >= now);
  CHECK(receiver.received().size() == 2);
  // Both tries carry the same body, each signed when it was sent.
  auto tries = receiver.received();
  CHECK(tries[0].body == tries[1].body);

  receiver.answer_with(204);
  rig.alert(offline_alert("a.example", 19132, now));
  REQUIRE(receiver.wait_for(3, std::chrono::seconds(30)));
  REQUIRE(rig.wait_for_state(w, hook.id, false));
  auto recovered = rig.listed(w, hook.id);
  CHECK(recovered.failing_since == 0);
  CHECK(recovered.last_failure == "HTTP 500");
}

TEST_CASE("webhook actor: a test is tried once, and a redirect is a failure, never followed",
          "[webhook][actors]") {
  webhook_receiver receiver;
  webhook_rig rig;
  auto w = rig.watch("b.example", 19132);
  auto [hook, secret] = rig.webhook(w, receiver.url("/moved"));
  receiver.answer_with(302, receiver.url("/elsewhere"));
  auto outcome = rig.test(w, hook.id);
  CHECK_FALSE(outcome.delivered());
  CHECK(outcome.status == 302);
  receiver.answer_with(500);
  outcome = rig.test(w, hook.id);
  CHECK(outcome.status == 500);
  auto seen = receiver.received();
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].target == "/moved");
  CHECK(seen[1].target == "/moved");
  // The server has no stored check yet: the test says so with nulls.
  auto body = boost::json::parse(seen[0].body);
  CHECK(body.at("event") == "test");
  CHECK(body.at("to").is_null());
  CHECK(body.at("verdict").is_null());
  CHECK(body.at("link") == "https://netherscope.example/api/history?host=b.example&port=19132"
                           "&range=24h");
  // A failed test is the caller's answer, not the webhook's state.
  CHECK_FALSE(rig.listed(w, hook.id).failing);
  // A webhook that is gone is answered as such.
  CHECK(rig.test(w, "nononononononono").error.code == core::error_code::unknown_webhook);
}

TEST_CASE("webhook actor: a discord_live webhook edits one message, posts anew when it is "
          "deleted, waits as a 429 asks, and skips to the newest state",
          "[webhook][actors]") {
  webhook_receiver receiver;
  fake_discord discord;
  receiver.answer_by(discord.answerer());
  webhook_rig rig;
  auto w = rig.watch("d.example", 19132);
  auto [hook, secret] = rig.webhook(w, receiver.url("/api/webhooks/1/tok"),
                                    core::webhook_format::discord_live);
  auto now = static_cast<std::int64_t>(std::time(nullptr));
  auto back_online = [](std::int64_t at) {
    core::watch_alert a;
    a.host = "d.example";
    a.port = 19132;
    a.previous = check_row(at, core::verdict_code::offline);
    a.current = check_row(at + 60, core::verdict_code::joinable, 3, 10);
    a.changes = *core::change_between(a.previous, a.current);
    return a;
  };

  // The first delivery makes the message, and Discord says which it is.
  rig.alert(offline_alert("d.example", 19132, now - 600));
  REQUIRE(receiver.wait_for(1, std::chrono::seconds(10)));
  auto seen = receiver.received();
  CHECK(seen[0].method == "POST");
  CHECK(seen[0].target == "/api/webhooks/1/tok?wait=true");
  REQUIRE(discord.messages().size() == 1);
  auto message = discord.messages().front();

  // The next edits it: still one message, showing the server as it is now.
  rig.alert(back_online(now - 540));
  REQUIRE(receiver.wait_for(2, std::chrono::seconds(10)));
  seen = receiver.received();
  CHECK(seen[1].method == "PATCH");
  CHECK(seen[1].target == "/api/webhooks/1/tok/messages/" + message);
  REQUIRE(wait_until([&] { return discord.edits_of(message) == 1; }, std::chrono::seconds(5),
                     std::chrono::milliseconds(20)));
  CHECK(discord.messages() == std::vector<std::string>{message});
  auto shown = boost::json::parse(discord.body_of(message));
  CHECK(shown.at("content") == "d.example:19132 is now joinable (was offline)");

  // Someone deletes it: the edit's 404 makes the same delivery post a new one, at once, and
  // the webhook is not failing for it.
  discord.delete_message(message);
  rig.alert(offline_alert("d.example", 19132, now - 480));
  REQUIRE(receiver.wait_for(4, std::chrono::seconds(10)));
  seen = receiver.received();
  CHECK(seen[2].method == "PATCH");
  CHECK(seen[3].method == "POST");
  CHECK(seen[3].target == "/api/webhooks/1/tok?wait=true");
  CHECK(seen[3].body == seen[2].body);
  REQUIRE(discord.messages().size() == 1);
  auto reposted = discord.messages().front();
  CHECK(reposted != message);
  CHECK_FALSE(rig.listed(w, hook.id).failing);

  // Rate limited for 3 s while three changes come: the retry waits as asked and sends only
  // the newest state, edited into the new message.
  discord.rate_limit_next(1, 3.0);
  auto limited_at = std::chrono::steady_clock::now();
  rig.alert(back_online(now - 420));
  REQUIRE(receiver.wait_for(5, std::chrono::seconds(10)));
  rig.alert(offline_alert("d.example", 19132, now - 360));
  rig.alert(back_online(now - 300));
  REQUIRE(receiver.wait_for(6, std::chrono::seconds(10)));
  auto waited = std::chrono::steady_clock::now() - limited_at;
  CHECK(waited >= std::chrono::milliseconds(2900));
  seen = receiver.received();
  CHECK(discord.limited() == 1);
  CHECK(seen[5].method == "PATCH");
  CHECK(seen[5].target == "/api/webhooks/1/tok/messages/" + reposted);
  // The state at the 429 was back online too; the newest is a later check's.
  CHECK(seen[5].body != seen[4].body);
  CHECK(boost::json::parse(seen[5].body).at("content")
        == "d.example:19132 is now joinable (was offline)");
  CHECK_FALSE(receiver.wait_for(7, std::chrono::milliseconds(1500)));
  CHECK(discord.body_of(reposted) == seen[5].body);

  // A test posts a message of its own and leaves the live one alone.
  auto tested = rig.test(w, hook.id);
  CHECK(tested.delivered());
  seen = receiver.received();
  REQUIRE(seen.size() == 7);
  CHECK(seen[6].method == "POST");
  CHECK(seen[6].target == "/api/webhooks/1/tok");
  CHECK(discord.body_of(reposted) == seen[5].body);
}
