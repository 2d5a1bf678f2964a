// Webhooks kept and asked for: their stored form (damage refused), the record functions on
// both stores (LMDB in a temp dir, Redis on a real redis-server), the body of
// POST /api/watch/{id}/webhooks, the JSON the routes answer with, what the watch actor
// refuses before it asks the store, the delivery lanes' rules, and the alert as CAF reads it.
#include <catch2/catch.hpp>

#include <memory>

#include <boost/json.hpp>
#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "actors/watch_webhooks.hpp"
#include "actors/webhook_lanes.hpp"
#include "core/watch_json.hpp"
#include "core/webhook_json.hpp"
#include "core/webhook_request.hpp"
#include "base/sealed.hpp"
#include "storage/webhook_records.hpp"
#include "support/history_rows.hpp"
#include "support/process.hpp"
#include "support/redis_server.hpp"
#include "support/store.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

storage::webhook_record sample_webhook(std::string watch_id, std::string id, std::int64_t created,
                                       core::webhook_format format = core::webhook_format::json) {
  storage::webhook_record w;
  w.watch_id = std::move(watch_id);
  w.webhook.id = std::move(id);
  w.webhook.url = "https://hooks.example/in?token=abc";
  w.webhook.format = format;
  w.webhook.created = created;
  w.sealed_secret = "sealed-bytes";
  return w;
}

storage::watch_record hooked_watch(std::string id, std::uint64_t owner, std::string host,
                                   std::uint16_t port, std::int64_t created) {
  storage::watch_record w;
  w.owner = owner;
  w.watch.id = std::move(id);
  w.watch.host = std::move(host);
  w.watch.port = port;
  w.watch.created = created;
  return w;
}

/// A store of the backend a section asks for, with the record functions in transactions of
/// their own.
struct webhook_store : test::backend_store {
  using backend_store::backend_store;

  void add_watch(const storage::watch_record& w) {
    in_records(*store, true, [&](storage::record_txn& t) {
      auto added = storage::add_watch(t, w, 10);
      REQUIRE(added);
      REQUIRE(added->ok());
    });
  }

  core::failure add(const storage::watch_record& watch, const storage::webhook_record& w) {
    core::failure out;
    in_records(*store, true, [&](storage::record_txn& t) {
      auto added = storage::add_webhook(t, watch, w, core::max_webhooks_per_watch);
      REQUIRE(added);
      out = *added;
    });
    return out;
  }

  std::vector<storage::webhook_record> list(const std::string& watch_id) {
    std::vector<storage::webhook_record> out;
    in_records(*store, false, [&](storage::record_txn& t) {
      auto held = storage::list_webhooks(t, watch_id);
      REQUIRE(held);
      out = std::move(*held);
    });
    return out;
  }

  std::vector<std::string> watches_of(const std::string& host, std::uint16_t port) {
    std::vector<std::string> out;
    in_records(*store, false, [&](storage::record_txn& t) {
      auto found = storage::watches_with_webhooks(t, host, port);
      REQUIRE(found);
      out = std::move(*found);
    });
    return out;
  }

  bool set_state(const std::string& watch_id, const std::string& id, bool failing,
                 std::int64_t now, const std::string& reason) {
    bool out = false;
    in_records(*store, true, [&](storage::record_txn& t) {
      auto set = storage::set_webhook_state(t, watch_id, id, failing, now, reason);
      REQUIRE(set);
      out = *set;
    });
    return out;
  }
};

} // namespace

