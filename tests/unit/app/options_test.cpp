#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string_view>

#include "app/admin.hpp"
#include "app/options.hpp"
#include "core/api_key.hpp"
#include "storage/accounts.hpp"
#include "support/process.hpp"
#include "support/redis_server.hpp"
#include "support/store.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

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

parse_result parse_args(std::vector<std::string> args, std::vector<std::string> env = {}) {
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

/// What a run of the real binary printed (stdout and stderr together) and its exit status.
struct run_result {
  std::optional<int> status;
  std::string output;
};

/// Runs build/netherscope with args as a child process, under the test's environment plus env,
/// and waits for it to exit; stderr is folded into stdout so the message can be read.
run_result run_binary(std::vector<std::string> args, std::vector<std::string> env = {}) {
  // The shell prints a last line of its own after the binary's, so the reader is known to
  // have everything once that line has come.
  constexpr std::string_view end_line = "-- end of output --";
  std::vector<std::string> argv{"/bin/sh", "-c",
                                "\"$0\" \"$@\" 2>&1; rc=$?; echo '" + std::string{end_line}
                                  + "'; exit $rc",
                                NETHERSCOPE_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  // Variables the test process inherited must not decide the outcome.
  scoped_environment clean{{}};
  test::child_process child{argv, env};
  run_result r;
  auto ended = child.wait_for_line([&](const std::string& line) { return line == end_line; },
                                   std::chrono::seconds(20));
  r.status = child.wait(std::chrono::seconds(20));
  REQUIRE(ended);
  for (auto& line : child.lines())
    if (line != end_line)
      r.output += line + "\n";
  return r;
}

} // namespace

TEST_CASE("options: embedded defaults", "[options]") {
  auto r = parse_args({});
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
  auto r = parse_args({"--help"});
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
  auto r = parse_args({"--help"});
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
  auto r = parse_args({"--config", file, "--port", "9000"},
                 {"NETHERSCOPE_PORT=8000", "NETHERSCOPE_LOG_LEVEL=error", "OTHER=1"});
  REQUIRE(r.status == parse_status::run);
  CHECK(r.cfg.port == 9000);
  CHECK(r.cfg.log_level == log::level::error);
  CHECK(r.cfg.status_timeout == std::chrono::milliseconds(1234));
}

TEST_CASE("options: a negative count is refused, not wrapped to unlimited", "[options]") {
  // Boost would read -1 into an unsigned 64-bit limit as 18446744073709551615.
  CHECK(parse_args({"--limit-offer-ip", "-1"}).status == parse_status::exit_error);
  CHECK(parse_args({}, {"NETHERSCOPE_LIMIT_INFO_KEY=-5"}).status == parse_status::exit_error);
  test::temp_dir dir;
  auto file = dir.path() + "/netherscope.conf";
  std::ofstream{file} << "limit-info-ip = -2\n";
  CHECK(parse_args({"--config", file}).status == parse_status::exit_error);
  auto r = parse_args({"--limit-offer-ip", "0"});
  REQUIRE(r.status == parse_status::run);
  CHECK(r.cfg.limit_offer_ip == 0);
}

TEST_CASE("options: CIDR lists from flags and environment", "[options]") {
  auto r = parse_args({"--allow-cidr", "192.0.2.0/24,198.51.100.0/24", "--allow-cidr", "::1/128"});
  REQUIRE(r.status == parse_status::run);
  CHECK(r.cfg.allow_cidrs.size() == 3);
  r = parse_args({}, {"NETHERSCOPE_DENY_CIDR=8.8.8.0/24", "NETHERSCOPE_ALLOW_LOOPBACK=true"});
  REQUIRE(r.status == parse_status::run);
  CHECK(r.cfg.deny_cidrs.size() == 1);
  CHECK(r.cfg.allow_loopback);
  CHECK(r.cfg.allow_cidrs.size() == 2);
  r = parse_args({"--allow-loopback"});
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
    auto r = parse_args(args);
    CHECK(r.status == parse_status::exit_error);
    CHECK_FALSE(r.message.empty());
  }
}

TEST_CASE("options: the environment sets any option, named NETHERSCOPE_<NAME>", "[options]") {
  test::temp_dir dir;
  auto file = dir.path() + "/netherscope.conf";
  std::ofstream{file} << "port = 7000\n";
  auto r = parse_args({}, {"NETHERSCOPE_OFFERS_PER_TARGET_PER_MINUTE=9", "NETHERSCOPE_CONFIG=" + file,
                      "NETHERSCOPE_TRUSTED_PROXY=10.0.0.0/8,192.0.2.0/24",
                      "NETHERSCOPEPORT=1", "OTHER_PORT=2"});
  REQUIRE(r.status == parse_status::run);
  CHECK(r.cfg.offers_per_target_per_minute == 9);
  CHECK(r.cfg.trusted_proxies.size() == 2);
  // The config file named by the environment is read, below the environment.
  CHECK(r.cfg.port == 7000);
  // A bad value from the environment is refused like a bad flag.
  CHECK(parse_args({}, {"NETHERSCOPE_PORT=many"}).status == parse_status::exit_error);
  CHECK(parse_args({}, {"NETHERSCOPE_PORT=70000"}).status == parse_status::exit_error);
}

