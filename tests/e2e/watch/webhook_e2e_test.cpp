// End to end: the webhook routes of the real service with a real receiver on 127.0.0.1.
// A webhook is made on a watch and its secret shown once, never in GET /api/watch; its test
// delivery arrives signed (and a replay of it is refused by the signature's window), with the
// server's latest stored check and a link to its history, in the json and the discord format;
// a redirect is a failure and is not followed; URLs that reach loopback without
// --allow-loopback, private addresses, plain http and disguised spellings of loopback are
// refused when the webhook is made; the limit, unknown webhooks, and a watch's deletion
// taking its webhooks along. Retries and the failing state are driven by alerts, which come
// from the scheduler: tests/unit/actors/webhook_actor_test.cpp sends them.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <fstream>

#include <boost/json.hpp>

#include "core/webhook_request.hpp"
#include "core/webhook_signature.hpp"
#include "base/crypto.hpp"
#include "base/text.hpp"
#include "storage/accounts.hpp"
#include "storage/auth_records.hpp"
#include "storage/webhook_records.hpp"
#include "app/service.hpp"
#include "support/fake_xbox.hpp"
#include "support/history_rows.hpp"
#include "support/http.hpp"
#include "support/json_schema.hpp"
#include "support/process.hpp"
#include "support/redis_server.hpp"
#include "support/store.hpp"
#include "support/webhook_receiver.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

/// Two accounts' API keys and a session of the first, written into the service's store.
struct hook_accounts {
  header_list alice;
  header_list bob;
  header_list alice_cookie;
};

hook_accounts make_hook_accounts(storage::store& store) {
  hook_accounts out;
  in_records(store, true, [&](storage::record_txn& t) {
    auto now = std::time(nullptr);
    auto alice = storage::issue_key(t, 601, "alice", now);
    auto bob = storage::issue_key(t, 602, "bob", now);
    auto session = storage::open_session(t, 601, now);
    REQUIRE(alice);
    REQUIRE(bob);
    REQUIRE(session);
    out.alice = {{"X-API-Key", alice->key}};
    out.bob = {{"X-API-Key", bob->key}};
    out.alice_cookie = {{"Cookie", "ns_session=" + session->id}};
  });
  return out;
}

http_reply hook_post(const service_process& svc, const std::string& target,
                     const header_list& auth, const std::string& body,
                     const std::string& content_type = "application/json") {
  header_list headers = auth;
  headers.emplace_back("Content-Type", content_type);
  return http_request(svc.port(), "POST", target, headers, body);
}

void check_hook_error(const http_reply& r, int status, const std::string& code) {
  INFO("status " << r.status << " body " << r.body);
  CHECK(r.status == status);
  CHECK(r.code() == code);
  CHECK_FALSE(error_text(r).empty());
  CHECK(r.header("access-control-allow-origin") == "*");
}

std::string watch_for_hooks(const service_process& svc, const header_list& auth,
                       const std::string& host) {
  auto made = hook_post(svc, "/api/watch", auth, R"({"host":")" + host + "\"}");
  REQUIRE(made.status == 201);
  return std::string{body_of(made).at("watch").at("id").as_string()};
}

std::string hook_request_body(const std::string& url, const std::string& format = "json") {
  return R"({"url":")" + url + R"(","format":")" + format + "\"}";
}

/// Checks a reply's body against a schema of the embedded OpenAPI document.
void check_hook_schema(const http_reply& r, const std::string& schema) {
  auto doc = boost::json::parse(app::openapi_document);
  auto ref = boost::json::value{{"$ref", "#/components/schemas/" + schema}};
  auto broken = schema_violations(doc, ref, r.json());
  INFO(r.body);
  CHECK(broken.empty());
  for (auto& line : broken)
    UNSCOPED_INFO(line);
}

/// The service with a secrets key, and whatever else args say.
service_process hook_service(const temp_dir& dir, std::vector<std::string> args,
                             bool allow_loopback) {
  args.insert(args.end(), {"--secrets-key-file", write_key_file(dir.path(), "secrets.key")});
  return service_process{args, {}, allow_loopback};
}

} // namespace