TEST_CASE("webhook records: a record reads back as written, and damage is refused",
          "[webhook]") {
  auto w = sample_webhook("watchwatchwatch1", "hookhookhookhoo1", 1760000000,
                          core::webhook_format::discord);
  w.webhook.failing = true;
  w.webhook.failing_since = 1760000100;
  w.webhook.last_failure_at = 1760000200;
  w.webhook.last_failure = "HTTP 500";
  auto bytes = storage::encode(w);
  auto back = storage::decode_webhook("watchwatchwatch1", "hookhookhookhoo1", bytes);
  REQUIRE(back);
  CHECK(back->watch_id == "watchwatchwatch1");
  CHECK(back->webhook.id == "hookhookhookhoo1");
  CHECK(back->webhook.url == w.webhook.url);
  CHECK(back->webhook.format == core::webhook_format::discord);
  CHECK(back->webhook.created == 1760000000);
  CHECK(back->webhook.failing);
  CHECK(back->webhook.failing_since == 1760000100);
  CHECK(back->webhook.last_failure_at == 1760000200);
  CHECK(back->webhook.last_failure == "HTTP 500");
  CHECK(back->sealed_secret == "sealed-bytes");

  auto refused = [](std::string record) {
    return !storage::decode_webhook("w", "h", record).has_value();
  };
  CHECK(refused(""));
  CHECK(refused(bytes.substr(0, bytes.size() - 1)));
  CHECK(refused(bytes + "x"));
  auto other_version = bytes;
  other_version[0] = 2;
  CHECK(refused(other_version));
  auto unknown_format = bytes;
  unknown_format[9] = 7;
  CHECK(refused(unknown_format));
  // The newest format reads back; the one after it does not exist.
  auto live = w;
  live.webhook.format = core::webhook_format::discord_live;
  auto live_back = storage::decode_webhook("w", "h", storage::encode(live));
  REQUIRE(live_back);
  CHECK(live_back->webhook.format == core::webhook_format::discord_live);
  auto past_newest = bytes;
  past_newest[9] = static_cast<char>(static_cast<int>(core::webhook_format::discord_live) + 1);
  CHECK(refused(past_newest));
  auto unknown_flag = bytes;
  unknown_flag[10] = 3;
  CHECK(refused(unknown_flag));
  // Failing needs the time it started, and only failing may have one.
  auto never_started = w;
  never_started.webhook.failing_since = 0;
  CHECK(refused(storage::encode(never_started)));
  auto no_url = w;
  no_url.webhook.url.clear();
  CHECK(refused(storage::encode(no_url)));
  auto no_secret = w;
  no_secret.sealed_secret.clear();
  CHECK(refused(storage::encode(no_secret)));
}

TEST_CASE("webhook records: add up to the limit, list, index by target, delete, and go with "
          "their watch, on LMDB and on Redis",
          "[webhook][redis]") {
  auto backend = GENERATE(as<std::string>{}, "lmdb", "redis");
  if (!backend_available(backend))
    return;
  INFO(backend);
  webhook_store s{backend};
  auto a = hooked_watch("aaaaaaaaaaaaaaaa", 7, "play.example.com", 19132, 100);
  auto b = hooked_watch("bbbbbbbbbbbbbbbb", 8, "play.example.com", 19132, 100);
  auto c = hooked_watch("cccccccccccccccc", 7, "play.example.com", 19133, 100);
  s.add_watch(a);
  s.add_watch(b);
  s.add_watch(c);
  CHECK(s.watches_of("play.example.com", 19132).empty());

  // Five fit; a sixth is refused and not written.
  for (int i = 0; i < 5; ++i) {
    auto id = std::string(15, 'h') + std::to_string(i);
    CHECK(s.add(a, sample_webhook(a.watch.id, id, 200 - i)).ok());
  }
  auto sixth = s.add(a, sample_webhook(a.watch.id, "hhhhhhhhhhhhhhh9", 300));
  CHECK(sixth.code == core::error_code::webhook_limit_reached);
  auto held = s.list(a.watch.id);
  REQUIRE(held.size() == 5);
  // Oldest first.
  CHECK(held.front().webhook.id == "hhhhhhhhhhhhhhh4");
  CHECK(held.back().webhook.id == "hhhhhhhhhhhhhhh0");
  CHECK(held.front().sealed_secret == "sealed-bytes");

  REQUIRE(s.add(b, sample_webhook(b.watch.id, "bbbbbbbbbbbbhook", 100)).ok());
  REQUIRE(s.add(c, sample_webhook(c.watch.id, "cccccccccccchook", 100)).ok());
  CHECK(s.watches_of("play.example.com", 19132)
        == std::vector<std::string>{a.watch.id, b.watch.id});
  CHECK(s.watches_of("play.example.com", 19133) == std::vector<std::string>{c.watch.id});
  CHECK(s.watches_of("play.example.com", 1913).empty());

  // Deleting a webhook; the watch leaves the index with its last one.
  in_records(*s.store, true, [&](storage::record_txn& t) {
    auto deleted = storage::delete_webhook(t, b, "bbbbbbbbbbbbhook");
    REQUIRE(deleted);
    CHECK(*deleted);
    auto again = storage::delete_webhook(t, b, "bbbbbbbbbbbbhook");
    REQUIRE(again);
    CHECK_FALSE(*again);
  });
  CHECK(s.watches_of("play.example.com", 19132) == std::vector<std::string>{a.watch.id});

  // Deleting a watch deletes its webhooks and its place in the index.
  in_records(*s.store, true, [&](storage::record_txn& t) {
    auto deleted = storage::delete_watch(t, 7, a.watch.id);
    REQUIRE(deleted);
    CHECK(*deleted);
  });
  CHECK(s.list(a.watch.id).empty());
  CHECK(s.watches_of("play.example.com", 19132).empty());
  // The other watches and what the scheduler reads are untouched.
  CHECK(s.list(c.watch.id).size() == 1);
  in_records(*s.store, false, [&](storage::record_txn& t) {
    auto targets = storage::watched_targets(t);
    REQUIRE(targets);
    CHECK(targets->size() == 2);
  });
}

