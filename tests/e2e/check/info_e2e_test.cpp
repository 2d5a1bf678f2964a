// End to end: the netherscope binary and the fake NetherNet target as real processes on
// loopback, talking real HTTP and TLS.
#include <catch2/catch.hpp>

#include <signal.h>

#include <future>
#include <set>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/json.hpp>

#include "support/dns_server.hpp"
#include "support/http.hpp"
#include "support/wait.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

std::string target_query(const fake_target_process& fake, const std::string& extra = {}) {
  return "host=127.0.0.1&port=" + std::to_string(fake.port()) + extra;
}

// Waits until the fake's counter reaches at least `at_least`. The fake counts some events
// (a failed TLS handshake) only after the service has already answered us, so reading the
// counter once right after the reply would race with it.
bool stat_reaches(fake_target_process& fake, const char* name, std::int64_t at_least,
                  bool tls = false) {
  return wait_until([&] { return stat(fake, name, tls) >= at_least; }, 5s);
}

} // namespace

TEST_CASE("info e2e: a plain HTTP target's JSON status", "[e2e][info]") {
  fake_target_process fake{{"--tls", "off"}};
  service_process svc;
  auto reply = get_info(svc, target_query(fake));
  REQUIRE(reply.error.empty());
  CHECK(reply.status == 200);
  CHECK(reply.header("content-type") == "application/json");
  CHECK(reply.header("access-control-allow-origin") == "*");
  auto body = reply.json();
  CHECK(body.at("ok") == true);
  CHECK(body.at("status") == 200);
  CHECK(body.at("tls") == false);
  CHECK(body.at("info").at("name") == "Fake BDS");
  CHECK(body.at("info").at("protocol") == 2193);
  CHECK(body.at("info").at("maxPlayers") == 10);
  CHECK(stat(fake, "status_requests") == 1);
}

TEST_CASE("info e2e: HTTPS is found by auto-detection", "[e2e][info]") {
  temp_dir dir;
  auto cert = dir.path() + "/target.pem";
  fake_target_process fake{{"--tls", "on", "--cert-out", cert}};
  service_process svc{{"--upstream-ca-file", cert}};
  auto reply = get_info(svc, target_query(fake));
  CHECK(reply.status == 200);
  auto body = reply.json();
  CHECK(body.at("tls") == true);
  CHECK(body.at("info").at("name") == "Fake BDS");

  // Forcing TLS on works as well; forcing it off against a TLS-only target is a clear error.
  CHECK(get_info(svc, target_query(fake, "&tls=true")).json().at("tls") == true);
  auto failures_before = stat(fake, "tls_handshake_failures", true);
  auto forced_off = get_info(svc, target_query(fake, "&tls=false"));
  CHECK(forced_off.status == 502);
  CHECK(forced_off.code() == "upstream_failure");
  // The plain request really went to the TLS port (the fake saw it as a broken handshake)
  // and was not upgraded to TLS behind the caller's back.
  CHECK(stat_reaches(fake, "tls_handshake_failures", failures_before + 1, true));
  CHECK(stat(fake, "status_requests", true) == 2);
  // The advice to drop tls=false is the behaviour here, and only the message carries it.
  CHECK(error_text(forced_off).find("TLS") != std::string::npos);
}

TEST_CASE("info e2e: a BDS-like TLS alert falls back to plain HTTP", "[e2e][info]") {
  fake_target_process fake{{"--tls", "bds"}};
  service_process svc;
  auto reply = get_info(svc, target_query(fake));
  CHECK(reply.status == 200);
  CHECK(reply.json().at("tls") == false);
  CHECK(reply.json().at("info").at("name") == "Fake BDS");
  auto stats = fake.stats();
  CHECK(stats.at("tls_alerts") == 1);
  CHECK(stats.at("status_requests") == 1);
}

