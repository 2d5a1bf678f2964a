// End to end: the OpenAPI document against the live service. Every documented route is
// called, its successes and the errors it can give, and each response must be one the
// document lists for that route and method: its status, its media type, and a body that
// validates against the documented schema (members the schema does not name included).
#include <catch2/catch.hpp>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <boost/json.hpp>
#include <boost/url/parse.hpp>

#include "app/service.hpp"
#include "support/fake_oauth.hpp"
#include "support/http.hpp"
#include "support/json_schema.hpp"
#include "support/rooms.hpp"
#include "support/wait.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace json = boost::json;

namespace {

const json::value& document() {
  static const json::value doc = json::parse(netherscope::app::openapi_document);
  return doc;
}

const json::value* follow(const json::value& v) {
  if (v.is_object())
    if (auto* ref = v.as_object().if_contains("$ref")) {
      std::string_view path = ref->as_string();
      path.remove_prefix(2);
      const json::value* at = &document();
      while (!path.empty()) {
        auto slash = path.find('/');
        at = &at->as_object().at(path.substr(0, slash));
        path = slash == std::string_view::npos ? std::string_view{} : path.substr(slash + 1);
      }
      return at;
    }
  return &v;
}

/// Checks one response against the document: route, method and status listed, the media
/// type documented, the JSON body valid against its schema, no body where none is described.
void check_documented(const std::string& path, const std::string& method, int status,
                      const std::string& content_type, const std::string& body) {
  INFO(method << " " << path << " -> " << status << " " << content_type << "\n"
              << body.substr(0, 400));
  auto& paths = document().at("paths").as_object();
  REQUIRE(paths.contains(path));
  auto& item = paths.at(path).as_object();
  // A method the route does not take is answered 405, which the route's operations list
  // (OpenAPI describes operations, not the methods a route refuses).
  auto operation = method;
  if (!item.contains(method) && status == 405)
    for (auto& [name, op] : item)
      if (op.is_object() && op.as_object().contains("responses")
          && op.at("responses").as_object().contains("405"))
        operation = std::string{name};
  REQUIRE(item.contains(operation));
  auto& responses = item.at(operation).at("responses").as_object();
  REQUIRE(responses.contains(std::to_string(status)));
  auto& response = follow(responses.at(std::to_string(status)))->as_object();
  auto* content = response.if_contains("content");
  if (content == nullptr || content->as_object().empty()) {
    // 302, 304 and HEAD answers are described without content.
    if (method == "head" || status == 304)
      CHECK(body.empty());
    return;
  }
  auto media = content_type.substr(0, content_type.find(';'));
  REQUIRE(content->as_object().contains(media));
  auto& described = content->as_object().at(media).as_object();
  if (media == "application/json") {
    boost::system::error_code ec;
    auto value = json::parse(body, ec);
    REQUIRE_FALSE(ec);
    if (auto* schema = described.if_contains("schema")) {
      auto problems = schema_violations(document(), *schema, value);
      std::string all;
      for (auto& p : problems)
        all += p + "\n";
      INFO(all);
      CHECK(problems.empty());
    }
  }
}

/// Calls the service and checks the answer; returns it for further checks.
http_reply call(unsigned port, const std::string& path, const std::string& method,
                const std::string& target, const header_list& headers = {},
                const std::string& body = {}) {
  std::string upper;
  for (char c : method)
    upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  auto reply = http_request(port, upper, target, headers, body);
  REQUIRE(reply.error.empty());
  check_documented(path, method, reply.status, reply.header("content-type"), reply.body);
  return reply;
}

/// A HEAD request over a raw connection (the test client reads a body by its length).
void check_head(unsigned port, const std::string& path, bool expect_no_body) {
  auto raw = raw_exchange(port, "HEAD " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                          5s);
  INFO("HEAD " << path << ":\n" << raw.substr(0, 600));
  REQUIRE(raw.rfind("HTTP/1.1 ", 0) == 0);
  auto status = std::stoi(raw.substr(9, 3));
  auto end = raw.find("\r\n\r\n");
  REQUIRE(end != std::string::npos);
  check_documented(path, "head", status, "", {});
  CHECK(status == 200);
  CHECK(raw.find("Content-Length: ") < end);
  if (expect_no_body)
    CHECK(raw.size() == end + 4);
}

std::string key_on_page(const std::string& page) {
  const std::string open = "<pre id=\"api-key\">";
  auto start = page.find(open);
  if (start == std::string::npos)
    return {};
  start += open.size();
  return page.substr(start, page.find("</pre>", start) - start);
}

/// A key from the sign-in flow, played by the test as the browser.
std::string sign_in(unsigned port) {
  auto login = call(port, "/auth/github/login", "get", "/auth/github/login");
  REQUIRE(login.status == 302);
  auto set_cookie = login.header("set-cookie");
  auto callback = follow_authorize(login.header("location"));
  auto parsed = boost::urls::parse_absolute_uri(callback);
  REQUIRE(parsed);
  auto target = std::string{parsed->encoded_path()} + "?" + std::string{parsed->encoded_query()};
  auto page = call(port, "/auth/github/callback", "get", target,
                   {{"Cookie", set_cookie.substr(0, set_cookie.find(';'))}});
  REQUIRE(page.status == 200);
  auto key = key_on_page(page.body);
  REQUIRE(key.rfind("nsk_", 0) == 0);
  return key;
}

} // namespace