TEST_CASE("webhook records: failing after a delivery gives up, ok after a success, on LMDB "
          "and on Redis",
          "[webhook][redis]") {
  auto backend = GENERATE(as<std::string>{}, "lmdb", "redis");
  if (!backend_available(backend))
    return;
  INFO(backend);
  webhook_store s{backend};
  auto w = hooked_watch("wwwwwwwwwwwwwwww", 7, "a.example", 19132, 100);
  s.add_watch(w);
  REQUIRE(s.add(w, sample_webhook(w.watch.id, "hhhhhhhhhhhhhhhh", 100)).ok());
  auto state = [&] { return s.list(w.watch.id).front().webhook; };

  CHECK_FALSE(s.set_state(w.watch.id, "hhhhhhhhhhhhhhhh", false, 150, {}));
  CHECK(s.set_state(w.watch.id, "hhhhhhhhhhhhhhhh", true, 200, "HTTP 500"));
  CHECK(state().failing);
  CHECK(state().failing_since == 200);
  CHECK(state().last_failure_at == 200);
  CHECK(state().last_failure == "HTTP 500");
  // Failing again keeps when it started and updates the last failure.
  CHECK(s.set_state(w.watch.id, "hhhhhhhhhhhhhhhh", true, 300, "timed out"));
  CHECK(state().failing_since == 200);
  CHECK(state().last_failure_at == 300);
  CHECK(state().last_failure == "timed out");
  // Ok again: the last failure stays for the owner to read.
  CHECK(s.set_state(w.watch.id, "hhhhhhhhhhhhhhhh", false, 400, {}));
  CHECK_FALSE(state().failing);
  CHECK(state().failing_since == 0);
  CHECK(state().last_failure_at == 300);
  // A webhook that is gone is no error.
  CHECK_FALSE(s.set_state(w.watch.id, "nononononononono", true, 500, "x"));
}