TEST_CASE("info e2e: forcing TLS on a plain target is a clear error", "[e2e][info]") {
  fake_target_process fake{{"--tls", "bds"}};
  service_process svc;
  auto reply = get_info(svc, target_query(fake, "&tls=true"));
  CHECK(reply.status == 502);
  CHECK(reply.code() == "upstream_failure");
  // The handshake was tried and refused with the target's alert, and there was no plain
  // fallback, which auto-detection would have made.
  auto stats = fake.stats();
  CHECK(stats.at("tls_alerts") == 1);
  CHECK(stats.at("status_requests") == 0);
}

TEST_CASE("info e2e: empty and non-JSON bodies give info null", "[e2e][info]") {
  service_process svc;
  fake_target_process empty{{"--body-mode", "empty"}};
  auto reply = get_info(svc, target_query(empty));
  CHECK(reply.status == 200);
  CHECK(reply.json().at("info").is_null());
  // Normal for BDS with LAN visibility off: nothing to complain about.
  CHECK(reply.json().at("infoError").is_null());
  CHECK(reply.json().at("infoErrorCode").is_null());
  fake_target_process text{{"--body-mode", "text", "--text", "hello"}};
  reply = get_info(svc, target_query(text));
  CHECK(reply.status == 200);
  CHECK(reply.json().at("ok") == true);
  CHECK(reply.json().at("info").is_null());
  CHECK(reply.json().at("infoErrorCode") == "not_json");
  fake_target_process array{{"--info", "[1,2]"}};
  reply = get_info(svc, target_query(array));
  CHECK(reply.status == 200);
  CHECK(reply.json().at("info").is_null());
  CHECK(reply.json().at("infoErrorCode") == "not_object");
}

TEST_CASE("info e2e: a byte order mark and wrong field types", "[e2e][info]") {
  service_process svc;
  // The fake refuses an --info that is not JSON, so the marked body goes out as its text body.
  fake_target_process bom{{"--body-mode", "text", "--text",
                           "\xEF\xBB\xBF{\"name\":\"Fake BDS\",\"protocol\":2193}"}};
  auto reply = get_info(svc, target_query(bom));
  INFO(reply.body);
  CHECK(reply.status == 200);
  CHECK(reply.json().at("info").at("name") == "Fake BDS");
  CHECK(reply.json().at("infoError").is_null());
  fake_target_process typed{{"--info", R"({"name":"Fake BDS","protocol":"2193","players":3})"}};
  reply = get_info(svc, target_query(typed));
  INFO(reply.body);
  CHECK(reply.json().at("infoErrorCode") == "field_types");
  CHECK(reply.json().at("info") == boost::json::parse(R"({"name":"Fake BDS","players":3})"));
}

TEST_CASE("info e2e: a non-2xx status is 502 with httpStatus and body", "[e2e][info]") {
  fake_target_process fake{{"--status-code", "503", "--body-mode", "text", "--text", "busy"}};
  service_process svc;
  auto reply = get_info(svc, target_query(fake));
  CHECK(reply.status == 502);
  auto error = reply.json().at("error");
  CHECK(error.at("httpStatus") == 503);
  CHECK(error.at("body") == "busy");
  CHECK(reply.json().at("code") == "upstream_status");
}

TEST_CASE("info e2e: redirects are reported, never followed", "[e2e][info]") {
  fake_target_process fake{{"--fault", "redirect"}};
  service_process svc;
  auto reply = get_info(svc, target_query(fake));
  CHECK(reply.status == 502);
  CHECK(reply.code() == "upstream_status");
  CHECK(reply.json().at("error").at("httpStatus") == 302);
  // Following would have made a second request (to the Location); none was made.
  CHECK(stat(fake, "status_requests") == 1);
}

TEST_CASE("info e2e: a refused port is 502", "[e2e][info]") {
  service_process svc;
  auto reply = get_info(svc, "host=127.0.0.1&port=" + std::to_string(unused_port()));
  CHECK(reply.status == 502);
  // A failure, not a timeout: a refused connection is known at once.
  CHECK(reply.code() == "upstream_failure");
}

