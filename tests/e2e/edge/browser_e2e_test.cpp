// End to end in a real browser: the page at GET /, driven in Debian's chromium by
// tests/browser/page_test.mjs (playwright-core), against the real service, the fake target
// and the fake GitHub. This test starts the three on loopback and runs the script; the
// script checks the page step by step and saves its screenshots under build/browser/.
#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "support/fake_oauth.hpp"
#include "support/http.hpp"
#include "support/webrtc_answerer.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

/// The server name the fake target reports: markup that would run if the page ever put a
/// server's strings into HTML.
// In Bedrock's red (§c) and bold (§l): the page shows it in colour, and still as text.
constexpr const char* hostile_name = "\xC2\xA7" "c\xC2\xA7" "l<img src=x onerror=\"window.__xss=1\">";

/// A loopback port that was free a moment ago. The service's public base URL must name its
/// port before it starts (the provider sends the browser back there), so the port cannot be
/// the OS's choice at bind time; start_service retries if another process took it meanwhile.
unsigned free_loopback_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  auto ok = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0
            && ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0;
  ::close(fd);
  REQUIRE(ok);
  return ntohs(address.sin_port);
}

/// The service wired to the fake provider, on a port named in its own public base URL.
struct signin_service {
  temp_dir data;
  std::unique_ptr<child_process> process;
  unsigned port = 0;
};

std::unique_ptr<signin_service> start_service(const fake_oauth_provider& provider) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto svc = std::make_unique<signin_service>();
    svc->port = free_loopback_port();
    std::vector<std::string> argv{
      NETHERSCOPE_BIN, "--port", std::to_string(svc->port), "--data-dir", svc->data.path(),
      "--allow-loopback", "--github-client-id", "test-client",
      "--github-authorize-url", provider.authorize_url(), "--github-token-url",
      provider.token_url(), "--github-api-url", provider.api_url(),
      "--public-base-url", "http://127.0.0.1:" + std::to_string(svc->port)};
    svc->process = std::make_unique<child_process>(
      argv, std::vector<std::string>{"NETHERSCOPE_GITHUB_CLIENT_SECRET=test-secret"});
    auto line = svc->process->wait_for_line(
      [](const std::string& l) {
        return l.find("\"event\":\"listening\"") != std::string::npos
               || l.find("startup_failed") != std::string::npos;
      },
      20s);
    if (line && line->find("listening") != std::string::npos)
      return svc;
  }
  FAIL("the service did not start on a free port in 5 attempts");
  return nullptr;
}

} // namespace

TEST_CASE("browser e2e: the page in chromium: status, probed offer, verdict, join, explanation, "
          "error, sign-in, account page",
          "[e2e][browser]") {
  INFO("tools/setup.sh with WITH_TESTS=1 installs Debian's chromium and tests/browser's npm "
       "packages");
  REQUIRE(std::filesystem::exists(CHROMIUM_BIN));
  REQUIRE(std::filesystem::exists(BROWSER_TEST_DIR "/node_modules/playwright-core"));

  fake_oauth_provider provider;
  auto info = boost::json::serialize(boost::json::object{
    {"name", hostile_name}, {"protocol", 2193}, {"version", "1.26.51"},
    {"level", "Bedrock level"}, {"players", 3}, {"maxPlayers", 10}, {"gameType", 0}});
  // It answers RakNet's ping too: the pong carries the hostile name as well.
  fake_target_process target({"--info", info, "--raknet", "on"});
  fake_target_process raknet_only({"--info", info, "--raknet", "only"});
  fake_target_process online({"--auth", "online"});
  // A server that refuses every offer with NetherNet error 13: the verdict "refused", and the
  // error's link to its explanation. (37 is the online-mode refusal, verdict auth_required.)
  fake_target_process refusing({"--reject-offers", "13"});
  // A WebRTC stack that speaks the Bedrock prelude, which the page's join gets into, and a
  // fake that answers checks but never starts DTLS, where a join fails.
  webrtc_answerer joinable{"libwebrtc"};
  fake_target_process no_dtls({"--game", "off"});
  auto svc = start_service(provider);

  std::filesystem::create_directories(SCREENSHOT_DIR);
  child_process script(
    {NODE_BIN, BROWSER_TEST_DIR "/page_test.mjs"},
    {"NETHERSCOPE_URL=http://127.0.0.1:" + std::to_string(svc->port),
     "TARGET=127.0.0.1:" + std::to_string(target.port()),
     "REFUSING_TARGET=127.0.0.1:" + std::to_string(refusing.port()), "TARGET_RAKNET=on",
     "RAKNET_ONLY_TARGET=127.0.0.1:" + std::to_string(raknet_only.port()),
     "ONLINE_TARGET=127.0.0.1:" + std::to_string(online.port()),
     "JOIN_TARGET=127.0.0.1:" + std::to_string(joinable.port()),
     "FAILING_JOIN_TARGET=127.0.0.1:" + std::to_string(no_dtls.port()),
     "SCREENSHOT_DIR=" SCREENSHOT_DIR,
     std::string{"HOSTILE_NAME="} + hostile_name, "CHROMIUM=" CHROMIUM_BIN, "SIGN_IN=1"});
  auto status = script.wait(150s);
  std::string output;
  for (auto& line : script.lines())
    output += line + "\n";
  INFO("page_test.mjs printed:\n" << output);
  REQUIRE(status.has_value());
  CHECK(*status == 0);
  CHECK(output.find("PASS: every step of the page test passed") != std::string::npos);
  // The sign-in really went through the provider, once.
  CHECK(provider.tokens_issued() == 1);
  // The service logged no key.
  for (auto& line : svc->process->lines())
    CHECK(line.find("nsk_") == std::string::npos);
}