TEST_CASE("options: a NETHERSCOPE_ variable that names no option is refused", "[options]") {
  // A misspelt variable would otherwise leave its setting at the default without a word.
  for (std::string variable : {"NETHERSCOPE_DENY_CIRD=10.0.0.0/8", "NETHERSCOPE_HELP=1",
                               "NETHERSCOPE_=1", "NETHERSCOPE_PORTS=9000"}) {
    INFO(variable);
    auto r = parse_args({}, {variable});
    CHECK(r.status == parse_status::exit_error);
    // The message names the variable, since that is what the operator has to find and fix.
    CHECK(r.message.find(variable.substr(0, variable.find('='))) != std::string::npos);
  }
  // --help still answers, so the operator can look the right name up.
  CHECK(parse_args({"--help"}, {"NETHERSCOPE_PORTS=9000"}).status == parse_status::exit_ok);
}

TEST_CASE("options: the client secret comes only from the environment", "[options]") {
  auto r = parse_args({}, {"NETHERSCOPE_GITHUB_CLIENT_SECRET=s3cret"});
  REQUIRE(r.status == parse_status::run);
  CHECK(r.cfg.github_client_secret == "s3cret");
  CHECK(parse_args({}).cfg.github_client_secret.empty());
  // A flag shows in `ps`, and a config file is easily committed: both are refused.
  CHECK(parse_args({"--github-client-secret", "s3cret"}).status == parse_status::exit_error);
  test::temp_dir dir;
  auto file = dir.path() + "/netherscope.conf";
  std::ofstream{file} << "github-client-secret = s3cret\n";
  CHECK(parse_args({"--config", file}).status == parse_status::exit_error);
  // And --help does not advertise it as a flag.
  CHECK(parse_args({"--help"}).message.find("--github-client-secret") == std::string::npos);
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
    // A malformed argument is a command-line error (2), refused before the store is opened.
    CHECK(admin({"--data-dir", dir.path(), "prune-usage", month}) == 2);
    CHECK(admin({"--data-dir", dir.path(), "usage", month}) == 2);
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
  auto defaults = parse_args({});
  REQUIRE(defaults.status == parse_status::run);
  // The detection deadline is well under the connect deadline: a target silent on a
  // ClientHello costs this, not the whole connect timeout.
  CHECK(defaults.cfg.tls_detect_timeout == std::chrono::milliseconds(1500));
  CHECK(defaults.cfg.tls_detect_timeout < defaults.cfg.connect_timeout);
  CHECK(defaults.cfg.scheme_memory == std::chrono::seconds(3600));

  auto set = parse_args({"--tls-detect-timeout-ms", "250"}, {"NETHERSCOPE_SCHEME_MEMORY_S=0"});
  REQUIRE(set.status == parse_status::run);
  CHECK(set.cfg.tls_detect_timeout == std::chrono::milliseconds(250));
  CHECK(set.cfg.scheme_memory == std::chrono::seconds(0));

  for (auto args : std::vector<std::vector<std::string>>{{"--tls-detect-timeout-ms", "5"},
                                                          {"--tls-detect-timeout-ms", "-1"},
                                                          {"--scheme-memory-s", "2592001"}}) {
    INFO(args[0] << " " << args[1]);
    CHECK(parse_args(args).status == parse_status::exit_error);
  }
}

TEST_CASE("options: --webhook-retry-for, from a flag or the environment", "[options]") {
  auto defaults = parse_args({});
  REQUIRE(defaults.status == parse_status::run);
  CHECK(defaults.cfg.webhook_retry_for == 600);
  auto set = parse_args({}, {"NETHERSCOPE_WEBHOOK_RETRY_FOR=0"});
  REQUIRE(set.status == parse_status::run);
  CHECK(set.cfg.webhook_retry_for == 0);
  CHECK(parse_args({"--webhook-retry-for", "2"}).cfg.webhook_retry_for == 2);
  CHECK(parse_args({"--webhook-retry-for", "86401"}).status == parse_status::exit_error);
  CHECK(parse_args({"--webhook-retry-for", "-1"}).status == parse_status::exit_error);
}

// -- exact names, --version, and validation before anything is made on disk --