TEST_CASE("info e2e: a hanging target is 504 within the deadline", "[e2e][info]") {
  fake_target_process fake{{"--fault", "hang"}};
  service_process svc{{"--status-timeout-ms", "1500", "--connect-timeout-ms", "500"}};
  auto start = std::chrono::steady_clock::now();
  auto reply = get_info(svc, target_query(fake));
  auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(reply.status == 504);
  CHECK(reply.json().at("code") == "upstream_timeout");
  // The deadline holds for the whole fetch, the TLS attempt and the HTTP one together;
  // the upper bound is loose because CI machines are slow, not because it is fuzzy.
  CHECK(elapsed >= 1400ms);
  CHECK(elapsed < 6000ms);
}

TEST_CASE("info e2e: a dripping body is cut off by the deadline", "[e2e][info]") {
  fake_target_process fake{{"--fault", "drip", "--delay-ms", "200"}};
  service_process svc{{"--status-timeout-ms", "1500"}};
  auto reply = get_info(svc, target_query(fake));
  CHECK(reply.status == 504);
  CHECK(reply.code() == "upstream_timeout");
}

TEST_CASE("info e2e: oversize and truncated bodies are errors", "[e2e][info]") {
  service_process svc;
  // The status body limit is 64 KiB (PRODUCT.md): a body of exactly 65536 bytes is read,
  // one byte more is refused. The fake pads a JSON object to the exact size.
  fake_target_process at_limit{{"--fault", "oversize", "--oversize-bytes", "65536"}};
  auto reply = get_info(svc, target_query(at_limit));
  CHECK(reply.status == 200);
  CHECK(reply.json().at("info").is_object());
  fake_target_process big{{"--fault", "oversize", "--oversize-bytes", "65537"}};
  reply = get_info(svc, target_query(big));
  CHECK(reply.status == 502);
  CHECK(reply.code() == "upstream_failure");
  CHECK(stat(big, "status_requests") == 1);
  fake_target_process cut{{"--fault", "close-mid-body"}};
  reply = get_info(svc, target_query(cut));
  CHECK(reply.status == 502);
  CHECK(reply.code() == "upstream_failure");
  CHECK(stat(cut, "status_requests") == 1);
}

TEST_CASE("info e2e: loopback targets are 403 unless allowed", "[e2e][info]") {
  fake_target_process fake;
  service_process svc{{}, {}, false};
  for (auto host : {"127.0.0.1", "%5B::1%5D", "::ffff:127.0.0.1", "localhost"}) {
    auto reply = get_info(svc, std::string{"host="} + host + "&port="
                                 + std::to_string(fake.port()));
    CHECK(reply.status == 403);
    CHECK(reply.code() == "forbidden_target");
  }
  for (auto host : {"10.1.2.3", "192.168.0.1", "169.254.169.254", "100.64.0.1", "224.0.0.1"}) {
    auto reply = get_info(svc, std::string{"host="} + host);
    CHECK(reply.status == 403);
    CHECK(reply.code() == "forbidden_target");
  }
  CHECK(stat(fake, "connections") == 1); // Only our stats request reached it.
}

TEST_CASE("info e2e: every IPv4 spelling of an internal address is refused before a lookup",
          "[e2e][info]") {
  // The service asks this DNS server, so a spelling that slipped through to a lookup would
  // show as a query here.
  dns_server dns;
  fake_target_process fake;
  service_process svc{{"--dns-servers", "127.0.0.1:" + std::to_string(dns.port())}, {}, false};
  auto port = "&port=" + std::to_string(fake.port());
  for (auto host : {"0x7f000001", "2130706433", "0177.0.0.1", "127.1", "0x7f.1", "127.0.0.1.",
                    "0xA9.0xFE.0xA9.0xFE", "012.1", "0"}) {
    auto reply = get_info(svc, std::string{"host="} + host + port);
    INFO(host);
    CHECK(reply.status == 403);
    CHECK(reply.code() == "forbidden_target");
  }
  // A number that is not an address is neither an address nor a name.
  for (auto host : {"1.2.3.4.5", "09", "4294967296", "1.256.1"}) {
    auto reply = get_info(svc, std::string{"host="} + host);
    INFO(host);
    CHECK(reply.status == 400);
    CHECK(reply.code() == "invalid_input");
  }
  CHECK(dns.total_queries() == 0);
  CHECK(stat(fake, "connections") == 1); // Only our stats request reached it.
}

