// End to end: watched servers are checked on their period by the real service against the
// fake target, their history and chart show the checks, private history stays its owner's,
// and on a real redis-server two replicas run each check once and a survivor takes over a
// killed replica's share.
#include <catch2/catch.hpp>

#include <csignal>
#include <ctime>

#include <boost/json.hpp>

#include "core/webhook_signature.hpp"
#include "storage/accounts.hpp"
#include "support/missing_part.hpp"
#include "support/fake_xbox.hpp"
#include "support/http.hpp"
#include "support/redis_server.hpp"
#include "support/rooms.hpp"
#include "support/store.hpp"
#include "support/wait.hpp"
#include "support/xml_check.hpp"
#include "support/webhook_receiver.hpp"

using namespace netherscope::test;

namespace {

/// An API key of a fresh account in the service's store.
std::string issue_test_key(storage::store& store, std::uint64_t user, const std::string& login) {
  std::string key;
  in_records(store, true, [&](storage::record_txn& t) {
    auto issued = storage::issue_key(t, user, login, std::time(nullptr));
    REQUIRE(issued);
    key = issued->key;
  });
  return key;
}

http_reply watch_server(unsigned service_port, const std::string& key, unsigned target_port,
                     bool is_public, unsigned period = 2) {
  return http_request(service_port, "POST", "/api/watch",
                      {{"X-API-Key", key}, {"Content-Type", "application/json"}},
                      R"({"host":"127.0.0.1","port":)" + std::to_string(target_port)
                        + R"(,"periodSeconds":)" + std::to_string(period)
                        + R"(,"public":)" + (is_public ? "true" : "false") + "}");
}

std::string history_path(unsigned target_port, const std::string& range = "24h",
                         const std::string& route = "/api/history") {
  return route + "?host=127.0.0.1&port=" + std::to_string(target_port) + "&range=" + range;
}

/// The points of a 24h history read with key (anonymous when empty); none when it fails.
boost::json::array history_points(unsigned service_port, unsigned target_port,
                             const std::string& key = {}) {
  header_list auth;
  if (!key.empty())
    auth.emplace_back("X-API-Key", key);
  auto r = http_request(service_port, "GET", history_path(target_port), auth);
  if (r.status != 200)
    return {};
  return body_of(r).at("points").as_array();
}

/// Waits until the history holds at least n checks.
bool wait_for_checks(unsigned service_port, unsigned target_port, const std::string& key,
                     std::size_t n, std::chrono::seconds timeout) {
  return wait_until([&] { return history_points(service_port, target_port, key).size() >= n; },
                    timeout, std::chrono::milliseconds(200));
}

std::vector<std::string> watch_check_args() {
  return {"--watch-min-period", "2", "--status-timeout-ms", "2000", "--answer-timeout-ms", "2000"};
}

} // namespace

