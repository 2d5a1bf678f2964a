// End to end: the watch routes of the real service, over LMDB and over a real redis-server:
// create, list and delete with an API key or the account page's session, anonymous calls
// refused, the operator's limits, duplicates, targets the address policy refuses, and bad
// input, each answered with JSON from the one error table.
#include <catch2/catch.hpp>

#include <ctime>
#include <functional>

#include <boost/json.hpp>

#include "core/watch_request.hpp"
#include "storage/accounts.hpp"
#include "storage/auth_records.hpp"
#include "support/missing_part.hpp"
#include "support/http.hpp"
#include "support/redis_server.hpp"
#include "support/store.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

/// Two accounts with keys and a session of the first, written into the service's own store as
/// sign-in would.
struct watch_accounts {
  std::string alice_key;
  std::string bob_key;
  std::string alice_session;
};

watch_accounts make_watch_accounts(storage::store& store) {
  watch_accounts out;
  in_records(store, true, [&](storage::record_txn& t) {
    auto now = std::time(nullptr);
    auto alice = storage::issue_key(t, 501, "alice", now);
    auto bob = storage::issue_key(t, 502, "bob", now);
    auto session = storage::open_session(t, 501, now);
    REQUIRE(alice);
    REQUIRE(bob);
    REQUIRE(session);
    out.alice_key = alice->key;
    out.bob_key = bob->key;
    out.alice_session = session->id;
  });
  return out;
}

http_reply watch_post(const service_process& svc, const header_list& auth, const std::string& body,
                      const std::string& content_type = "application/json") {
  header_list headers = auth;
  headers.emplace_back("Content-Type", content_type);
  return http_request(svc.port(), "POST", "/api/watch", headers, body);
}

void check_error(const http_reply& r, int status, const std::string& code) {
  INFO("status " << r.status << " body " << r.body);
  CHECK(r.status == status);
  CHECK(r.header("content-type") == "application/json");
  CHECK(r.code() == code);
  CHECK_FALSE(error_text(r).empty());
  CHECK(r.header("access-control-allow-origin") == "*");
}