TEST_CASE("options: names match exactly, never by prefix", "[options]") {
  // Boost's default style reads a unique prefix as the whole name: --data would be
  // --data-dir, and a new option would change what an old abbreviation meant.
  for (auto args : std::vector<std::vector<std::string>>{{"--data", "/tmp/x"},
                                                          {"--store-s", "false"},
                                                          {"--po", "9000"},
                                                          {"--allow-loop"}}) {
    INFO(args[0]);
    CHECK(parse_args(args).status == parse_status::exit_error);
  }
  auto whole = parse_args({"--store-sync", "false", "--port", "9000"});
  REQUIRE(whole.status == parse_status::run);
  CHECK_FALSE(whole.cfg.store_sync);
  CHECK(whole.cfg.port == 9000);
}

TEST_CASE("options: a misspelt variable is named with the nearest option", "[options]") {
  auto near = parse_args({}, {"NETHERSCOPE_DENY_CIRD=10.0.0.0/8"});
  REQUIRE(near.status == parse_status::exit_error);
  CHECK(near.message.find("NETHERSCOPE_DENY_CIRD") != std::string::npos);
  CHECK(near.message.find("NETHERSCOPE_DENY_CIDR") != std::string::npos);
  auto doubled = parse_args({}, {"NETHERSCOPE_PORTT=1"});
  REQUIRE(doubled.status == parse_status::exit_error);
  CHECK(doubled.message.find("NETHERSCOPE_PORT?") != std::string::npos);
  // Nothing is suggested for a name far from every option.
  auto far = parse_args({}, {"NETHERSCOPE_COMPLETELY_UNRELATED=1"});
  REQUIRE(far.status == parse_status::exit_error);
  CHECK(far.message.find("did you mean") == std::string::npos);
  CHECK(variable_for_option("allow-cidr") == "NETHERSCOPE_ALLOW_CIDR");
}

TEST_CASE("options: --version prints the version", "[options]") {
  auto r = parse_args({"--version"});
  REQUIRE(r.status == parse_status::exit_ok);
  CHECK(r.message == version_text());
  CHECK(r.message.rfind("netherscope ", 0) == 0);
  CHECK(r.message.size() > std::string{"netherscope \n"}.size());
}

TEST_CASE("options: --listen and --upstream-ca-file are checked while parsing", "[options]") {
  CHECK(parse_args({"--listen", "localhost"}).status == parse_status::exit_error);
  CHECK(parse_args({"--listen", "::"}).status == parse_status::run);
  CHECK(parse_args({"--upstream-ca-file", "/nonexistent/ca.pem"}).status == parse_status::exit_error);
}

TEST_CASE("options: the binary exits 2 and makes no data dir for a bad setting",
          "[options][process]") {
  test::temp_dir dir;
  const auto data = dir.path() + "/data";
  for (auto args : std::vector<std::vector<std::string>>{
         {"--data-dir", data, "--listen", "not-an-address"},
         {"--data-dir", data, "--upstream-ca-file", dir.path() + "/missing.pem"},
         {"--data-dir", data, "--port", "70000"},
         {"--data-dir", data, "--stor", "x"}}) {
    INFO(args[2]);
    auto r = run_binary(args);
    CHECK(r.status == 2);
    CHECK_FALSE(std::filesystem::exists(data));
  }
  // A misspelt variable: exit 2, the variable and the nearest one named, nothing made.
  auto r = run_binary({"--data-dir", data}, {"NETHERSCOPE_LOG_LEVLE=debug"});
  CHECK(r.status == 2);
  CHECK(r.output.find("NETHERSCOPE_LOG_LEVLE") != std::string::npos);
  CHECK(r.output.find("NETHERSCOPE_LOG_LEVEL") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(data));
  auto version = run_binary({"--version"});
  CHECK(version.status == 0);
  CHECK(version.output == version_text());
}

// -- admin: create-account, --version, and command-line errors --

TEST_CASE("admin: create-account prints a working key once and stores only its hash",
          "[options][admin][process]") {
  test::temp_dir dir;
  auto made = run_binary({"admin", "create-account", "--login", "ops-bot"},
                         {"NETHERSCOPE_DATA_DIR=" + dir.path()});
  REQUIRE(made.status == 0);
  // The key is the first line, alone on stdout; the note after it went to stderr.
  auto key = made.output.substr(0, made.output.find('\n'));
  CHECK(made.output.find("ops-bot") > key.size());
  REQUIRE_FALSE(key.empty());
  {
    // Closed again before admin runs in this process: LMDB allows one open per process.
    auto store = test::open_lmdb(dir.path()).store;
    test::in_records(*store, false, [&](storage::record_txn& records) {
      auto found = storage::account_by_key(records, core::hash_api_key(key));
      REQUIRE(found);
      REQUIRE(*found);
      CHECK((*found)->login == "ops-bot");
      // The stored record holds the hash, not the key.
      CHECK((*found)->active_key_hash == core::hash_api_key(key));
      CHECK((*found)->active_key_hash != key);
      // Operator-made accounts are numbered apart from GitHub's ids.
      CHECK((*found)->user_id >= (std::uint64_t{1} << 62));
    });
  }
  // A second account of the same name is refused (1: the store said no), the first kept.
  CHECK(admin({"--data-dir", dir.path(), "create-account", "--login", "OPS-BOT"}) == 1);
  CHECK(admin({"--data-dir", dir.path(), "create-account", "--login", "other"}) == 0);
  // issue-key finds it by login, as for a GitHub account.
  CHECK(admin({"--data-dir", dir.path(), "issue-key", "ops-bot"}) == 0);
}