TEST_CASE("watch checks e2e: a watch is checked on its period, with history and chart",
          "[e2e][watch][history]") {
  fake_target_process fake{{"--raknet", "on"}};
  service_process svc{watch_check_args()};
  auto store = open_lmdb(svc.data_dir()).store;
  auto alice = issue_test_key(*store, 601, "alice");
  auto bob = issue_test_key(*store, 602, "bob");

  auto made = watch_server(svc.port(), alice, fake.port(), false);
  INFO(made.body);
  REQUIRE(made.status == 201);

  // Private: nobody but its owner reads it, and the chart (public only) says so.
  auto anonymous = http_request(svc.port(), "GET", history_path(fake.port()));
  CHECK(anonymous.status == 404);
  CHECK(anonymous.code() == "unknown_watch");
  CHECK(http_request(svc.port(), "GET", history_path(fake.port()), {{"X-API-Key", bob}}).status
        == 404);
  auto hidden_chart = http_request(svc.port(), "GET", history_path(fake.port(), "24h", "/chart.svg"));
  CHECK(hidden_chart.status == 404);
  CHECK(hidden_chart.header("content-type") == "image/svg+xml");

  // Checked on its period: each check a row with what the server said.
  REQUIRE(wait_for_checks(svc.port(), fake.port(), alice, 3, std::chrono::seconds(40)));
  auto read = http_request(svc.port(), "GET", history_path(fake.port()), {{"X-API-Key", alice}});
  REQUIRE(read.status == 200);
  auto body = body_of(read);
  CHECK(body.at("ok") == true);
  CHECK(body.at("host") == "127.0.0.1");
  CHECK(body.at("port") == fake.port());
  CHECK(body.at("range") == "24h");
  CHECK(body.at("resolution") == "check");
  CHECK(body.at("uptime").at("joinable") == 1.0);
  auto points = body.at("points").as_array();
  std::int64_t last_at = 0;
  for (auto& p : points) {
    INFO(boost::json::serialize(p));
    CHECK(p.at("verdict") == "joinable");
    CHECK(p.at("class") == "joinable");
    CHECK(p.at("players").is_int64());
    CHECK(p.at("maxPlayers").is_int64());
    CHECK(p.at("playersFrom") == "nethernet");
    CHECK_FALSE(p.at("version").as_string().empty());
    CHECK(p.at("latencyMs").at("nethernet").is_number());
    CHECK(p.at("latencyMs").at("raknet").is_number());
    CHECK(p.at("latencyMs").at("offer").is_number());
    CHECK(p.at("raknetChecked") == true);
    CHECK(p.at("candidates").at("reachable").as_int64() >= 1);
    CHECK(p.at("keyId").is_string());
    // Each check joined as a player does, with its own offer.
    CHECK(p.at("join").at("joined") == true);
    CHECK(p.at("join").at("stage") == "game");
    CHECK(p.at("join").at("outcome") == "joined");
    CHECK(p.at("join").at("totalMs").as_double() > 0);
    // One check per slot: never two in one period.
    auto at = p.at("at").as_int64();
    CHECK(at > last_at);
    last_at = at;
  }

  // Each check asks afresh, about once per period (2 s): over 8 s, 4 slots.
  auto before = stat(fake, "status_requests");
  auto offers_before = stat(fake, "offers");
  std::this_thread::sleep_for(std::chrono::seconds(8));
  auto asked = stat(fake, "status_requests") - before;
  auto offered = stat(fake, "offers") - offers_before;
  CHECK(asked >= 3);
  CHECK(asked <= 6);
  CHECK(offered >= 3);
  CHECK(offered <= 6);

  // Hourly resolution for the longer ranges: the open hour shows already.
  auto week = http_request(svc.port(), "GET", history_path(fake.port(), "7d"),
                           {{"X-API-Key", alice}});
  REQUIRE(week.status == 200);
  auto hours = body_of(week);
  CHECK(hours.at("resolution") == "hour");
  REQUIRE_FALSE(hours.at("points").as_array().empty());
  // The checks may straddle the turn of an hour, so count them over every hour shown.
  std::int64_t hourly_checks = 0;
  for (auto& p : hours.at("points").as_array())
    hourly_checks += p.at("checks").as_int64();
  CHECK(hourly_checks >= 3);

  // Bad input is a JSON error; reading history counts against no quota.
  auto bad = http_request(svc.port(), "GET", history_path(fake.port(), "1y"), {{"X-API-Key", alice}});
  CHECK(bad.status == 400);
  CHECK(bad.code() == "invalid_input");
  auto first = remaining(http_request(svc.port(), "GET", history_path(fake.port()),
                                      {{"X-API-Key", alice}}));
  auto second = remaining(http_request(svc.port(), "GET", history_path(fake.port()),
                                       {{"X-API-Key", alice}}));
  CHECK(first > 0);
  CHECK(second == first);

  // A public watch of the same server makes its history and chart anyone's.
  REQUIRE(watch_server(svc.port(), bob, fake.port(), true, 60).status == 201);
  REQUIRE(wait_until(
    [&] { return http_request(svc.port(), "GET", history_path(fake.port())).status == 200; },
    std::chrono::seconds(20), std::chrono::milliseconds(200)));
  auto chart = http_request(svc.port(), "GET", history_path(fake.port(), "24h", "/chart.svg"));
  REQUIRE(chart.status == 200);
  CHECK(chart.header("content-type") == "image/svg+xml");
  CHECK(chart.body.find("<svg") != std::string::npos);
  CHECK(chart.body.find("127.0.0.1:" + std::to_string(fake.port())) != std::string::npos);
  CHECK(chart.body.find("<script") == std::string::npos);
  CHECK(chart.header("cache-control").rfind("max-age=", 0) == 0);
  CHECK_FALSE(chart.header("content-security-policy").empty());
  // The players chart of the same server draws its hourly peak, and names it in its label.
  auto players_chart = http_request(
    svc.port(), "GET", history_path(fake.port(), "7d", "/chart.svg") + "&metric=players");
  REQUIRE(players_chart.status == 200);
  CHECK(players_chart.body.find("peak") != std::string::npos);
  CHECK(players_chart.body.find("no data yet") == std::string::npos);
  auto bad_metric = http_request(
    svc.port(), "GET", history_path(fake.port(), "24h", "/chart.svg") + "&metric=uptime");
  CHECK(bad_metric.status == 400);
  // The hourly ranges also fold the hours into UTC days, each with its peak and when it was.
  auto week_body = body_of(http_request(svc.port(), "GET", history_path(fake.port(), "7d")));
  // One day, or two when the checks straddle midnight UTC.
  REQUIRE_FALSE(week_body.at("days").as_array().empty());
  CHECK(week_body.at("days").as_array().size() <= 2);
  const auto& today = week_body.at("days").as_array().back();
  CHECK(today.at("at").as_int64() % 86400 == 0);
  CHECK(today.at("checks").as_int64() >= 1);
  // The fake reports its players, so the range has a peak and a time for it.
  REQUIRE(week_body.at("players").is_object());
  CHECK(week_body.at("players").at("peak") == week_body.at("players").at("max"));
  CHECK(week_body.at("players").at("peakAt").as_int64() >= week_body.at("from").as_int64());
  // The fake's count never changes, so the peak was first seen on the first day.
  CHECK(week_body.at("days").at(0).at("players").at("peakAt") == week_body.at("players").at("peakAt"));

  // The server stops: the checks say so.
  fake.process().signal(SIGKILL);
  fake.process().wait(std::chrono::seconds(5));
  REQUIRE(wait_until(
    [&] {
      auto now = history_points(svc.port(), fake.port(), alice);
      return !now.empty() && now.back().at("verdict") == "offline";
    },
    std::chrono::seconds(30), std::chrono::milliseconds(200)));
  auto after = body_of(
    http_request(svc.port(), "GET", history_path(fake.port()), {{"X-API-Key", alice}}));
  CHECK(after.at("uptime").at("joinable").as_double() < 1.0);
  CHECK(after.at("uptime").at("online").as_double() < 1.0);
}