TEST_CASE("webhook e2e: made, listed without their secret, tested signed, refused, limited "
          "and deleted",
          "[e2e][webhook]") {
  webhook_receiver receiver;
  temp_dir keys;
  auto svc = hook_service(keys, {}, true);
  auto accounts = make_hook_accounts(*open_lmdb(svc.data_dir()).store);
  auto watch = watch_for_hooks(svc, accounts.alice, "play.example.com");
  auto hooks = "/api/watch/" + watch + "/webhooks";

  // Made: the secret is in this answer and in no other.
  auto made = hook_post(svc, hooks, accounts.alice, hook_request_body(receiver.url("/hook")));
  INFO("body " << made.body);
  REQUIRE(made.status == 201);
  check_hook_schema(made, "WebhookCreated");
  auto body = body_of(made);
  auto secret = std::string{body.at("secret").as_string()};
  CHECK(secret.rfind("whsec_", 0) == 0);
  auto& hook = body.at("webhook").as_object();
  auto hook_id = std::string{hook.at("id").as_string()};
  CHECK(core::is_webhook_id(hook_id));
  CHECK(hook.at("url").as_string() == receiver.url("/hook"));
  CHECK(hook.at("format") == "json");
  CHECK(hook.at("state") == "ok");
  CHECK_FALSE(hook.contains("secret"));
  auto listed = http_request(svc.port(), "GET", "/api/watch", accounts.alice);
  REQUIRE(listed.status == 200);
  check_hook_schema(listed, "WatchList");
  CHECK(listed.body.find(secret) == std::string::npos);
  CHECK(listed.body.find("whsec_") == std::string::npos);
  auto shown = body_of(listed).at("watches").at(0).at("webhooks").as_array();
  REQUIRE(shown.size() == 1);
  CHECK(shown.at(0).at("id").as_string() == hook_id);
  CHECK(shown.at(0).at("state") == "ok");

  // The test carries the server's latest stored check: here one stored later than any check
  // the service's own scheduler could store meanwhile, so it stays the latest.
  auto checked_at = static_cast<std::int64_t>(std::time(nullptr)) + 600;
  REQUIRE(open_lmdb(svc.data_dir())
            .watching->record_check("play.example.com|19132",
                                    check_row(checked_at, core::verdict_code::joinable, 3, 10),
                                    core::budget_for(300)));
  // Its link starts with --public-base-url (the default here).
  const std::string link =
    "http://127.0.0.1:8080/api/history?host=play.example.com&port=19132&range=24h";

  // The test delivery arrives signed with that secret, within the signature's window only.
  auto tested = http_request(svc.port(), "POST", hooks + "/" + hook_id + "/test", accounts.alice);
  INFO("test " << tested.body);
  REQUIRE(tested.status == 200);
  check_hook_schema(tested, "WebhookTest");
  CHECK(body_of(tested).at("delivery").at("delivered") == true);
  CHECK(body_of(tested).at("delivery").at("status") == 200);
  REQUIRE(receiver.wait_for(1, std::chrono::seconds(10)));
  auto sent = receiver.received().front();
  CHECK(sent.method == "POST");
  CHECK(sent.target == "/hook");
  CHECK(sent.content_type == "application/json");
  CHECK(sent.user_agent == "netherscope");
  auto now = static_cast<std::int64_t>(std::time(nullptr));
  CHECK(core::verify_signature(sent.signature, secret, sent.body, now)
        == core::signature_check::valid);
  CHECK(core::verify_signature(sent.signature, secret, sent.body,
                              now + core::signature_tolerance_seconds + 60)
        == core::signature_check::stale);
  CHECK(core::verify_signature(sent.signature, secret, sent.body + " ", now)
        == core::signature_check::mismatch);
  auto event = boost::json::parse(sent.body);
  CHECK(event.at("event") == "test");
  CHECK(event.at("watchId").as_string() == watch);
  CHECK(event.at("host") == "play.example.com");
  CHECK(event.at("changes").as_array().empty());
  CHECK(event.at("verdict") == "joinable");
  CHECK(event.at("from").is_null());
  CHECK(event.at("to").at("at").as_string() == *base::rfc3339_utc(checked_at));
  CHECK(event.at("to").at("players") == 3);
  CHECK(event.at("link").as_string() == link);

  // The discord format's shape.
  auto discord = hook_post(svc, hooks, accounts.alice,
                           hook_request_body(receiver.url("/discord"), "discord"));
  REQUIRE(discord.status == 201);
  auto discord_id = std::string{body_of(discord).at("webhook").at("id").as_string()};
  CHECK(body_of(discord).at("webhook").at("format") == "discord");
  REQUIRE(http_request(svc.port(), "POST", hooks + "/" + discord_id + "/test", accounts.alice)
            .status
          == 200);
  REQUIRE(receiver.wait_for(2, std::chrono::seconds(10)));
  auto discord_sent = boost::json::parse(receiver.received().back().body);
  CHECK(discord_sent.at("content").as_string().find("play.example.com:19132")
        != std::string::npos);
  REQUIRE(discord_sent.at("embeds").as_array().size() == 1);
  CHECK(discord_sent.at("embeds").at(0).at("title").as_string().find("play.example.com")
        != std::string::npos);
  CHECK(discord_sent.at("allowed_mentions").at("parse").as_array().empty());
  CHECK(discord_sent.at("embeds").at(0).at("url").as_string() == link);
  CHECK(discord_sent.at("embeds").at(0).at("description").as_string().find(
          "The latest check: joinable, at " + *base::rfc3339_utc(checked_at))
        != std::string::npos);

  // A redirect is an answer, and a failure: nothing goes to where it points.
  auto moved = hook_post(svc, hooks, accounts.alice, hook_request_body(receiver.url("/moved")));
  REQUIRE(moved.status == 201);
  auto moved_id = std::string{body_of(moved).at("webhook").at("id").as_string()};
  receiver.answer_with(302, receiver.url("/elsewhere"));
  auto redirected = http_request(svc.port(), "POST", hooks + "/" + moved_id + "/test",
                                 accounts.alice);
  REQUIRE(redirected.status == 200);
  check_hook_schema(redirected, "WebhookTest");
  auto delivery = body_of(redirected).at("delivery");
  CHECK(delivery.at("delivered") == false);
  CHECK(delivery.at("status") == 302);
  CHECK(delivery.at("error").as_string().find("redirect") != std::string::npos);
  receiver.answer_with(200);
  for (auto& r : receiver.received())
    CHECK(r.target != "/elsewhere");
  CHECK(receiver.received().size() == 3);

  // Input the routes refuse, and who may call them.
  check_hook_error(hook_post(svc, hooks, accounts.alice,
                             hook_request_body(receiver.url("/x"), "slack")),
                   400, "invalid_input");
  check_hook_error(hook_post(svc, hooks, accounts.alice, R"({"url":"https://a.example/x",)"
                                                         R"("colour":"red"})"),
                   400, "invalid_input");
  check_hook_error(hook_post(svc, hooks, accounts.alice, hook_request_body("https://a.example/x"),
                             "text/plain"),
                   415, "unsupported_media_type");
  check_hook_error(hook_post(svc, hooks, accounts.alice, hook_request_body("http://a.example/x")),
                   400, "invalid_input");
  check_hook_error(hook_post(svc, hooks, accounts.alice, hook_request_body("https://10.0.0.1/x")),
                   403, "forbidden_target");
  check_hook_error(hook_post(svc, hooks, {}, hook_request_body("https://a.example/x")), 401,
                   "unauthorized");
  check_hook_error(hook_post(svc, hooks, accounts.bob, hook_request_body("https://a.example/x")),
                   404, "unknown_watch");
  check_hook_error(hook_post(svc, hooks, accounts.alice_cookie,
                             hook_request_body("https://a.example/x")),
                   403, "csrf_rejected");
  check_hook_error(http_request(svc.port(), "POST", hooks + "/" + hook_id + "/test",
                                accounts.bob),
                   404, "unknown_watch");
  check_hook_error(http_request(svc.port(), "POST", hooks + "/AAAAAAAAAAAAAAAA/test",
                                accounts.alice),
                   404, "unknown_webhook");
  check_hook_error(http_request(svc.port(), "DELETE", hooks + "/not-an-id", accounts.alice),
                   404, "unknown_webhook");
  check_hook_error(http_request(svc.port(), "GET", hooks + "/" + hook_id, accounts.alice), 405,
                   "method_not_allowed");

  // Five webhooks fit on a watch; a sixth does not.
  for (int i = 0; i < 2; ++i)
    REQUIRE(hook_post(svc, hooks, accounts.alice, hook_request_body("https://a.example/" + std::to_string(i)))
              .status
            == 201);
  check_hook_error(hook_post(svc, hooks, accounts.alice, hook_request_body("https://a.example/6")),
                   409, "webhook_limit_reached");

  // Deleting one; then the watch, which takes the rest along.
  auto deleted = http_request(svc.port(), "DELETE", hooks + "/" + moved_id, accounts.alice);
  CHECK(deleted.status == 200);
  CHECK(deleted.body == R"({"ok":true})");
  check_hook_error(http_request(svc.port(), "DELETE", hooks + "/" + moved_id, accounts.alice),
                   404, "unknown_webhook");
  CHECK(body_of(http_request(svc.port(), "GET", "/api/watch", accounts.alice))
          .at("watches")
          .at(0)
          .at("webhooks")
          .as_array()
          .size()
        == 4);
  REQUIRE(http_request(svc.port(), "DELETE", "/api/watch/" + watch, accounts.alice).status == 200);
  in_records(*open_lmdb(svc.data_dir()).store, false, [&](storage::record_txn& t) {
    auto left = storage::list_webhooks(t, watch);
    REQUIRE(left);
    CHECK(left->empty());
    auto indexed = storage::watches_with_webhooks(t, "play.example.com", 19132);
    REQUIRE(indexed);
    CHECK(indexed->empty());
  });
}

