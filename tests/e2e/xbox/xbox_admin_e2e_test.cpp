// The admin's Xbox commands (app/xbox_admin) against the fake Xbox chain (tools/fake_xbox):
// xbox-login by device code, the link sealed in a real LMDB store under the operator's key,
// xbox-status renewing through the whole chain, the refusals an operator meets (no key,
// another key, a second link, a revoked link, an Xbox refusal) and xbox-logout.

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>

#include <boost/json.hpp>

#include "base/crypto.hpp"
#include "support/fake_xbox.hpp"
#include "support/http.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace json = boost::json;

namespace {

// Every byte of every file under dir, to look for what must not be stored in the clear.
std::string all_bytes_under(const std::string& dir) {
  std::string out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) {
      std::ifstream in{entry.path(), std::ios::binary};
      std::ostringstream bytes;
      bytes << in.rdbuf();
      out += bytes.str();
    }
  return out;
}

struct admin_result {
  int status = -1;
  std::string output;
};

// The admin's stdout and stderr together, in one child whose stderr is its stdout.
class admin_run {
public:
  explicit admin_run(std::vector<std::string> args) {
    std::vector<std::string> argv{"/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1", NETHERSCOPE_BIN,
                                  "admin"};
    argv.insert(argv.end(), args.begin(), args.end());
    proc_ = std::make_unique<child_process>(argv);
  }

  bool shows(const std::string& text, std::chrono::milliseconds limit = 20s) {
    return proc_
      ->wait_for_line([&](const std::string& line) { return line.find(text) != std::string::npos; },
                      limit)
      .has_value();
  }

  admin_result finish() {
    admin_result r;
    auto status = proc_->wait(60s);
    REQUIRE(status);
    r.status = *status;
    proc_->wait_for_line([](const std::string&) { return false; }, 500ms);
    for (const auto& line : proc_->lines())
      r.output += line + "\n";
    return r;
  }

private:
  std::unique_ptr<child_process> proc_;
};

admin_result admin(std::vector<std::string> args) {
  return admin_run{std::move(args)}.finish();
}

// A service's store, the fake chain, and the files the operator gives both.
struct xbox_rig {
  explicit xbox_rig(std::vector<std::string> fake_args = {}) : fake(std::move(fake_args)) {
    key_file = write_key_file(files.path(), "secrets.key");
    endpoints_file = write_endpoints_file(files.path(), fake);
    svc = std::make_unique<service_process>(
      std::vector<std::string>{"--secrets-key-file", key_file});
  }

  std::vector<std::string> with(const std::string& command, const std::string& key = {}) {
    return {"--data-dir",       svc->data_dir(),  "--secrets-key-file", key.empty() ? key_file : key,
            "--xbox-endpoints", endpoints_file, command};
  }

  // xbox-login with the operator approving the code as soon as it is shown.
  admin_result login() {
    admin_run run{with("xbox-login")};
    REQUIRE(run.shows("enter the code"));
    fake.control({{"device", "approve"}});
    return run.finish();
  }