// The whole story, on a service started with --watch-min-period 10,
// --watch-max-per-account 3 and without --allow-loopback.
void run_watch_story(const service_process& svc, const watch_accounts& accounts) {
  header_list alice{{"X-API-Key", accounts.alice_key}};
  header_list bob{{"Authorization", "Bearer " + accounts.bob_key}};

  // Anonymous and unknown callers get 401 JSON.
  check_error(http_request(svc.port(), "GET", "/api/watch"), 401, "unauthorized");
  check_error(watch_post(svc, {}, R"({"host":"play.example.com"})"), 401, "unauthorized");
  check_error(http_request(svc.port(), "DELETE", "/api/watch/AAAAAAAAAAAAAAAA"), 401,
              "unauthorized");
  check_error(http_request(svc.port(), "GET", "/api/watch", {{"X-API-Key", "nsk_unknown"}}), 401,
              "unauthorized");

  // Create with the defaults.
  auto before = std::time(nullptr);
  auto made = watch_post(svc, alice, R"({"host":"Play.Example.COM"})");
  INFO("body " << made.body);
  REQUIRE(made.status == 201);
  CHECK(made.header("access-control-allow-origin") == "*");
  auto body = body_of(made);
  CHECK(body.at("ok") == true);
  auto watch = body.at("watch").as_object();
  auto first_id = std::string{watch.at("id").as_string()};
  CHECK(core::is_watch_id(first_id));
  CHECK(watch.at("host") == "play.example.com");
  CHECK(watch.at("port") == 19132);
  CHECK(watch.at("periodSeconds") == 300);
  CHECK(watch.at("public") == false);
  CHECK(watch.at("createdAt").as_int64() >= before);
  CHECK(watch.at("createdAt").as_int64() <= std::time(nullptr));

  // Watch calls are account management: no quota counts them.
  auto remaining = [&] {
    return http_request(svc.port(), "GET", "/api/watch", alice).header("x-ratelimit-remaining");
  };
  auto left = remaining();
  CHECK_FALSE(left.empty());
  CHECK(remaining() == left);

  // Everything given, and the list.
  auto second = watch_post(svc, alice,
                           R"({"host":"play.example.com","port":19133,"periodSeconds":10,)"
                           R"("public":true})");
  REQUIRE(second.status == 201);
  auto listed = http_request(svc.port(), "GET", "/api/watch", alice);
  REQUIRE(listed.status == 200);
  auto list = body_of(listed);
  CHECK(list.at("limit") == 3);
  auto& watches = list.at("watches").as_array();
  REQUIRE(watches.size() == 2);
  // Oldest first, ties (the same second) by id: find each by its port.
  auto by_port = [&](std::int64_t port) {
    for (auto& w : watches)
      if (w.at("port") == port)
        return w.as_object();
    FAIL("no watch on port " << port);
    return boost::json::object{};
  };
  CHECK(by_port(19132).at("id").as_string() == first_id);
  CHECK(by_port(19133).at("periodSeconds") == 10);
  CHECK(by_port(19133).at("public") == true);

  // A duplicate, periods outside the bounds, bad input.
  check_error(watch_post(svc, alice, R"({"host":"PLAY.example.com","port":19132})"), 409,
              "watch_exists");
  check_error(watch_post(svc, alice, R"({"host":"c.example","periodSeconds":9})"), 400,
              "invalid_input");
  check_error(watch_post(svc, alice, R"({"host":"c.example","periodSeconds":86401})"), 400,
              "invalid_input");
  check_error(watch_post(svc, alice, R"({"host":"c.example","port":0})"), 400, "invalid_input");
  check_error(watch_post(svc, alice, R"({"host":"not a host"})"), 400, "invalid_input");
  check_error(watch_post(svc, alice, "{"), 400, "invalid_input");
  check_error(watch_post(svc, alice, R"({"host":"c.example","colour":"red"})"), 400,
              "invalid_input");
  check_error(watch_post(svc, alice, R"({"host":"c.example"})", "text/plain"), 415,
              "unsupported_media_type");
  check_error(watch_post(svc, alice, R"({"host":"c.example","pad":")" + std::string(20000, 'x')
                                       + "\"}"),
              413, "payload_too_large");
  check_error(http_request(svc.port(), "PUT", "/api/watch", alice), 405, "method_not_allowed");

  // Targets the address policy refuses, with the code a check of them gets.
  auto check = http_request(svc.port(), "GET", "/api/check?host=127.0.0.1", alice);
  check_error(check, 403, "forbidden_target");
  for (auto host : {"127.0.0.1", "localhost", "10.0.0.7", "[::1]", "192.0.2.1"}) {
    INFO(host);
    check_error(watch_post(svc, alice, std::string{R"({"host":")"} + host + "\"}"), 403,
                "forbidden_target");
  }

  // The limit: a third watch fits, a fourth does not.
  REQUIRE(watch_post(svc, alice, R"({"host":"c.example"})").status == 201);
  check_error(watch_post(svc, alice, R"({"host":"d.example"})"), 409, "watch_limit_reached");

  // Another account sees none of them and cannot delete them.
  auto bobs = http_request(svc.port(), "GET", "/api/watch", bob);
  REQUIRE(bobs.status == 200);
  CHECK(body_of(bobs).at("watches").as_array().empty());
  check_error(http_request(svc.port(), "DELETE", "/api/watch/" + first_id, bob), 404,
              "unknown_watch");
  check_error(http_request(svc.port(), "DELETE", "/api/watch/not-an-id", alice), 404,
              "unknown_watch");
  // Bob may watch the server Alice watches.
  CHECK(watch_post(svc, bob, R"({"host":"play.example.com"})").status == 201);

  // The owner deletes; the second time it is gone.
  auto deleted = http_request(svc.port(), "DELETE", "/api/watch/" + first_id, alice);
  CHECK(deleted.status == 200);
  CHECK(deleted.body == R"({"ok":true})");
  check_error(http_request(svc.port(), "DELETE", "/api/watch/" + first_id, alice), 404,
              "unknown_watch");
  CHECK(body_of(http_request(svc.port(), "GET", "/api/watch", alice)).at("watches").as_array().size()
        == 2);

  // The account page's session: reading needs only the cookie; a change also needs our
  // Origin, since a browser sends the cookie whichever site asks.
  header_list cookie{{"Cookie", "ns_session=" + accounts.alice_session}};
  auto by_session = http_request(svc.port(), "GET", "/api/watch", cookie);
  REQUIRE(by_session.status == 200);
  CHECK(body_of(by_session).at("watches").as_array().size() == 2);
  check_error(watch_post(svc, cookie, R"({"host":"e.example"})"), 403, "csrf_rejected");
  auto from_page = cookie;
  from_page.emplace_back("Origin", "http://127.0.0.1:8080");
  auto page_made = watch_post(svc, from_page, R"({"host":"e.example"})");
  CHECK(page_made.status == 201);
  header_list stale{{"Cookie", "ns_session=not-a-session"}};
  check_error(http_request(svc.port(), "GET", "/api/watch", stale), 401, "unauthorized");
}

std::vector<std::string> watch_args() {
  return {"--watch-min-period", "10", "--watch-max-per-account", "3"};
}

} // namespace

TEST_CASE("watch e2e: the watch routes over LMDB", "[e2e][watch]") {
  service_process svc{watch_args(), {}, false};
  auto accounts = make_watch_accounts(*open_lmdb(svc.data_dir()).store);
  run_watch_story(svc, accounts);
}

TEST_CASE("watch e2e: the watch routes over Redis, seen by every replica", "[e2e][watch][redis]") {
  if (!have_redis_server()) {
    missing_part("redis-server is not installed; skipping");
    return;
  }
  redis_server redis;
  auto args = watch_args();
  args.insert(args.end(), {"--store", redis.url()});
  service_process svc{args, {}, false};
  auto accounts = make_watch_accounts(*open_redis(redis.url()).store);
  run_watch_story(svc, accounts);

  // A second replica on the same Redis sees the same watches.
  service_process replica{args, {}, false};
  auto seen = http_request(replica.port(), "GET", "/api/watch",
                           {{"X-API-Key", accounts.alice_key}});
  REQUIRE(seen.status == 200);
  CHECK(body_of(seen).at("watches").as_array().size() == 3);
}