TEST_CASE("watch checks e2e: replicas on Redis run each check once and take over",
          "[e2e][watch][history][redis]") {
  if (!have_redis_server()) {
    missing_part("redis-server is not installed; skipping");
    return;
  }
  redis_server redis;
  fake_target_process fake;
  auto args = watch_check_args();
  args.insert(args.end(), {"--store", redis.url()});
  auto first = std::make_unique<service_process>(args);
  service_process second{args};
  auto key = issue_test_key(*open_redis(redis.url()).store, 701, "carol");
  REQUIRE(watch_server(second.port(), key, fake.port(), false).status == 201);
  REQUIRE(wait_for_checks(first->port(), fake.port(), key, 2, std::chrono::seconds(40)));

  // Two replicas, one schedule: about one check per period, not two.
  auto before = stat(fake, "status_requests");
  std::this_thread::sleep_for(std::chrono::seconds(10));
  auto asked = stat(fake, "status_requests") - before;
  CHECK(asked >= 4);
  CHECK(asked <= 7);
  // Both replicas read the same history.
  CHECK(history_points(first->port(), fake.port(), key).size()
        == history_points(second.port(), fake.port(), key).size());

  // One replica dies; the other takes its share over once any lease it held has ended (the
  // check's deadline and a margin: here about 19 s).
  first->process().signal(SIGKILL);
  first->process().wait(std::chrono::seconds(5));
  first.reset();
  auto at_death = stat(fake, "status_requests");
  REQUIRE(wait_until([&] { return stat(fake, "status_requests") >= at_death + 3; },
                     std::chrono::seconds(40), std::chrono::milliseconds(200)));
}