TEST_CASE("webhook requests: the body of POST /api/watch/{id}/webhooks", "[webhook]") {
  core::failure error;
  auto spec = core::parse_webhook_body(R"({"url":"https://hooks.example/in"})", error);
  REQUIRE(spec);
  CHECK(spec->url == "https://hooks.example/in");
  CHECK(spec->format == core::webhook_format::json);
  spec = core::parse_webhook_body(R"({"url":"https://discord.com/api/webhooks/1/x",)"
                                 R"("format":"discord"})",
                                 error);
  REQUIRE(spec);
  CHECK(spec->format == core::webhook_format::discord);

  for (auto body : {"", "[]", "{", R"({"format":"json"})", R"({"url":""})", R"({"url":7})",
                    R"({"url":"https://a.example","format":"slack"})",
                    R"({"url":"https://a.example","format":1})",
                    R"({"url":"https://a.example","secret":"mine"})"}) {
    INFO(body);
    error = {};
    CHECK_FALSE(core::parse_webhook_body(body, error));
    CHECK(error.code == core::error_code::invalid_input);
    CHECK_FALSE(error.message.empty());
  }
  error = {};
  core::parse_webhook_body(R"({"url":"https://a.example","format":"slack"})", error);
  CHECK(error.message.find("discord") != std::string::npos);

  // The account page's form: the same fields as text.
  spec = core::parse_webhook_text("https://hooks.example/in", "", error);
  REQUIRE(spec);
  CHECK(spec->url == "https://hooks.example/in");
  CHECK(spec->format == core::webhook_format::json);
  spec = core::parse_webhook_text("https://hooks.example/in", "discord", error);
  REQUIRE(spec);
  CHECK(spec->format == core::webhook_format::discord);
  error = {};
  CHECK_FALSE(core::parse_webhook_text("", "json", error));
  CHECK(error.message.find("url is required") != std::string::npos);
  error = {};
  CHECK_FALSE(core::parse_webhook_text("https://a.example", "slack", error));
  CHECK(error.code == core::error_code::invalid_input);
  CHECK(error.message.find("discord") != std::string::npos);

  CHECK(core::is_webhook_id("abcdefghijklmn-_"));
  CHECK_FALSE(core::is_webhook_id("abcdefghijklmn-"));
  CHECK_FALSE(core::is_webhook_id("abcdefghijklmn+/"));
}

TEST_CASE("webhook JSON: a webhook shows its state and never its secret, and a test its "
          "outcome",
          "[webhook]") {
  core::webhook_view view;
  view.id = "abcdefghijklmn-_";
  view.url = "https://hooks.example/in";
  view.created = 5;
  auto ok = core::webhook_object(view);
  CHECK(boost::json::serialize(ok)
        == R"({"id":"abcdefghijklmn-_","url":"https://hooks.example/in","format":"json",)"
           R"("createdAt":5,"state":"ok","failingSince":null,"lastFailureAt":null,)"
           R"("lastFailure":null})");
  view.failing = true;
  view.failing_since = 6;
  view.last_failure_at = 7;
  view.last_failure = "HTTP 500";
  auto failing = core::webhook_object(view);
  CHECK(failing.at("state") == "failing");
  CHECK(failing.at("failingSince") == 6);
  CHECK(failing.at("lastFailure") == "HTTP 500");

  auto made = boost::json::parse(core::render_webhook_created(view, "whsec_x"));
  CHECK(made.at("ok") == true);
  CHECK(made.at("secret") == "whsec_x");
  CHECK(made.at("webhook").at("id") == "abcdefghijklmn-_");

  core::watch_answer listed;
  core::watch_view watch;
  watch.id = "wwwwwwwwwwwwwwww";
  watch.webhooks.push_back(view);
  listed.watches.push_back(watch);
  listed.secret = "whsec_never_listed";
  auto list = core::render_watch_list(listed);
  CHECK(list.find("whsec") == std::string::npos);
  CHECK(boost::json::parse(list).at("watches").at(0).at("webhooks").at(0).at("state")
        == "failing");

  core::webhook_delivery delivered;
  delivered.status = 204;
  CHECK(core::render_webhook_test(delivered)
        == R"({"ok":true,"delivery":{"delivered":true,"status":204,"code":null,"error":null}})");
  core::webhook_delivery redirected;
  redirected.status = 302;
  CHECK_FALSE(redirected.delivered());
  CHECK(core::failure_reason(redirected) == "HTTP 302: redirects are not followed");
  auto shown = boost::json::parse(core::render_webhook_test(redirected));
  CHECK(shown.at("delivery").at("delivered") == false);
  CHECK(shown.at("delivery").at("status") == 302);
  core::webhook_delivery timed_out;
  timed_out.error = core::make_failure(core::error_code::upstream_timeout, "too slow");
  shown = boost::json::parse(core::render_webhook_test(timed_out));
  CHECK(shown.at("delivery").at("status").is_null());
  CHECK(shown.at("delivery").at("code") == "upstream_timeout");
  CHECK(shown.at("delivery").at("error") == "too slow");
  timed_out.error.message = std::string(500, 'x');
  CHECK(core::failure_reason(timed_out).size() == core::longest_failure_reason);
}

TEST_CASE("watch actor: refuses a webhook URL of the wrong form, one the address policy "
          "refuses without a lookup, and any without a secrets key",
          "[webhook]") {
  actors::watch_settings settings;
  settings.secrets = base::secrets_key::from_bytes(std::string(32, 'k'));
  core::webhook_spec spec;
  spec.url = "https://hooks.example/in";
  CHECK(actors::refuse_webhook(spec, settings).ok()); // a name is judged at each delivery
  auto code_of = [&](const char* url) {
    spec.url = url;
    return actors::refuse_webhook(spec, settings).code;
  };
  CHECK(code_of("http://hooks.example/in") == core::error_code::invalid_input);
  CHECK(code_of("http://127.0.0.1:9/in") == core::error_code::invalid_input);
  CHECK(code_of("ftp://hooks.example/in") == core::error_code::invalid_input);
  CHECK(code_of("https://user:pw@hooks.example/in") == core::error_code::invalid_input);
  for (auto url : {"https://127.0.0.1/in", "https://10.0.0.1/in", "https://[::ffff:127.0.0.1]/in",
                   "https://2130706433/in", "https://0x7f.1/in", "https://localhost/in",
                   "https://[::1]/in", "https://192.168.1.1/in"}) {
    INFO(url);
    CHECK(code_of(url) == core::error_code::forbidden_target);
  }
  // --allow-loopback admits plain http to loopback, and loopback only.
  settings.allow_loopback = true;
  settings.policy = upstream::address_policy{{*base::parse_cidr("127.0.0.0/8"),
                                              *base::parse_cidr("::1/128")},
                                             {}};
  CHECK(code_of("http://127.0.0.1:9/in") == core::error_code::none);
  CHECK(code_of("https://127.0.0.1/in") == core::error_code::none);
  CHECK(code_of("http://10.0.0.1/in") == core::error_code::invalid_input);
  CHECK(code_of("https://10.0.0.1/in") == core::error_code::forbidden_target);
  settings.secrets.reset();
  CHECK(code_of("https://hooks.example/in") == core::error_code::unavailable);
}

TEST_CASE("watch actor: a new webhook's secret is shown once and stored sealed",
          "[webhook]") {
  actors::watch_settings settings;
  settings.secrets = base::secrets_key::from_bytes(std::string(32, 'k'));
  core::webhook_spec spec;
  spec.url = "https://hooks.example/in";
  auto made = actors::prepare_webhook(spec, settings, 1760000000);
  REQUIRE(made);
  CHECK(made->secret.rfind("whsec_", 0) == 0);
  CHECK(core::is_webhook_id(made->record.webhook.id));
  CHECK(made->record.sealed_secret.find(made->secret) == std::string::npos);
  CHECK(base::open_sealed(*settings.secrets, storage::webhook_secret_label(made->record.webhook.id),
                          made->record.sealed_secret)
        == made->secret);
  // Sealed for this webhook: it does not open as another's.
  CHECK_FALSE(base::open_sealed(*settings.secrets, storage::webhook_secret_label("other"),
                                made->record.sealed_secret));
}

TEST_CASE("webhook lanes: one delivery under way at a time, in order, the oldest waiting "
          "dropped when full",
          "[webhook]") {
  actors::delivery_lanes lanes{3};
  auto delivery = [](std::uint64_t number) {
    actors::queued_delivery d;
    d.number = number;
    return d;
  };
  CHECK(lanes.start("a") == nullptr);
  CHECK(lanes.push("a", delivery(1)) == 0);
  CHECK(lanes.push("a", delivery(2)) == 0);
  auto* first = lanes.start("a");
  REQUIRE(first != nullptr);
  CHECK(first->number == 1);
  CHECK(lanes.start("a") == nullptr); // one at a time
  CHECK(lanes.under_way("a", 1) == first);
  CHECK(lanes.under_way("a", 2) == nullptr);
  CHECK(lanes.push("a", delivery(3)) == 0);
  // Full: the oldest waiting (2) goes, never the one under way (1).
  CHECK(lanes.push("a", delivery(4)) == 1);
  CHECK(lanes.size("a") == 3);
  lanes.finish("a");
  CHECK(lanes.under_way("a", 1) == nullptr);
  REQUIRE(lanes.start("a") != nullptr);
  CHECK(lanes.under_way("a", 3) != nullptr);
  // Lanes are apart.
  CHECK(lanes.push("b", delivery(5)) == 0);
  CHECK(lanes.start("b")->number == 5);
  lanes.clear("a");
  CHECK(lanes.size("a") == 0);
  CHECK(lanes.start("a") == nullptr);
  CHECK(lanes.size("b") == 1);
  // With nothing under way, a full lane drops its oldest.
  actors::delivery_lanes small{1};
  CHECK(small.push("c", delivery(6)) == 0);
  CHECK(small.push("c", delivery(7)) == 1);
  CHECK(small.start("c")->number == 7);
  // With its one place under way, the new one is the one dropped.
  CHECK(small.push("c", delivery(8)) == 1);
  CHECK(small.size("c") == 1);
}

TEST_CASE("webhook lanes: a live lane's delivery under way takes the newest state",
          "[webhook]") {
  actors::delivery_lanes lanes{8};
  auto delivery = [](std::uint64_t number) {
    actors::queued_delivery d;
    d.number = number;
    d.body = "state " + std::to_string(number);
    d.jitter_key = "key " + std::to_string(number);
    return d;
  };
  lanes.push("a", delivery(1));
  // Nothing under way, or nothing waiting: nothing to fold.
  CHECK(lanes.coalesce("a") == 0);
  auto* first = lanes.start("a");
  REQUIRE(first != nullptr);
  CHECK(lanes.coalesce("a") == 0);
  CHECK(first->body == "state 1");
  first->first_try = 1760000000;
  first->failures = 2;
  lanes.push("a", delivery(2));
  lanes.push("a", delivery(3));
  CHECK(lanes.coalesce("a") == 2);
  CHECK(lanes.size("a") == 1);
  // Still the delivery its retry timer names, now with the newest body; its retries still
  // count from its first try, so a receiver that stays down is given up on in time.
  auto* now = lanes.under_way("a", 1);
  REQUIRE(now != nullptr);
  CHECK(now->body == "state 3");
  CHECK(now->jitter_key == "key 3");
  CHECK(now->first_try == 1760000000);
  CHECK(now->failures == 2);
  lanes.finish("a");
  CHECK(lanes.size("a") == 0);
}

TEST_CASE("watch alerts: CAF reads every field, absent ones included", "[webhook]") {
  core::watch_alert alert;
  alert.host = "play.example.com";
  alert.port = 19133;
  alert.previous = check_row(1760000000, core::verdict_code::joinable, 3, 10);
  alert.previous.version = "1.21.50";
  alert.previous.key_id = 0x0123456789abcdefULL;
  alert.previous.nethernet_us = 12000;
  alert.previous.candidates = {4, 3, 1, 1};
  alert.current = check_row(1760000300, core::verdict_code::offline);
  alert.changes.joinable = true;
  alert.changes.online = true;
  alert.changes.verdict = true;

  caf::actor_system_config cfg;
  caf::actor_system system{cfg};
  std::vector<char> buf;
  caf::binary_serializer sink{system, buf};
  REQUIRE_FALSE(sink(alert));
  core::watch_alert back;
  caf::binary_deserializer source{system, buf};
  REQUIRE_FALSE(source(back));
  CHECK(back.host == alert.host);
  CHECK(back.port == alert.port);
  CHECK(back.previous == alert.previous);
  CHECK(back.current == alert.current);
  CHECK_FALSE(back.current.players);
  CHECK_FALSE(back.current.key_id);
  CHECK(back.changes.names() == alert.changes.names());
  CHECK(back.changes.verdict);
  auto text = caf::deep_to_string(alert);
  CHECK(text.find("play.example.com") != std::string::npos);
}