TEST_CASE("info e2e: an allowed address written as a number is checked", "[e2e][info]") {
  fake_target_process fake;
  service_process svc;
  auto reply = get_info(svc, "host=0x7f000001&port=" + std::to_string(fake.port()));
  CHECK(reply.status == 200);
  CHECK(reply.json().at("ok").as_bool());
  CHECK(stat(fake, "status_requests") == 1);
}

TEST_CASE("info e2e: bad host, port and tls are 400 naming the field", "[e2e][info]") {
  service_process svc;
  struct row {
    const char* query;
    const char* field;
  };
  for (auto r : {row{"", "host"}, row{"host=a..b", "host"}, row{"host=a.com&port=0", "port"},
                 row{"host=a.com&port=x", "port"}, row{"host=a.com&tls=yes", "tls"}}) {
    auto reply = get_info(svc, r.query);
    CHECK(reply.status == 400);
    CHECK(reply.code() == "invalid_input");
    // PRODUCT.md: a 400's message is "a string naming the field and the rule"; the body has
    // no structured field name, so the message is what is under test here.
    CHECK(error_text(reply).find(r.field) != std::string::npos);
  }
}

TEST_CASE("info e2e: concurrent identical calls share one upstream request",
          "[e2e][info]") {
  fake_target_process fake{{"--fault", "delay", "--delay-ms", "800"}};
  service_process svc;
  std::vector<std::future<http_reply>> calls;
  for (int i = 0; i < 20; ++i)
    calls.push_back(std::async(std::launch::async, [&] { return get_info(svc, target_query(fake)); }));
  for (auto& call : calls)
    CHECK(call.get().status == 200);
  // All 20 arrive within the 800 ms the first one takes, so they share it; allow a second
  // round for a thread that was scheduled very late.
  CHECK(stat(fake, "status_requests") <= 2);
}

TEST_CASE("info e2e: SIGTERM lets an in-flight call finish, then exits 0", "[e2e][info]") {
  // The target holds its answer for a second: the window in which shutdown is watched.
  fake_target_process fake{{"--fault", "delay", "--delay-ms", "1000"}};
  service_process svc;
  auto call = std::async(std::launch::async, [&] { return get_info(svc, target_query(fake)); });
  // The call is in flight once the target has it.
  INFO("waiting for the call to reach the target");
  REQUIRE(wait_until([&] { return stat(fake, "status_requests") == 1; }, 5s));
  svc.process().signal(SIGTERM);
  // New connections are refused once shutdown began, while the call is still owed.
  INFO("waiting for the listener to close");
  CHECK(wait_until(
    [&] {
      return http_request(svc.port(), "GET", "/healthz", {}, {}, 1s).error.rfind("connect:", 0)
             == 0;
    },
    900ms));
  CHECK(call.wait_for(0s) == std::future_status::timeout);
  auto reply = call.get();
  CHECK(reply.status == 200);
  CHECK(svc.process().wait(10s) == 0);
}