TEST_CASE("watch checks e2e: a change of verdict is alerted once and signed, and repeats are not",
          "[e2e][watch][webhook]") {
  webhook_receiver receiver;
  temp_dir keys;
  fake_target_process fake{{"--raknet", "on"}};
  auto args = watch_check_args();
  args.insert(args.end(), {"--secrets-key-file", write_key_file(keys.path(), "secrets.key")});
  service_process svc{args};
  auto key = issue_test_key(*open_lmdb(svc.data_dir()).store, 801, "dave");
  auto made = watch_server(svc.port(), key, fake.port(), false);
  REQUIRE(made.status == 201);
  auto watch_id = std::string{body_of(made).at("watch").at("id").as_string()};
  auto hook = http_request(svc.port(), "POST", "/api/watch/" + watch_id + "/webhooks",
                           {{"X-API-Key", key}, {"Content-Type", "application/json"}},
                           R"({"url":")" + receiver.url("/hook") + R"("})");
  INFO(hook.body);
  REQUIRE(hook.status == 201);
  auto secret = std::string{body_of(hook).at("secret").as_string()};

  // The same verdict check after check: nothing to say.
  REQUIRE(wait_for_checks(svc.port(), fake.port(), key, 3, std::chrono::seconds(40)));
  CHECK(receiver.received().empty());

  // The server goes: one alert, from joinable to offline.
  fake.process().signal(SIGKILL);
  fake.process().wait(std::chrono::seconds(5));
  REQUIRE(receiver.wait_for(1, std::chrono::seconds(40)));
  auto sent = receiver.received().front();
  CHECK(sent.method == "POST");
  CHECK(core::verify_signature(sent.signature, secret, sent.body, std::time(nullptr))
        == core::signature_check::valid);
  auto event = boost::json::parse(sent.body);
  INFO(sent.body);
  CHECK(event.at("event") == "change");
  CHECK(event.at("watchId").as_string() == watch_id);
  CHECK(event.at("host") == "127.0.0.1");
  CHECK(event.at("port") == fake.port());
  CHECK(event.at("from").at("verdict") == "joinable");
  CHECK(event.at("to").at("verdict") == "offline");
  CHECK(event.at("at").is_string());

  // Offline again and again: still the one alert.
  auto offline_checks = [&] {
    std::size_t n = 0;
    for (auto& p : history_points(svc.port(), fake.port(), key))
      n += p.at("verdict") == "offline" ? 1 : 0;
    return n;
  };
  REQUIRE(wait_until([&] { return offline_checks() >= 3; }, std::chrono::seconds(40),
                     std::chrono::milliseconds(200)));
  CHECK(receiver.received().size() == 1);
}

