// End to end: the Grafana dashboard of deploy/grafana/ against a real Prometheus (Debian's)
// scraping the real service on loopback, which watches one server that is up and one that is
// down. Every query of every panel must return data, and the down server must show as 0, not
// as missing, which is what makes a dashboard say "No data".
#include <catch2/catch.hpp>

#include <csignal>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <boost/json.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

#include "storage/accounts.hpp"
#include "support/http.hpp"
#include "support/missing_part.hpp"
#include "support/process.hpp"
#include "support/store.hpp"
#include "support/wait.hpp"

namespace test = netherscope::test;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

constexpr const char* prometheus_bin = "/usr/bin/prometheus";

/// An API key of a fresh account in the service's store.
std::string key_for_grafana(netherscope::storage::store& store) {
  std::string key;
  test::in_records(store, true, [&](netherscope::storage::record_txn& t) {
    auto issued = netherscope::storage::issue_key(t, 701, "grafana", std::time(nullptr));
    REQUIRE(issued);
    key = issued->key;
  });
  return key;
}

test::http_reply watch_publicly(unsigned service_port, const std::string& key, unsigned port) {
  return test::http_request(service_port, "POST", "/api/watch",
                            {{"X-API-Key", key}, {"Content-Type", "application/json"}},
                            R"({"host":"127.0.0.1","port":)" + std::to_string(port)
                              + R"(,"periodSeconds":2,"public":true})");
}

/// The result of an instant query: the "result" array, or null when the query failed.
json::value query(unsigned prometheus_port, const std::string& promql) {
  auto path = "/api/v1/query?query="
              + boost::urls::encode(promql, boost::urls::unreserved_chars);
  auto reply = test::http_request(prometheus_port, "GET", path);
  if (reply.status != 200)
    return nullptr;
  auto body = json::parse(reply.body);
  if (body.at("status") != "success")
    return nullptr;
  return body.at("data").at("result");
}

/// The value of the sample of result whose server_port label is port, or empty.
std::string value_for_port(const json::value& result, unsigned port) {
  if (!result.is_array())
    return {};
  for (const auto& sample : result.as_array()) {
    const auto& labels = sample.at("metric").as_object();
    auto it = labels.find("server_port");
    if (it != labels.end() && it->value().is_string()
        && it->value().as_string() == std::to_string(port))
      return std::string{sample.at("value").as_array().at(1).as_string()};
  }
  return {};
}

} // namespace

TEST_CASE("grafana e2e: every panel of the dashboard shows data from a real Prometheus, and a "
          "down server shows as 0",
          "[e2e][metrics][grafana]") {
  if (!std::filesystem::exists(prometheus_bin)) {
    test::missing_part("prometheus not found at /usr/bin/prometheus: the dashboard's queries were "
                       "not run (WITH_TESTS=1 tools/setup.sh installs Debian's prometheus)");
    return;
  }
  std::ifstream file{std::string{DOCS_DIR} + "/../deploy/grafana/netherscope.json"};
  REQUIRE(file);
  auto dashboard = json::parse(std::string{std::istreambuf_iterator<char>{file}, {}});

  test::fake_target_process up{
    {"--raknet", "on", "--info",
     R"({"name":"Up","protocol":2193,"version":"1.26.51","players":3,"maxPlayers":10})"}};
  const auto down = test::unused_port();
  test::service_process svc{{"--watch-min-period", "2", "--status-timeout-ms", "2000",
                             "--answer-timeout-ms", "2000"}};
  auto key = key_for_grafana(*test::open_lmdb(svc.data_dir()).store);
  REQUIRE(watch_publicly(svc.port(), key, up.port()).status == 201);
  REQUIRE(watch_publicly(svc.port(), key, down).status == 201);
  // Some API traffic, an error among it.
  CHECK(test::http_request(svc.port(), "GET", "/api/info?host=127.0.0.1&port="
                                                + std::to_string(up.port())).status == 200);
  CHECK(test::http_request(svc.port(), "GET", "/api/info?host=").status == 400);

  // Both servers checked and exported.
  INFO("waiting for both watched servers in /metrics");
  REQUIRE(test::wait_until(
    [&] {
      auto text = test::http_request(svc.port(), "GET", "/metrics").body;
      auto exported = [&](unsigned port) {
        return text.find("netherscope_watch_verdict_code{server_host=\"127.0.0.1\",server_port=\""
                         + std::to_string(port) + "\"}")
               != std::string::npos;
      };
      return exported(up.port()) && exported(down);
    },
    40s, 250ms));

  test::temp_dir dir;
  const auto prometheus_port = test::unused_port();
  {
    std::ofstream config{dir.path() + "/prometheus.yml"};
    config << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
              "scrape_configs:\n  - job_name: netherscope\n    static_configs:\n"
              "      - targets: ['127.0.0.1:" << svc.port() << "']\n";
  }
  test::child_process prometheus{
    {"/bin/sh", "-c", "exec \"$0\" \"$@\" 2>\"$LOG\"", prometheus_bin,
     "--config.file=" + dir.path() + "/prometheus.yml",
     "--storage.tsdb.path=" + dir.path() + "/data",
     "--web.listen-address=127.0.0.1:" + std::to_string(prometheus_port)},
    {"LOG=" + dir.path() + "/prometheus.log"}};
  // Enough scrapes for a rate over the window the queries are given.
  INFO("waiting for Prometheus to scrape the service ten times");
  REQUIRE(test::wait_until(
    [&] {
      auto result = query(prometheus_port, "count_over_time(up{job=\"netherscope\"}[1m])");
      return result.is_array() && !result.as_array().empty()
             && std::stoi(std::string{result.as_array()[0].at("value").as_array()[1].as_string()})
                  >= 10;
    },
    60s, 500ms));

  std::size_t queries = 0;
  for (const auto& panel : dashboard.at("panels").as_array()) {
    for (const auto& target : panel.at("targets").as_array()) {
      std::string expr{target.at("expr").as_string()};
      // Grafana's rate window, at least four scrapes: here the scrape interval is 1 s.
      for (auto at = expr.find("$__rate_interval"); at != std::string::npos;
           at = expr.find("$__rate_interval"))
        expr.replace(at, 16, "5s");
      INFO("panel \"" << panel.at("title").as_string().c_str() << "\": " << expr);
      auto result = query(prometheus_port, expr);
      REQUIRE(result.is_array());
      CHECK_FALSE(result.as_array().empty());
      ++queries;
    }
  }
  CHECK(queries >= 14);

  auto expr_of = [&](const std::string& title) {
    for (const auto& panel : dashboard.at("panels").as_array())
      if (panel.at("title") == title.c_str())
        return std::string{panel.at("targets").as_array()[0].at("expr").as_string()};
    FAIL("no panel " << title);
    return std::string{};
  };
  // The down server is 0 (down, no players) beside the up one, never missing.
  auto servers_up = query(prometheus_port, expr_of("Servers up"));
  CHECK(value_for_port(servers_up, up.port()) == "1");
  CHECK(value_for_port(servers_up, down) == "0");
  auto players = query(prometheus_port, expr_of("Players"));
  CHECK(value_for_port(players, up.port()) == "3");
  CHECK(value_for_port(players, down) == "0");
  auto verdicts = query(prometheus_port, expr_of("Verdict"));
  CHECK(value_for_port(verdicts, up.port()) == "1");
  CHECK(value_for_port(verdicts, down) == "6");

  prometheus.signal(SIGTERM);
  CHECK(prometheus.wait(20s).has_value());
}