TEST_CASE("info e2e: after SIGTERM /readyz turns 503 while calls are still served for the "
          "drain period, then the listener closes and the service exits 0",
          "[e2e][info]") {
  fake_target_process fake;
  service_process svc{{"--shutdown-drain-ms", "1500"}};
  REQUIRE(http_request(svc.port(), "GET", "/readyz").status == 200);
  auto signalled = std::chrono::steady_clock::now();
  svc.process().signal(SIGTERM);
  INFO("waiting for /readyz to say the service is leaving");
  REQUIRE(wait_until([&] { return http_request(svc.port(), "GET", "/readyz").status == 503; },
                     1s));
  auto ready = http_request(svc.port(), "GET", "/readyz");
  CHECK(ready.code() == "unavailable");
  // Still served, each on a connection that closes after it, so clients come back through
  // the load balancer.
  auto served = get_info(svc, target_query(fake));
  CHECK(served.status == 200);
  CHECK(served.header("connection") == "close");
  CHECK(http_request(svc.port(), "GET", "/healthz").status == 200);
  CHECK(std::chrono::steady_clock::now() - signalled < 1500ms);
  // Then the listener closes and the process ends.
  CHECK(wait_until(
    [&] {
      return http_request(svc.port(), "GET", "/healthz", {}, {}, 1s).error.rfind("connect:", 0)
             == 0;
    },
    3s));
  CHECK(std::chrono::steady_clock::now() - signalled >= 1400ms);
  CHECK(svc.process().wait(10s) == 0);
}

TEST_CASE("server: pipelined requests are answered in order", "[e2e][server]") {
  service_process svc;
  std::string requests;
  for (auto path : {"/healthz", "/nope", "/openapi.json"})
    requests += std::string{"GET "} + path + " HTTP/1.1\r\nHost: x\r\n\r\n";
  requests += "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  auto raw = raw_exchange(svc.port(), requests, 5s);
  auto first = raw.find("HTTP/1.1 200");
  auto second = raw.find("HTTP/1.1 404");
  auto third = raw.find("HTTP/1.1 200", second);
  auto fourth = raw.find("HTTP/1.1 200", third + 1);
  CHECK(first != std::string::npos);
  CHECK(second != std::string::npos);
  CHECK(first < second);
  CHECK(third != std::string::npos);
  CHECK(fourth != std::string::npos);
  CHECK(raw.find("\"openapi\"") != std::string::npos);
}

TEST_CASE("server: malformed and oversized requests get JSON errors", "[e2e][server]") {
  service_process svc;
  auto raw = raw_exchange(svc.port(), "NOT HTTP AT ALL\r\n\r\n", 5s);
  CHECK(raw.find("HTTP/1.1 400") == 0);
  CHECK(raw.find("\"invalid_input\"") != std::string::npos);
  auto big = http_request(svc.port(), "POST", "/api/offer",
                          {{"Content-Type", "application/json"}}, std::string(20000, 'x'));
  CHECK(big.status == 413);
  CHECK(big.json().at("code") == "payload_too_large");
  CHECK(big.header("x-ratelimit-scope") == "ip");
  // Outside the API too; and a wrong method stays a 405 whatever the body's size.
  CHECK(http_request(svc.port(), "POST", "/healthz", {}, std::string(20000, 'x')).status == 413);
  auto wrong = http_request(svc.port(), "POST", "/api/info?host=a.com", {},
                            std::string(20000, 'x'));
  CHECK(wrong.status == 405);
  CHECK(wrong.header("x-ratelimit-scope") == "ip");
  // The server is still fine afterwards.
  CHECK(http_request(svc.port(), "GET", "/healthz").status == 200);
}

TEST_CASE("server: access log lines carry the call and never a key", "[e2e][server]") {
  fake_target_process fake;
  service_process svc;
  // An unknown key is refused with 401; the point here is what gets logged.
  auto reply = http_request(svc.port(), "GET", "/api/info?" + target_query(fake),
                            {{"X-API-Key", "nsk_secret_value_for_test"}});
  CHECK(reply.status == 401);
  auto line = svc.process().wait_for_line(
    [](const std::string& l) { return l.find("\"event\":\"access\"") != std::string::npos; },
    5s);
  REQUIRE(line);
  auto entry = boost::json::parse(*line).as_object();
  CHECK(entry.at("method") == "GET");
  CHECK(entry.at("route") == "/api/info");
  CHECK(entry.at("status") == 401);
  CHECK(entry.at("client") == "127.0.0.1");
  CHECK(entry.at("target").as_string() == ("127.0.0.1:" + std::to_string(fake.port())).c_str());
  CHECK(entry.contains("duration_us"));
  // The error's code, and the id the client got in X-Request-Id.
  CHECK(entry.at("code") == "unauthorized");
  REQUIRE_FALSE(reply.header("x-request-id").empty());
  CHECK(entry.at("request_id").as_string() == reply.header("x-request-id").c_str());
  for (auto& l : svc.process().lines())
    CHECK(l.find("nsk_secret") == std::string::npos);
}

