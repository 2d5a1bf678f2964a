#include <catch2/catch.hpp>

#include <fstream>

#include "app/options.hpp"
#include "support/process.hpp"

using namespace netherscope;

namespace {

parse_result parse(std::vector<std::string> args, std::vector<std::string> env = {}) {
  args.insert(args.begin(), "netherscope");
  std::vector<const char*> argv;
  for (auto& a : args)
    argv.push_back(a.c_str());
  std::vector<const char*> envp;
  for (auto& e : env)
    envp.push_back(e.c_str());
  envp.push_back(nullptr);
  return parse_options(static_cast<int>(argv.size()), argv.data(), envp.data());
}

} // namespace

TEST_CASE("options: embedded defaults", "[options]") {
  auto r = parse({});
  REQUIRE(r.status == parse_status::run);
  CHECK(r.cfg.listen_address == "127.0.0.1");
  CHECK(r.cfg.port == 8080);
  CHECK(r.cfg.data_dir == "data");
  CHECK(r.cfg.connect_timeout == std::chrono::milliseconds(5000));
  CHECK(r.cfg.status_timeout == std::chrono::milliseconds(10000));
  CHECK(r.cfg.answer_timeout == std::chrono::milliseconds(20000));
  CHECK_FALSE(r.cfg.allow_loopback);
  CHECK(r.cfg.allow_cidrs.empty());
}

TEST_CASE("options: help lists every option with its default", "[options]") {
  auto r = parse({"--help"});
  REQUIRE(r.status == parse_status::exit_ok);
  for (auto name : {"--listen", "--port", "--data-dir", "--threads", "--connect-timeout-ms",
                    "--status-timeout-ms", "--answer-timeout-ms", "--allow-cidr", "--deny-cidr",
                    "--allow-loopback", "--trusted-proxy", "--log-level", "--config"})
    CHECK(r.message.find(name) != std::string::npos);
  CHECK(r.message.find("(=8080)") != std::string::npos);
}

TEST_CASE("options: flag beats environment beats config file", "[options]") {
  test::temp_dir dir;
  auto file = dir.path() + "/netherscope.conf";
  std::ofstream{file} << "port = 7000\nlog-level = warn\nstatus-timeout-ms = 1234\n";
  auto r = parse({"--config", file, "--port", "9000"},
                 {"NETHERSCOPE_PORT=8000", "NETHERSCOPE_LOG_LEVEL=error", "OTHER=1"});
  REQUIRE(r.status == parse_status::run);
  CHECK(r.cfg.port == 9000);
  CHECK(r.cfg.log_level == log::level::error);
  CHECK(r.cfg.status_timeout == std::chrono::milliseconds(1234));
}

TEST_CASE("options: CIDR lists from flags and environment", "[options]") {
  auto r = parse({"--allow-cidr", "192.0.2.0/24,198.51.100.0/24", "--allow-cidr", "::1/128"});
  REQUIRE(r.status == parse_status::run);
  CHECK(r.cfg.allow_cidrs.size() == 3);
  r = parse({}, {"NETHERSCOPE_DENY_CIDR=8.8.8.0/24", "NETHERSCOPE_ALLOW_LOOPBACK=true"});
  REQUIRE(r.status == parse_status::run);
  CHECK(r.cfg.deny_cidrs.size() == 1);
  CHECK(r.cfg.allow_loopback);
  CHECK(r.cfg.allow_cidrs.size() == 2);
  r = parse({"--allow-loopback"});
  CHECK(r.cfg.allow_loopback);
}

TEST_CASE("options: bad values are refused with the option named", "[options]") {
  for (auto args : std::vector<std::vector<std::string>>{
         {"--port", "70000"},
         {"--threads", "0"},
         {"--allow-cidr", "10.0.0.1/8"},
         {"--trusted-proxy", "nonsense"},
         {"--log-level", "loud"},
         {"--no-such-option"},
         {"--config", "/nonexistent/netherscope.conf"},
         {"--connect-timeout-ms", "5"}}) {
    auto r = parse(args);
    CHECK(r.status == parse_status::exit_error);
    CHECK_FALSE(r.message.empty());
  }
}