TEST_CASE("openapi e2e: every documented route answers as documented", "[e2e][openapi]") {
  fake_oauth_provider provider;
  fake_target_process fake;
  service_process svc{{"--github-client-id", "test-client", "--github-authorize-url",
                       provider.authorize_url(), "--github-token-url", provider.token_url(),
                       "--github-api-url", provider.api_url(), "--public-base-url",
                       "http://127.0.0.1:9", "--offers-per-target-per-minute", "1"},
                      {"NETHERSCOPE_GITHUB_CLIENT_SECRET=test-secret"}};
  auto port = svc.port();
  auto target = "host=127.0.0.1&port=" + std::to_string(fake.port());
  auto offer_body = [&](const std::string& extra) {
    return R"({"host":"127.0.0.1","port":)" + std::to_string(fake.port()) + extra + "}";
  };
  const header_list json_type{{"Content-Type", "application/json"}};

  SECTION("the page") {
    auto page = call(port, "/", "get", "/");
    CHECK(page.status == 200);
    CHECK(call(port, "/", "get", "/", {{"If-None-Match", page.header("etag")}}).status == 304);
    CHECK(call(port, "/", "post", "/").status == 405);
    check_head(port, "/", true);
  }
  SECTION("health, readiness, metrics, this document") {
    for (auto path : {"/healthz", "/readyz", "/metrics", "/openapi.json"}) {
      CHECK(call(port, path, "get", path).status == 200);
      CHECK(call(port, path, "post", path).status == 405);
    }
    // Whether HEAD sends a body here is another change's; the status and headers are this
    // document's.
    for (auto path : {"/healthz", "/readyz", "/openapi.json"})
      check_head(port, path, false);
  }
  SECTION("status checks") {
    CHECK(call(port, "/api/info", "get", "/api/info?" + target).status == 200);
    CHECK(call(port, "/api/info", "get", "/api/info?host=").status == 400);
    CHECK(call(port, "/api/info", "get", "/api/info?host=" + std::string(254, 'a')).status
          == 400);
    CHECK(call(port, "/api/info", "get", "/api/info?host=10.0.0.1").status == 403);
    CHECK(call(port, "/api/info", "get", "/api/info?host=127.0.0.1&port=1").status == 502);
    CHECK(call(port, "/api/info", "get", "/api/info?" + target, {{"X-API-Key", "nsk_unknown"}})
            .status
          == 401);
    CHECK(call(port, "/api/info", "post", "/api/info?" + target).status == 405);
  }
  SECTION("offers") {
    auto first = call(port, "/api/offer", "post", "/api/offer", json_type,
                      offer_body(R"(,"fresh":true)"));
    CHECK(first.status == 200);
    // The target's one fresh offer of the minute is spent; another mode has no cached answer.
    auto limited = call(port, "/api/offer", "post", "/api/offer", json_type,
                        offer_body(R"(,"fresh":true,"tls":false)"));
    CHECK(limited.status == 429);
    CHECK(limited.code() == "target_rate_limited");
    CHECK(call(port, "/api/offer", "post", "/api/offer", json_type, offer_body(R"(,"x":[)"))
            .status
          == 400);
    CHECK(call(port, "/api/offer", "post", "/api/offer", {{"Content-Type", "text/plain"}}, "{}")
            .status
          == 415);
    CHECK(call(port, "/api/offer", "post", "/api/offer", json_type, std::string(20000, ' '))
            .status
          == 413);
    CHECK(call(port, "/api/offer", "get", "/api/offer").status == 405);
  }
  SECTION("history and charts") {
    auto history = "/api/history?" + target;
    auto chart = "/chart.svg?" + target;
    // Nobody watches the server yet.
    CHECK(call(port, "/api/history", "get", history).status == 404);
    CHECK(call(port, "/chart.svg", "get", chart).status == 404);
    CHECK(call(port, "/api/history", "get", "/api/history?host=").status == 400);
    CHECK(call(port, "/api/history", "get", history + "&range=1y").status == 400);
    CHECK(call(port, "/chart.svg", "get", "/chart.svg?host=").status == 400);
    CHECK(call(port, "/api/history", "post", history).status == 405);
    CHECK(call(port, "/chart.svg", "post", chart).status == 405);
    CHECK(call(port, "/api/history", "get", history, {{"X-API-Key", "nsk_unknown"}}).status
          == 401);
    // A public watch makes both anyone's, once the schedule has read it.
    auto key = sign_in(port);
    auto made = call(port, "/api/watch", "post", "/api/watch",
                     {{"X-API-Key", key}, {"Content-Type", "application/json"}},
                     offer_body(R"(,"public":true)"));
    REQUIRE(made.status == 201);
    REQUIRE(wait_until([&] { return http_request(port, "GET", history).status == 200; }, 30s,
                       200ms));
    auto read = call(port, "/api/history", "get", history);
    CHECK(read.status == 200);
    CHECK(read.json().at("public") == true);
    CHECK(call(port, "/api/history", "get", history + "&range=90d").status == 200);
    CHECK(call(port, "/chart.svg", "get", chart).status == 200);
    CHECK(call(port, "/chart.svg", "get", chart + "&range=7d&metric=players").status == 200);
    CHECK(call(port, "/chart.svg", "get", chart + "&metric=uptime").status == 400);
    CHECK(call(port, "/chart.svg", "get", chart + "&metric=players&metric=players").status
          == 400);
  }
  SECTION("sign-in, account and keys") {
    CHECK(call(port, "/auth/github/login", "post", "/auth/github/login").status == 405);
    CHECK(call(port, "/auth/github/callback", "get", "/auth/github/callback").status == 400);
    CHECK(call(port, "/api/account", "get", "/api/account").status == 401);
    // The page's question "who is signed in?": not signed in is an answer, not an error.
    auto nobody = call(port, "/account/session", "get", "/account/session");
    CHECK(nobody.status == 200);
    CHECK(nobody.json().at("signedIn") == false);
    CHECK(call(port, "/account/session", "post", "/account/session").status == 405);
    auto key = sign_in(port);
    CHECK(call(port, "/api/account", "get", "/api/account", {{"X-API-Key", key}}).status == 200);
    CHECK(call(port, "/api/account", "post", "/api/account", {{"X-API-Key", key}}).status == 405);
    auto rotated = call(port, "/api/account/key", "post", "/api/account/key", {{"X-API-Key", key}});
    REQUIRE(rotated.status == 200);
    auto new_key = std::string{rotated.json().at("key").as_string()};
    CHECK(call(port, "/api/account/key", "put", "/api/account/key", {{"X-API-Key", new_key}})
            .status
          == 405);
    CHECK(call(port, "/api/account/key", "delete", "/api/account/key", {{"X-API-Key", new_key}})
            .status
          == 200);
    CHECK(call(port, "/api/account/key", "delete", "/api/account/key", {{"X-API-Key", new_key}})
            .status
          == 401);
  }
}

TEST_CASE("openapi e2e: a connection refused at the cap gets the documented 503",
          "[e2e][openapi]") {
  service_process svc{{"--max-connections-per-ip", "1"}};
  // One connection holds this address's only slot.
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::socket held{ioc};
  held.connect({boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(svc.port())});
  std::string request = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  boost::asio::write(held, boost::asio::buffer(request));
  boost::asio::streambuf answer;
  boost::asio::read_until(held, answer, "\r\n\r\n");
  // Every route answers a refused connection the same way; the page's route stands for all.
  auto refused = http_request(svc.port(), "GET", "/");
  CHECK(refused.status == 503);
  CHECK(refused.code() == "unavailable");
  check_documented("/", "get", refused.status, refused.header("content-type"), refused.body);
  check_documented("/api/info", "get", refused.status, refused.header("content-type"),
                   refused.body);
}
