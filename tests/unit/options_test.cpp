#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>

#include "app/admin.hpp"
#include "app/options.hpp"
#include "support/process.hpp"

using namespace netherscope;

extern char** environ;

namespace {

/// Sets the process environment for one parse: the options read the real environment (through
/// program_options' parse_environment), so a test sets exactly its variables, with every other
/// NETHERSCOPE_ variable the test process inherited removed, and puts all back afterwards.
class scoped_environment {
public:
  explicit scoped_environment(const std::vector<std::string>& entries) {
    for (auto entry = environ; *entry != nullptr; ++entry) {
      std::string text{*entry};
      if (text.rfind("NETHERSCOPE_", 0) == 0)
        remember(text.substr(0, text.find('=')));
    }
    for (auto& [name, value] : saved_)
      ::unsetenv(name.c_str());
    for (auto& entry : entries) {
      auto eq = entry.find('=');
      REQUIRE(eq != std::string::npos);
      auto name = entry.substr(0, eq);
      remember(name);
      ::setenv(name.c_str(), entry.substr(eq + 1).c_str(), 1);
    }
  }

  ~scoped_environment() {
    for (auto& [name, value] : saved_) {
      if (value)
        ::setenv(name.c_str(), value->c_str(), 1);
      else
        ::unsetenv(name.c_str());
    }
  }

  scoped_environment(const scoped_environment&) = delete;
  scoped_environment& operator=(const scoped_environment&) = delete;

private:
  void remember(const std::string& name) {
    if (saved_.count(name) != 0)
      return;
    const char* value = std::getenv(name.c_str());
    saved_.emplace(name, value ? std::optional<std::string>{value} : std::nullopt);
  }