namespace {

/// The access-log lines of a service so far, parsed.
std::vector<boost::json::object> access_lines(service_process& svc) {
  std::vector<boost::json::object> result;
  for (auto& line : svc.process().lines())
    if (line.find("\"event\":\"access\"") != std::string::npos)
      result.push_back(boost::json::parse(line).as_object());
  return result;
}

/// Waits until the access log has a line for route, and returns it.
boost::json::object access_line(service_process& svc, const std::string& route) {
  auto line = svc.process().wait_for_line(
    [&](const std::string& l) {
      return l.find("\"event\":\"access\"") != std::string::npos
             && l.find("\"route\":\"" + route + "\"") != std::string::npos;
    },
    5s);
  REQUIRE(line);
  return boost::json::parse(*line).as_object();
}

} // namespace

TEST_CASE("server: probes stay out of the access log unless asked, ids are unique",
          "[e2e][server]") {
  service_process svc;
  std::set<std::string> ids;
  for (auto path : {"/healthz", "/readyz", "/metrics"}) {
    auto reply = http_request(svc.port(), "GET", path);
    CHECK(reply.status == 200);
    ids.insert(reply.header("x-request-id"));
  }
  // A call after the probes: each probe's response was written, and its line (if any)
  // logged, before the next request was sent, so by the time this call's line shows, a
  // probe's line would be there too.
  auto missing = http_request(svc.port(), "GET", "/nowhere");
  CHECK(missing.status == 404);
  ids.insert(missing.header("x-request-id"));
  auto line = access_line(svc, "unknown");
  CHECK(line.at("code") == "not_found");
  CHECK(line.at("request_id").as_string() == missing.header("x-request-id").c_str());
  CHECK(access_lines(svc).size() == 1);
  CHECK(ids.size() == 4);
  CHECK(ids.count("") == 0);

  service_process verbose{{"--access-log-probes"}};
  CHECK(http_request(verbose.port(), "GET", "/healthz").status == 200);
  CHECK(access_line(verbose, "/healthz").at("status") == 200);
}

TEST_CASE("server: in_flight is back to 0 once calls are answered", "[e2e][server]") {
  fake_target_process fake{{"--fault", "delay", "--delay-ms", "700"}};
  service_process svc;
  // While a slow call is with the actors it is counted...
  int slow_status = 0;
  std::thread slow([&] { slow_status = get_info(svc, target_query(fake)).status; });
  CHECK(wait_until([&] { return metric(svc, "netherscope_in_flight") == 1; }, 5s));
  slow.join();
  CHECK(slow_status == 200);
  // ...and once it is answered nothing is: the scrape does not count itself.
  CHECK(wait_until([&] { return metric(svc, "netherscope_in_flight") == 0; }, 5s));
  CHECK(metric(svc, "netherscope_in_flight") == 0);
}