TEST_CASE("webhook e2e: without --allow-loopback, loopback in any spelling, private addresses "
          "and plain http are refused when a webhook is made",
          "[e2e][webhook]") {
  webhook_receiver receiver;
  temp_dir keys;
  auto svc = hook_service(keys, {}, false);
  auto accounts = make_hook_accounts(*open_lmdb(svc.data_dir()).store);
  auto hooks = "/api/watch/" + watch_for_hooks(svc, accounts.alice, "play.example.com") + "/webhooks";
  for (auto url : {"https://127.0.0.1/hook", "https://[::ffff:127.0.0.1]/hook",
                   "https://2130706433/hook", "https://10.0.0.1/hook", "https://[::1]/hook",
                   "https://localhost/hook"}) {
    INFO(url);
    check_hook_error(hook_post(svc, hooks, accounts.alice, hook_request_body(url)), 403,
                     "forbidden_target");
  }
  for (auto url : {receiver.url("/hook"), std::string{"http://hooks.example/hook"},
                   std::string{"https://hooks.example/hook#part"}}) {
    INFO(url);
    check_hook_error(hook_post(svc, hooks, accounts.alice, hook_request_body(url)), 400,
                     "invalid_input");
  }
  CHECK(receiver.received().empty());
  CHECK(hook_post(svc, hooks, accounts.alice, hook_request_body("https://hooks.example/hook")).status
        == 201);
}