TEST_CASE("admin: a bad command line exits 2 before any store is made", "[options][admin]") {
  test::temp_dir dir;
  const auto data = dir.path() + "/data";
  for (auto args : std::vector<std::vector<std::string>>{
         {"frobnicate"},
         {},
         {"accounts", "extra"},
         {"issue-key"},
         {"create-account"},
         {"create-account", "--login", "-bad"},
         {"create-account", "--login", "has space"},
         {"create-account", "--login", std::string(40, 'a')},
         {"accounts", "--login", "x"},
         {"usage", "2020-13"},
         {"prune-usage", "2020/01"},
         {"--data", data, "accounts"},
         {"--store", "rediss://127.0.0.1:6379?x=1", "accounts"},
         {"--store", "http://127.0.0.1:6379", "accounts"},
         {"--no-such-flag", "accounts"}}) {
    args.insert(args.begin(), {"--data-dir", data});
    INFO((args.size() > 2 ? args[2] : std::string{"(none)"}));
    CHECK(admin(args) == 2);
    CHECK_FALSE(std::filesystem::exists(data));
  }
}

TEST_CASE("admin: a Redis store that does not answer exits 1 with the reason, and keeps the "
          "password out of it",
          "[options][admin]") {
  test::temp_dir dir;
  // Port 1 on loopback: nothing listens there.
  auto out = run_binary({"admin", "--store", "redis://:s3cret-pass@127.0.0.1:1", "accounts"},
                        {"NETHERSCOPE_DATA_DIR=" + dir.path()});
  CHECK(out.status == 1);
  CHECK(out.output.find("cannot connect") != std::string::npos);
  CHECK(out.output.find("s3cret-pass") == std::string::npos);
  // On Redis the LMDB-only listings say why they do not apply.
  test::redis_server redis;
  auto usage = run_binary({"admin", "--store", redis.url(), "usage"},
                          {"NETHERSCOPE_DATA_DIR=" + dir.path()});
  CHECK(usage.status == 1);
  CHECK(usage.output.find("ns1:u:") != std::string::npos);
}

TEST_CASE("admin: --help lists the commands and --version the version",
          "[options][admin][process]") {
  auto help = run_binary({"admin", "--help"});
  CHECK(help.status == 0);
  for (auto command : {"create-account", "accounts", "usage", "issue-key", "revoke-key",
                       "prune-usage", "prune"})
    CHECK(help.output.find(command) != std::string::npos);
  auto version = run_binary({"admin", "--version"});
  CHECK(version.status == 0);
  CHECK(version.output == version_text());
  auto unknown = run_binary({"admin", "frobnicate"});
  CHECK(unknown.status == 2);
  CHECK(unknown.output.find("frobnicate") != std::string::npos);
}

TEST_CASE("options: --store-min-replicas is unset by default, bounded, and needs a Redis store",
          "[options]") {
  auto plain = parse_args({});
  REQUIRE(plain.status == parse_status::run);
  CHECK_FALSE(plain.cfg.store_min_replicas);
  auto given = parse_args({"--store", "redis+sentinel://127.0.0.1:26379/main",
                           "--store-min-replicas", "2"});
  REQUIRE(given.status == parse_status::run);
  CHECK(given.cfg.store_min_replicas == 2u);
  auto none = parse_args({"--store", "redis://127.0.0.1:6379"}, {"NETHERSCOPE_STORE_MIN_REPLICAS=0"});
  REQUIRE(none.status == parse_status::run);
  CHECK(none.cfg.store_min_replicas == 0u);
  // 0 says what LMDB does anyway; more has no replica to wait for.
  CHECK(parse_args({"--store-min-replicas", "0"}).status == parse_status::run);
  for (auto args : std::vector<std::vector<std::string>>{
         {"--store-min-replicas", "1"},
         {"--store", "redis://127.0.0.1:6379", "--store-min-replicas", "-1"},
         {"--store", "redis://127.0.0.1:6379", "--store-min-replicas", "17"},
         {"--store", "redis://127.0.0.1:6379", "--store-min-replicas", "one"}}) {
    auto r = parse_args(args);
    INFO(args.back() << ": " << r.message);
    CHECK(r.status == parse_status::exit_error);
    CHECK(r.message.find("store-min-replicas") != std::string::npos);
  }
}