TEST_CASE("watch checks e2e: a server that still answers but turns players away is alerted",
          "[e2e][watch][webhook][join]") {
  webhook_receiver receiver;
  temp_dir keys;
  auto fake = std::make_unique<fake_target_process>();
  auto port = fake->port();
  auto args = watch_check_args();
  args.insert(args.end(), {"--secrets-key-file", write_key_file(keys.path(), "secrets.key")});
  service_process svc{args};
  auto key = issue_test_key(*open_lmdb(svc.data_dir()).store, 901, "erin");
  auto made = watch_server(svc.port(), key, port, true);
  REQUIRE(made.status == 201);
  auto watch_id = std::string{body_of(made).at("watch").at("id").as_string()};
  auto hook = http_request(svc.port(), "POST", "/api/watch/" + watch_id + "/webhooks",
                           {{"X-API-Key", key}, {"Content-Type", "application/json"}},
                           R"({"url":")" + receiver.url("/hook") + R"("})");
  REQUIRE(hook.status == 201);
  REQUIRE(wait_for_checks(svc.port(), port, key, 2, std::chrono::seconds(40)));
  auto joined_metrics = http_request(svc.port(), "GET", "/metrics");
  REQUIRE(joined_metrics.status == 200);
  auto nethernet_health = [&](const std::string& text) {
    auto at = text.find("minecraft_status_healthy{server_host=\"127.0.0.1\",server_port=\""
                        + std::to_string(port) + "\"");
    if (at == std::string::npos)
      return std::string{};
    auto line = text.substr(at, text.find('\n', at) - at);
    if (line.find("transport=\"nethernet\"") == std::string::npos)
      return std::string{};
    return line.substr(line.rfind(' ') + 1);
  };
  CHECK(nethernet_health(joined_metrics.body) == "1");
  // The badge of a publicly watched server follows its latest check.
  auto badge_value = [&] {
    auto badge = http_request(svc.port(), "GET",
                              "/badge?host=127.0.0.1&port=" + std::to_string(port));
    auto doc = parse_svg(badge.body);
    return doc.contains("texts") ? std::string{doc.at("texts").at(1).as_string()}
                                 : std::string{};
  };
  CHECK(badge_value().rfind("joinable", 0) == 0);

  // The same server, its status and signalling unchanged, now speaks no DTLS: its status
  // answers, and players cannot get in.
  fake->process().signal(SIGKILL);
  fake->process().wait(std::chrono::seconds(5));
  fake = std::make_unique<fake_target_process>(
    std::vector<std::string>{"--port", std::to_string(port), "--game", "off"});
  REQUIRE(wait_until(
    [&] {
      auto now = history_points(svc.port(), port, key);
      return !now.empty() && now.back().at("verdict") == "join_failed";
    },
    std::chrono::seconds(40), std::chrono::milliseconds(200)));
  auto points = history_points(svc.port(), port, key);
  auto last = points.back();
  INFO(boost::json::serialize(last));
  CHECK(last.at("class") == "up");
  CHECK(last.at("join").at("joined") == false);
  CHECK(last.at("join").at("stage") == "dtls");
  CHECK(last.at("join").at("outcome") == "dtls_failed");
  CHECK(last.at("latencyMs").at("nethernet").is_number());

  // Alerted: the last alert is the one into join_failed, and some alert on the way named
  // joinable (straight from joinable, or through an offline check in the restart's gap).
  REQUIRE(wait_until(
    [&] {
      auto got = receiver.received();
      return !got.empty()
             && boost::json::parse(got.back().body).at("to").at("verdict") == "join_failed";
    },
    std::chrono::seconds(20), std::chrono::milliseconds(200)));
  bool named_joinable = false;
  for (auto& sent : receiver.received()) {
    auto event = boost::json::parse(sent.body);
    for (auto& change : event.at("changes").as_array())
      named_joinable = named_joinable || change == "joinable";
  }
  CHECK(named_joinable);
  auto event = boost::json::parse(receiver.received().back().body);
  INFO(receiver.received().back().body);
  CHECK(event.at("to").at("joinable") == false);
  CHECK(event.at("to").at("online") == true);
  CHECK(event.at("to").at("join").at("joined") == false);
  CHECK(event.at("to").at("join").at("outcome") == "dtls_failed");

  CHECK(badge_value().rfind("can't join", 0) == 0);

  // The exporter: NetherNet's status answers, and it is unhealthy.
  auto failing_metrics = http_request(svc.port(), "GET", "/metrics");
  CHECK(nethernet_health(failing_metrics.body) == "0");
}