TEST_CASE("webhook e2e: on the embedded default a fresh service makes its secrets key once, "
          "and its webhooks open with it after a restart",
          "[e2e][webhook]") {
  webhook_receiver receiver;
  temp_dir data;
  auto key_path = data.path() + "/secrets.key";
  std::string key_text;
  std::string hooks;
  std::string hook_id;
  std::string secret;
  header_list alice;
  {
    service_process svc{{}, {}, true, data.path()};
    auto created = svc.process().wait_for_line(
      [](const std::string& l) { return l.find("secrets_key_created") != std::string::npos; },
      std::chrono::seconds(5));
    REQUIRE(created);
    CHECK(created->find(key_path) != std::string::npos);
    struct stat st {};
    REQUIRE(::stat(key_path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    std::ifstream{key_path} >> key_text;
    CHECK(base::base64_decode(key_text).value_or("").size() == 32);
    auto accounts = make_hook_accounts(*open_lmdb(svc.data_dir()).store);
    alice = accounts.alice;
    hooks = "/api/watch/" + watch_for_hooks(svc, alice, "play.example.com") + "/webhooks";
    auto made = hook_post(svc, hooks, alice, hook_request_body(receiver.url("/hook")));
    INFO(made.body);
    REQUIRE(made.status == 201);
    secret = std::string{body_of(made).at("secret").as_string()};
    hook_id = std::string{body_of(made).at("webhook").at("id").as_string()};
  }
  // Started again on the same directory: the same key, read and not made again, opens the
  // secret sealed before the restart.
  service_process again{{}, {}, true, data.path()};
  auto tested = http_request(again.port(), "POST", hooks + "/" + hook_id + "/test", alice);
  INFO(tested.body);
  REQUIRE(tested.status == 200);
  CHECK(body_of(tested).at("delivery").at("delivered") == true);
  REQUIRE(receiver.wait_for(1, std::chrono::seconds(10)));
  auto sent = receiver.received().front();
  CHECK(core::verify_signature(sent.signature, secret, sent.body, std::time(nullptr))
        == core::signature_check::valid);
  std::string key_after;
  std::ifstream{key_path} >> key_after;
  CHECK(key_after == key_text);
  for (auto& line : again.process().lines())
    CHECK(line.find("secrets_key_created") == std::string::npos);
}

TEST_CASE("webhook e2e: a service on Redis without a secrets key makes no webhooks, makes no "
          "key, and says every replica must be given the same one",
          "[e2e][webhook][redis]") {
  redis_server redis;
  service_process svc{{"--store", redis.url()}, {}, true};
  CHECK(svc.process().wait_for_line(
    [](const std::string& l) { return l.find("secrets_key_missing") != std::string::npos; },
    std::chrono::seconds(5)));
  auto accounts = make_hook_accounts(*open_redis(redis.url()).store);
  auto hooks = "/api/watch/" + watch_for_hooks(svc, accounts.alice, "play.example.com") + "/webhooks";
  auto refused = hook_post(svc, hooks, accounts.alice, hook_request_body("https://hooks.example/hook"));
  check_hook_error(refused, 503, "unavailable");
  CHECK(error_text(refused).find("--secrets-key-file") != std::string::npos);
  CHECK(error_text(refused).find("every replica") != std::string::npos);
  CHECK(::access((svc.data_dir() + "/secrets.key").c_str(), F_OK) != 0);
}

TEST_CASE("webhook e2e: a secrets key file every user may read stops the service at start, "
          "naming the file",
          "[e2e][webhook]") {
  temp_dir keys;
  auto path = write_key_file(keys.path(), "secrets.key");
  REQUIRE(::chmod(path.c_str(), 0644) == 0);
  temp_dir data;
  // Through a shell, for the refusal goes to standard error.
  child_process svc{{"/bin/sh", "-c", "exec \"$@\" 2>&1", "sh", NETHERSCOPE_BIN, "--port", "0",
                     "--data-dir", data.path(), "--secrets-key-file", path}};
  CHECK(svc.wait(std::chrono::seconds(10)) == 2);
  bool named = false;
  for (auto& line : svc.lines())
    named = named || (line.find(path) != std::string::npos
                      && line.find("every user") != std::string::npos);
  CHECK(named);
  // Readable by its group, as a mounted Kubernetes Secret: it starts.
  REQUIRE(::chmod(path.c_str(), 0440) == 0);
  service_process grouped{{"--secrets-key-file", path}, {}, true};
  CHECK(grouped.port() != 0);
}
