// Tests for net/xbox/endpoints: the --xbox-endpoints map (hosts of the chain to base URLs,
// plain HTTP only to loopback) and url_for.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "net/xbox/endpoints.hpp"
#include "support/process.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

// The error parse_endpoints gives for text, or "ok".
std::string refusal(const std::string& text) {
  std::string error;
  auto map = parse_endpoints(text, error);
  return map ? "ok" : error;
}

} // namespace

TEST_CASE("xbox endpoints: unnamed hosts go to production over HTTPS", "[xbox]") {
  std::string error;
  auto map = parse_endpoints("{}", error);
  REQUIRE(map);
  CHECK(map->bases.empty());
  CHECK(url_for(*map, hosts::login_live, "/oauth20_token.srf")
        == "https://login.live.com/oauth20_token.srf");
  CHECK(url_for(*map, hosts::discovery, "/api/v1.0/discovery/MinecraftPE/builds/1.26.45")
        == "https://client.discovery.minecraft-services.net/api/v1.0/discovery/MinecraftPE/"
           "builds/1.26.45");
  CHECK(url_for(*map, "example.org", "/x") == "https://example.org/x");
}

TEST_CASE("xbox endpoints: a named host goes to its base URL, path prefix included",
          "[xbox]") {
  std::string error;
  auto map = parse_endpoints(R"({"login.live.com": "http://127.0.0.1:40123/",
                                 "sisu.xboxlive.com": "http://[::1]:40123/sisu",
                                 "xsts.auth.xboxlive.com": "http://localhost:8/",
                                 "20ca2.playfabapi.com": "https://playfab.test.example"})",
                             error);
  INFO(error);
  REQUIRE(map);
  CHECK(map->bases.size() == 4);
  CHECK(url_for(*map, hosts::login_live, "/oauth20_connect.srf")
        == "http://127.0.0.1:40123/oauth20_connect.srf");
  CHECK(url_for(*map, hosts::sisu, "/authorize") == "http://[::1]:40123/sisu/authorize");
  CHECK(url_for(*map, hosts::xsts, "/xsts/authorize") == "http://localhost:8/xsts/authorize");
  CHECK(url_for(*map, hosts::playfab, "/Client/LoginWithXbox")
        == "https://playfab.test.example/Client/LoginWithXbox");
  // Hosts the file does not name stay on production.
  CHECK(url_for(*map, hosts::device_auth, "/device/authenticate")
        == "https://device.auth.xboxlive.com/device/authenticate");
}

TEST_CASE("xbox endpoints: every production host may be named", "[xbox]") {
  std::string text = "{";
  for (auto host : production_hosts)
    text += (text.size() > 1 ? "," : "") + std::string{"\""} + std::string{host}
            + "\":\"http://127.0.0.1:1\"";
  text += "}";
  std::string error;
  auto map = parse_endpoints(text, error);
  INFO(error);
  REQUIRE(map);
  CHECK(map->bases.size() == production_hosts.size());
}

TEST_CASE("xbox endpoints: mistakes are refused with the key named", "[xbox]") {
  CHECK(refusal("[]") == "the Xbox endpoints are not a JSON object");
  CHECK(refusal("not json") == "the Xbox endpoints are not a JSON object");
  auto unknown = refusal(R"({"login.live.co": "http://127.0.0.1:1"})");
  CHECK(unknown.find("\"login.live.co\", which is no host of the chain") != std::string::npos);
  CHECK(unknown.find("sisu.xboxlive.com") != std::string::npos);
  CHECK(refusal(R"({"login.live.com": 8080})")
        == "the Xbox endpoint for login.live.com is not a string");
  CHECK(refusal(R"({"login.live.com": "127.0.0.1:8080"})")
        == "the Xbox endpoint for login.live.com is not an absolute URL");
  CHECK(refusal(R"({"login.live.com": "ftp://127.0.0.1"})").find("must start with https://")
        != std::string::npos);
  CHECK(refusal(R"({"login.live.com": "http://127.0.0.1:1/?x=1"})").find("a query")
        != std::string::npos);
  CHECK(refusal(R"({"login.live.com": "https://user:pw@example.org"})")
          .find("user information")
        != std::string::npos);
}

TEST_CASE("xbox endpoints: plain HTTP only to loopback", "[xbox]") {
  CHECK(refusal(R"({"login.live.com": "http://127.8.9.10:1"})") == "ok");
  CHECK(refusal(R"({"login.live.com": "http://[::1]:1"})") == "ok");
  CHECK(refusal(R"({"login.live.com": "http://LOCALHOST:1"})") == "ok");
  CHECK(refusal(R"({"login.live.com": "http://fake.localhost:1"})") == "ok");
  CHECK(refusal(R"({"login.live.com": "https://198.51.100.7"})") == "ok");
  for (auto url : {"http://198.51.100.7:1", "http://10.0.0.1", "http://example.org",
                   "http://[::ffff:198.51.100.7]", "http://localhost.example.org"}) {
    INFO(url);
    CHECK(refusal(std::string{R"({"login.live.com": ")"} + url + "\"}").find("not loopback")
          != std::string::npos);
  }
}

TEST_CASE("xbox endpoints: the file is read, and its name is in the errors", "[xbox]") {
  netherscope::test::temp_dir dir;
  auto path = dir.path() + "/endpoints.json";
  std::string error;
  CHECK_FALSE(load_endpoints(path, error));
  CHECK(error == "cannot read the Xbox endpoints file " + path);

  std::ofstream(path) << R"({"device.auth.xboxlive.com": "http://127.0.0.1:9"})";
  auto map = load_endpoints(path, error);
  REQUIRE(map);
  CHECK(url_for(*map, hosts::device_auth, "/device/authenticate")
        == "http://127.0.0.1:9/device/authenticate");

  std::ofstream(path) << R"({"nope": "http://127.0.0.1:9"})";
  CHECK_FALSE(load_endpoints(path, error));
  CHECK(error.find("(in " + path + ")") != std::string::npos);
}