TEST_CASE("server: readiness and Prometheus metrics", "[e2e][server]") {
  fake_target_process fake;
  service_process svc;
  auto ready = http_request(svc.port(), "GET", "/readyz");
  CHECK(ready.status == 200);
  CHECK(ready.json().at("ok") == true);
  CHECK(get_info(svc, target_query(fake)).status == 200);
  CHECK(get_info(svc, "host=").status == 400);
  auto metrics = http_request(svc.port(), "GET", "/metrics");
  REQUIRE(metrics.status == 200);
  CHECK(metrics.header("content-type").find("text/plain") == 0);
  // A response is counted once its write has completed on the server, which may be just
  // after the client has read it: wait for the counters rather than read them once.
  const std::string ok_series = "netherscope_requests_total{route=\"/api/info\",status=\"2xx\"}";
  const std::string bad_series = "netherscope_requests_total{route=\"/api/info\",status=\"4xx\"}";
  INFO("waiting for one 2xx and one 4xx on /api/info");
  CHECK(wait_until([&] { return metric(svc, ok_series) == 1 && metric(svc, bad_series) == 1; },
                   5s));
  CHECK(metric(svc, ok_series) == 1);
  CHECK(metric(svc, bad_series) == 1);
  CHECK(metric(svc, "netherscope_probes") == 1);
  // Our own /metrics connection is open while it is counted.
  CHECK(metric(svc, "netherscope_connections") >= 1);
}

TEST_CASE("server: a quiet client still gets a slow answer", "[e2e][server]") {
  // The read timeout is for idle connections; while a response is owed the client may be
  // quiet for longer than it.
  fake_target_process fake{{"--fault", "delay", "--delay-ms", "1500"}};
  service_process svc{{"--read-timeout-ms", "500"}};
  auto reply = get_info(svc, target_query(fake));
  CHECK(reply.status == 200);
  // An idle connection is still closed after the timeout (well before the 5 s we would wait).
  auto start = std::chrono::steady_clock::now();
  auto raw = raw_exchange(svc.port(), "", 5s);
  CHECK(raw.empty());
  CHECK(std::chrono::steady_clock::now() - start < 3s);
}

TEST_CASE("server: 100-continue never overtakes an owed response", "[e2e][server]") {
  fake_target_process fake{{"--fault", "delay", "--delay-ms", "500"}};
  service_process svc;
  std::string expect_offer = "POST /api/offer HTTP/1.1\r\nHost: x\r\nContent-Type: "
                             "application/json\r\nExpect: 100-continue\r\nContent-Length: 2\r\n"
                             "Connection: close\r\n\r\n{}";
  // Alone, the client is told to continue, then answered.
  auto alone = raw_exchange(svc.port(), expect_offer, 5s);
  CHECK(alone.find("HTTP/1.1 100 Continue") == 0);
  CHECK(alone.find("HTTP/1.1 400") != std::string::npos);
  // Behind a pending response, no interim response is sent; both answers arrive in order.
  auto pipelined = raw_exchange(svc.port(),
                                "GET /api/info?" + target_query(fake)
                                  + " HTTP/1.1\r\nHost: x\r\n\r\n" + expect_offer,
                                5s);
  CHECK(pipelined.find("HTTP/1.1 200") == 0);
  CHECK(pipelined.find("100 Continue") == std::string::npos);
  CHECK(pipelined.find("HTTP/1.1 400") != std::string::npos);
}

TEST_CASE("server: one address cannot take every connection", "[e2e][server]") {
  service_process svc{{"--max-connections-per-ip", "2"}};
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::endpoint ep{boost::asio::ip::make_address("127.0.0.1"),
                                    static_cast<unsigned short>(svc.port())};
  boost::asio::ip::tcp::socket a{ioc};
  boost::asio::ip::tcp::socket b{ioc};
  a.connect(ep);
  b.connect(ep);
  // No wait is needed here: the service admits connections in the order they were made
  // (one acceptor, the kernel's queue) and counts each as it accepts it, so a and b are
  // counted before the third is looked at.
  auto third = http_request(svc.port(), "GET", "/healthz");
  CHECK(third.status == 503);
  CHECK(third.code() == "unavailable");
  // Closing one frees its slot once the service has seen the close.
  a.close();
  INFO("waiting for the freed slot");
  CHECK(wait_until(
    [&] { return http_request(svc.port(), "GET", "/healthz", {}, {}, 2s).status == 200; }, 5s));
}