  fake_xbox_process fake;
  temp_dir files;
  std::string key_file;
  std::string endpoints_file;
  std::unique_ptr<service_process> svc;
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("xbox admin e2e: login links, status renews, logout unlinks", "[xbox][e2e][admin]") {
  xbox_rig rig;
  auto before = admin(rig.with("xbox-status"));
  CHECK(before.status == 1);
  CHECK(contains(before.output, "no Xbox account is linked"));

  auto linked = rig.login();
  INFO(linked.output);
  REQUIRE(linked.status == 0);
  CHECK(contains(linked.output, "https://www.microsoft.com/link?otc="));
  CHECK(contains(linked.output, "gamertag: Fake Steve"));
  CHECK(contains(linked.output, "XUID: 2535400000000001"));
  // The whole chain ran once before the link was kept.
  CHECK(rig.fake.stat("signatures_verified") == 3);
  // Nothing of a token is printed, and the store holds none in the clear: refresh tokens
  // start with M.R3_, the Xbox, PlayFab and services tokens are JWTs (eyJ...).
  CHECK_FALSE(contains(linked.output, "M.R3_"));
  CHECK_FALSE(contains(linked.output, "eyJ"));
  auto stored = all_bytes_under(rig.svc->data_dir());
  CHECK_FALSE(contains(stored, "M.R3_"));
  CHECK_FALSE(contains(stored, "eyJ"));
  CHECK_FALSE(contains(stored, "Fake Steve"));

  auto again = admin(rig.with("xbox-login"));
  CHECK(again.status == 1);
  CHECK(contains(again.output, "linked already"));

  auto status = admin(rig.with("xbox-status"));
  INFO(status.output);
  CHECK(status.status == 0);
  CHECK(contains(status.output, "chain: works"));
  CHECK(contains(status.output, "gamertag: Fake Steve"));
  CHECK(contains(status.output, "GameServerToken was issued"));
  CHECK_FALSE(contains(status.output, "eyJ"));

  auto out = admin(rig.with("xbox-logout"));
  CHECK(out.status == 0);
  CHECK(contains(out.output, "unlinked"));
  auto after = admin(rig.with("xbox-status"));
  CHECK(after.status == 1);
  CHECK(contains(after.output, "no Xbox account is linked"));
}

TEST_CASE("xbox admin e2e: the link opens only with the key that sealed it",
          "[xbox][e2e][admin]") {
  xbox_rig rig;
  REQUIRE(rig.login().status == 0);
  auto other_key = write_key_file(rig.files.path(), "other.key");
  auto status = admin(rig.with("xbox-status", other_key));
  CHECK(status.status == 1);
  CHECK(contains(status.output, "sealed with another secrets key"));
  // Without a key the link cannot be opened either, and the message says how to make one.
  auto keyless = admin({"--data-dir", rig.svc->data_dir(), "--xbox-endpoints",
                        rig.endpoints_file, "xbox-status"});
  CHECK(keyless.status == 1);
  CHECK(contains(keyless.output, "--secrets-key-file"));
  auto bad_key = rig.files.path() + "/bad.key";
  std::ofstream{bad_key} << "not a key\n";
  ::chmod(bad_key.c_str(), 0600);
  auto refused = admin(rig.with("xbox-status", bad_key));
  CHECK(refused.status == 2);
  CHECK(contains(refused.output, "--secrets-key-file"));
  CHECK_FALSE(contains(refused.output, "not a key"));
}

TEST_CASE("xbox admin e2e: the chain's refusals are the operator's, with the fix",
          "[xbox][e2e][admin]") {
  SECTION("an account Xbox refuses is not linked") {
    xbox_rig rig;
    rig.fake.control({{"sisu_xerr", 2148916233}});
    auto linked = rig.login();
    CHECK(linked.status == 1);
    CHECK(contains(linked.output, "nothing was stored"));
    auto status = admin(rig.with("xbox-status"));
    CHECK(contains(status.output, "no Xbox account is linked"));
  }
  SECTION("a revoked link says to link again") {
    xbox_rig rig;
    REQUIRE(rig.login().status == 0);
    rig.fake.control({{"revoke", true}});
    // Status starts from the stored link alone, so it must refresh, which the revocation
    // refuses.
    auto status = admin(rig.with("xbox-status"));
    INFO(status.output);
    CHECK(status.status == 1);
    CHECK(contains(status.output, "xbox-login"));
    CHECK(rig.fake.stat("refresh_refused") == 1);
  }
  SECTION("an unknown command word and a misplaced option are usage errors") {
    xbox_rig rig;
    CHECK(admin({"--data-dir", rig.svc->data_dir(), "xbox-status", "extra"}).status == 2);
    CHECK(admin({"--data-dir", rig.svc->data_dir(), "--xbox-endpoints", rig.endpoints_file,
                 "accounts"})
            .status
          == 2);
  }
}

TEST_CASE("xbox admin e2e: on the embedded default the data directory's own key seals the "
          "link, with no key file given to the service or to admin",
          "[xbox][e2e][admin]") {
  fake_xbox_process fake;
  temp_dir files;
  auto endpoints = write_endpoints_file(files.path(), fake);
  service_process svc{{"--xbox-endpoints", endpoints}};
  REQUIRE(std::filesystem::exists(svc.data_dir() + "/secrets.key"));
  // The chain is there from the start, unlinked.
  CHECK(metric(svc, R"(netherscope_xbox_link{state="unlinked"})") == 1);
  std::vector<std::string> args{"--data-dir", svc.data_dir(), "--xbox-endpoints", endpoints};
  auto with = [&](const std::string& command) {
    auto a = args;
    a.push_back(command);
    return a;
  };
  admin_run run{with("xbox-login")};
  REQUIRE(run.shows("enter the code"));
  fake.control({{"device", "approve"}});
  auto linked = run.finish();
  INFO(linked.output);
  REQUIRE(linked.status == 0);
  CHECK_FALSE(contains(linked.output, "made the secrets key"));
  auto status = admin(with("xbox-status"));
  INFO(status.output);
  CHECK(status.status == 0);
  CHECK(contains(status.output, "Fake Steve"));
}
