// The watched servers' exporter text: mc-monitor's names and labels, the transport label,
// escaping, one sample per series, and promtool's verdict on it (when Debian's prometheus
// package provides promtool).
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

#include "net/http/watch_metrics.hpp"
#include "support/missing_part.hpp"
#include "support/process.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using netherscope::net::http::render_watch_metrics;
using netherscope::net::http::watched_server;

namespace {

watched_server joinable_server() {
  watched_server s;
  s.host = "play.example.com";
  s.port = 19132;
  s.last.at = 1760000400;
  s.last.verdict = core::verdict_code::joinable;
  s.last.players = 3;
  s.last.max_players = 10;
  s.last.version = "1.21.50";
  s.last.nethernet_us = 12345;
  return s;
}

watched_server raknet_server() {
  watched_server s;
  s.host = "203.0.113.7";
  s.port = 19133;
  s.last.at = 1760000300;
  s.last.verdict = core::verdict_code::raknet_only;
  s.last.raknet_checked = true;
  s.last.raknet_us = 2500;
  s.last.players = 7;
  s.last.max_players = 20;
  s.last.players_from_raknet = true;
  s.last.version = "1.20.80";
  return s;
}

watched_server offline_server() {
  watched_server s;
  s.host = "offline.example.com";
  s.port = 19132;
  s.last.at = 1760000200;
  s.last.verdict = core::verdict_code::offline;
  s.last.raknet_checked = true;
  return s;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in{text};
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

} // namespace

TEST_CASE("watch metrics: one server's text, line by line", "[watch_metrics]") {
  const std::string labels = R"({server_host="play.example.com",server_port="19132",)"
                             R"(server_edition="bedrock",server_version="1.21.50",)"
                             R"(transport="nethernet"})";
  auto lines = lines_of(render_watch_metrics({joinable_server()}));
  std::vector<std::string> samples;
  for (auto& line : lines)
    if (line.rfind("#", 0) != 0)
      samples.push_back(line);
  CHECK(samples
        == std::vector<std::string>{
          "minecraft_status_healthy" + labels + " 1",
          "minecraft_status_response_time_seconds" + labels + " 0.012345",
          "minecraft_status_players_online_count" + labels + " 3",
          "minecraft_status_players_max_count" + labels + " 10",
          R"(netherscope_watch_joinable{server_host="play.example.com",server_port="19132"} 1)",
          R"(netherscope_watch_verdict_code{server_host="play.example.com",server_port="19132"} 1)",
          R"(netherscope_watch_last_check_timestamp_seconds{server_host="play.example.com",)"
          R"(server_port="19132"} 1760000400)"});
  std::set<std::string> typed;
  for (auto& line : lines)
    if (line.rfind("# TYPE ", 0) == 0) {
      CHECK(line.substr(line.size() - 6) == " gauge");
      typed.insert(line.substr(7, line.size() - 13));
    }
  CHECK(typed.size() == 7);
  CHECK(render_watch_metrics({}).empty());
}

TEST_CASE("watch metrics: transports, offline servers, escaping and repeats", "[watch_metrics]") {
  auto hostile = joinable_server();
  hostile.host = "b.example.com";
  hostile.last.version = "a\"b\\c\nd";
  auto text = render_watch_metrics(
    {offline_server(), raknet_server(), hostile, joinable_server(), raknet_server()});
  auto contains = [&](const std::string& needle) { return text.find(needle) != std::string::npos; };
  // A RakNet-only server: NetherNet asked and silent, RakNet answered with the counts.
  CHECK(contains(R"(minecraft_status_healthy{server_host="203.0.113.7",server_port="19133",)"
                 R"(server_edition="bedrock",server_version="1.20.80",transport="nethernet"} 0)"));
  CHECK(contains(R"(minecraft_status_healthy{server_host="203.0.113.7",server_port="19133",)"
                 R"(server_edition="bedrock",server_version="1.20.80",transport="raknet"} 1)"));
  CHECK(contains(R"(minecraft_status_response_time_seconds{server_host="203.0.113.7",)"
                 R"(server_port="19133",server_edition="bedrock",server_version="1.20.80",)"
                 R"(transport="raknet"} 0.002500)"));
  CHECK(contains(R"(minecraft_status_players_online_count{server_host="203.0.113.7",)"
                 R"(server_port="19133",server_edition="bedrock",server_version="1.20.80",)"
                 R"(transport="raknet"} 7)"));
  // A check that sent no RakNet ping says nothing about RakNet.
  CHECK_FALSE(contains(R"(server_host="play.example.com",server_port="19132",)"
                       R"(server_edition="bedrock",server_version="1.21.50",transport="raknet")"));
  // Offline: unhealthy on both, with an empty version as mc-monitor writes it, and no times
  // or counts.
  CHECK(contains(R"(minecraft_status_healthy{server_host="offline.example.com",)"
                 R"(server_port="19132",server_edition="bedrock",server_version="",)"
                 R"(transport="raknet"} 0)"));
  CHECK_FALSE(contains(R"(minecraft_status_players_online_count{server_host="offline.)"));
  CHECK(contains(R"(server_version="a\"b\\c\nd")"));

  // Every family's samples follow its TYPE line, each series once.
  std::set<std::string> series;
  std::string current;
  for (auto& line : lines_of(text)) {
    if (line.rfind("# TYPE ", 0) == 0) {
      current = line.substr(7, line.find(' ', 7) - 7);
      continue;
    }
    if (line.rfind("#", 0) == 0)
      continue;
    CHECK(line.rfind(current + "{", 0) == 0);
    auto key = line.substr(0, line.rfind(' '));
    CHECK(series.insert(key).second);
  }
  CHECK(series.count(R"(netherscope_watch_joinable{server_host="203.0.113.7",server_port="19133"})")
        == 1);
}

TEST_CASE("watch metrics: a server that answers its status but turns players away is unhealthy",
          "[watch_metrics]") {
  // The status answered quickly, and the check's join ended at DTLS: NetherNet is what
  // failed, so its health is 0 while its response time is still written.
  auto s = joinable_server();
  s.last.verdict = core::verdict_code::join_failed;
  s.last.join = core::join_summary{core::join_stage_code::dtls, core::join_outcome_code::dtls_failed,
                                  std::uint32_t{5000000}};
  auto text = render_watch_metrics({s});
  auto contains = [&](const std::string& needle) { return text.find(needle) != std::string::npos; };
  const std::string labels = R"({server_host="play.example.com",server_port="19132",)"
                             R"(server_edition="bedrock",server_version="1.21.50",)"
                             R"(transport="nethernet"})";
  CHECK(contains("minecraft_status_healthy" + labels + " 0\n"));
  CHECK(contains("minecraft_status_response_time_seconds" + labels + " 0.012345\n"));
  CHECK(contains(R"(netherscope_watch_joinable{server_host="play.example.com",server_port="19132"} 0)"));
  CHECK(contains(R"(netherscope_watch_verdict_code{server_host="play.example.com",server_port="19132"} 11)"));
  // Joined: healthy again.
  s.last.verdict = core::verdict_code::joinable;
  s.last.join = core::join_summary{core::join_stage_code::game, core::join_outcome_code::joined,
                                  std::uint32_t{15000}};
  CHECK(render_watch_metrics({s}).find("minecraft_status_healthy" + labels + " 1\n")
        != std::string::npos);
}

TEST_CASE("watch metrics: promtool reads the text, and its lint objects only to the _count names",
          "[watch_metrics]") {
  const std::string promtool = "/usr/bin/promtool";
  if (access(promtool.c_str(), X_OK) != 0) {
    missing_part("promtool is not installed (Debian's prometheus package); not checked");
    return;
  }
  auto hostile = joinable_server();
  hostile.host = "b.example.com";
  hostile.last.version = "a\"b\\c\nd";
  netherscope::test::temp_dir dir;
  auto path = dir.path() + "/metrics.prom";
  {
    std::ofstream out{path, std::ios::binary};
    out << render_watch_metrics({joinable_server(), raknet_server(), offline_server(), hostile});
  }
  netherscope::test::child_process check{
    {"/bin/sh", "-c", promtool + " check metrics < '" + path + "' 2>&1; echo \"exit=$?\""}};
  auto done = check.wait_for_line([](const std::string& l) { return l.rfind("exit=", 0) == 0; },
                                  std::chrono::seconds(30));
  REQUIRE(done);
  auto lines = check.lines();
  INFO(lines.size() << " lines, the last " << *done);
  // Exit status 3 is promtool's "lint problems", after the text parsed; 1 would be a parse
  // error.
  CHECK(*done == "exit=3");
  std::set<std::string> objected;
  for (auto& line : lines) {
    if (line.rfind("exit=", 0) == 0)
      continue;
    INFO(line);
    CHECK(line.find("should not have \"_count\" suffix") != std::string::npos);
    objected.insert(line.substr(0, line.find(' ')));
  }
  CHECK(objected == std::set<std::string>{"minecraft_status_players_max_count",
                                          "minecraft_status_players_online_count"});
}