  std::map<std::string, std::optional<std::string>> saved_;
};

parse_result parse(std::vector<std::string> args, std::vector<std::string> env = {}) {
  args.insert(args.begin(), "netherscope");
  std::vector<const char*> argv;
  for (auto& a : args)
    argv.push_back(a.c_str());
  scoped_environment scope{env};
  return parse_options(static_cast<int>(argv.size()), argv.data());
}

/// Runs `netherscope admin` with args in this process, under exactly the given environment.
int admin(std::vector<std::string> args, std::vector<std::string> env = {}) {
  args.insert(args.begin(), "admin");
  std::vector<const char*> argv;
  for (auto& a : args)
    argv.push_back(a.c_str());
  scoped_environment scope{env};
  return run_admin(static_cast<int>(argv.size()), argv.data());
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
  // The admin CLI shares the binary; --help is where an operator finds out.
  CHECK(r.message.find("netherscope admin") != std::string::npos);
}

TEST_CASE("options: docs/netherscope-help.txt is what --help prints", "[options]") {
  // tools/run.sh --help prints that file, so it must answer before anything is built.
  INFO("after changing an option: build/netherscope --help > docs/netherscope-help.txt");
  std::ifstream file{DOCS_DIR "/netherscope-help.txt"};
  REQUIRE(file);
  std::string saved{std::istreambuf_iterator<char>{file}, std::istreambuf_iterator<char>{}};
  auto r = parse({"--help"});
  REQUIRE(r.status == parse_status::exit_ok);
  auto trimmed = [](std::string text) {
    while (!text.empty() && text.back() == '\n')
      text.pop_back();
    return text;
  };
  CHECK(trimmed(r.message) == trimmed(saved));
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

TEST_CASE("options: a negative count is refused, not wrapped to unlimited", "[options]") {
  // Boost would read -1 into an unsigned 64-bit limit as 18446744073709551615.
  CHECK(parse({"--limit-offer-ip", "-1"}).status == parse_status::exit_error);
  CHECK(parse({}, {"NETHERSCOPE_LIMIT_INFO_KEY=-5"}).status == parse_status::exit_error);
  test::temp_dir dir;
  auto file = dir.path() + "/netherscope.conf";
  std::ofstream{file} << "limit-info-ip = -2\n";
  CHECK(parse({"--config", file}).status == parse_status::exit_error);
  auto r = parse({"--limit-offer-ip", "0"});
  REQUIRE(r.status == parse_status::run);
  CHECK(r.cfg.limit_offer_ip == 0);
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

TEST_CASE("options: bad values are refused", "[options]") {
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

TEST_CASE("options: the environment sets any option, named NETHERSCOPE_<NAME>", "[options]") {
  test::temp_dir dir;
  auto file = dir.path() + "/netherscope.conf";
  std::ofstream{file} << "port = 7000\n";
  auto r = parse({}, {"NETHERSCOPE_OFFERS_PER_TARGET_PER_MINUTE=9", "NETHERSCOPE_CONFIG=" + file,
                      "NETHERSCOPE_TRUSTED_PROXY=10.0.0.0/8,192.0.2.0/24",
                      "NETHERSCOPEPORT=1", "OTHER_PORT=2"});
  REQUIRE(r.status == parse_status::run);
  CHECK(r.cfg.offers_per_target_per_minute == 9);
  CHECK(r.cfg.trusted_proxies.size() == 2);
  // The config file named by the environment is read, below the environment.
  CHECK(r.cfg.port == 7000);
  // A bad value from the environment is refused like a bad flag.
  CHECK(parse({}, {"NETHERSCOPE_PORT=many"}).status == parse_status::exit_error);
  CHECK(parse({}, {"NETHERSCOPE_PORT=70000"}).status == parse_status::exit_error);
}

TEST_CASE("options: a NETHERSCOPE_ variable that names no option is refused", "[options]") {
  // A misspelt variable would otherwise leave its setting at the default without a word.
  for (std::string variable : {"NETHERSCOPE_DENY_CIRD=10.0.0.0/8", "NETHERSCOPE_HELP=1",
                               "NETHERSCOPE_=1", "NETHERSCOPE_PORTS=9000"}) {
    INFO(variable);
    auto r = parse({}, {variable});
    CHECK(r.status == parse_status::exit_error);
    // The message names the variable, since that is what the operator has to find and fix.
    CHECK(r.message.find(variable.substr(0, variable.find('='))) != std::string::npos);
  }
  // --help still answers, so the operator can look the right name up.
  CHECK(parse({"--help"}, {"NETHERSCOPE_PORTS=9000"}).status == parse_status::exit_ok);
}

TEST_CASE("options: the client secret comes only from the environment", "[options]") {
  auto r = parse({}, {"NETHERSCOPE_GITHUB_CLIENT_SECRET=s3cret"});
  REQUIRE(r.status == parse_status::run);
  CHECK(r.cfg.github_client_secret == "s3cret");
  CHECK(parse({}).cfg.github_client_secret.empty());
  // A flag shows in `ps`, and a config file is easily committed: both are refused.
  CHECK(parse({"--github-client-secret", "s3cret"}).status == parse_status::exit_error);
  test::temp_dir dir;
  auto file = dir.path() + "/netherscope.conf";
  std::ofstream{file} << "github-client-secret = s3cret\n";
  CHECK(parse({"--config", file}).status == parse_status::exit_error);
  // And --help does not advertise it as a flag.
  CHECK(parse({"--help"}).message.find("--github-client-secret") == std::string::npos);
}

// -- the admin command line --

TEST_CASE("admin: an id past 64 bits is looked up as a login, not a crash", "[options][admin]") {
  test::temp_dir dir;
  CHECK(admin({"--data-dir", dir.path(), "issue-key", "123456789012345678901234567890"}) == 1);
  CHECK(admin({"--data-dir", dir.path(), "revoke-key", "18446744073709551616"}) == 1);
}

TEST_CASE("admin: months are YYYY-MM with a month of 01 to 12", "[options][admin]") {
  test::temp_dir dir;
  for (std::string month : {"2020-13", "2020-00", "abcd-ef", "2020-1", "2020/01", "2020-01x"}) {
    INFO(month);
    CHECK(admin({"--data-dir", dir.path(), "prune-usage", month}) == 1);
    CHECK(admin({"--data-dir", dir.path(), "usage", month}) == 1);
  }
  CHECK(admin({"--data-dir", dir.path(), "usage", "2020-12"}) == 0);
  CHECK(admin({"--data-dir", dir.path(), "prune-usage", "2020-01"}) == 0);
}

TEST_CASE("admin: the store's options come from the environment too", "[options][admin]") {
  // The container image sets NETHERSCOPE_DATA_DIR for the service; admin must open that store,
  // not make an empty one in the working directory.
  test::temp_dir from_env;
  test::temp_dir from_flag;
  const auto store_in = [](const test::temp_dir& d) {
    return std::filesystem::exists(d.path() + "/data.mdb");
  };
  // The service's other variables are not admin's to refuse.
  CHECK(admin({"accounts"}, {"NETHERSCOPE_DATA_DIR=" + from_env.path(), "NETHERSCOPE_PORT=1",
                             "NETHERSCOPE_STORE_MAP_SIZE_MB=64"})
        == 0);
  CHECK(store_in(from_env));
  // A flag still wins over the environment.
  CHECK(admin({"--data-dir", from_flag.path(), "accounts"},
              {"NETHERSCOPE_DATA_DIR=/nonexistent/netherscope"})
        == 0);
  CHECK(store_in(from_flag));
  CHECK(admin({"accounts"}, {"NETHERSCOPE_DATA_DIR=" + from_env.path(),
                             "NETHERSCOPE_STORE_MAP_SIZE_MB=lots"})
        == 2);
}

TEST_CASE("options: TLS detection deadline and scheme memory", "[options]") {
  auto defaults = parse({});
  REQUIRE(defaults.status == parse_status::run);
  // The detection deadline is well under the connect deadline: a target silent on a
  // ClientHello costs this, not the whole connect timeout.
  CHECK(defaults.cfg.tls_detect_timeout == std::chrono::milliseconds(1500));
  CHECK(defaults.cfg.tls_detect_timeout < defaults.cfg.connect_timeout);
  CHECK(defaults.cfg.scheme_memory == std::chrono::seconds(3600));

  auto set = parse({"--tls-detect-timeout-ms", "250"}, {"NETHERSCOPE_SCHEME_MEMORY_S=0"});
  REQUIRE(set.status == parse_status::run);
  CHECK(set.cfg.tls_detect_timeout == std::chrono::milliseconds(250));
  CHECK(set.cfg.scheme_memory == std::chrono::seconds(0));

  for (auto args : std::vector<std::vector<std::string>>{{"--tls-detect-timeout-ms", "5"},
                                                          {"--tls-detect-timeout-ms", "-1"},
                                                          {"--scheme-memory-s", "2592001"}}) {
    INFO(args[0] << " " << args[1]);
    CHECK(parse(args).status == parse_status::exit_error);
  }
}
