// End to end: the HTTP edge against requests a hostile client or a confused proxy sends
// (RFC 9112). Each request is written raw, so nothing in a client library tidies it up.
#include <catch2/catch.hpp>

#include <signal.h>

#include <future>
#include <map>
#include <string>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/json/parse.hpp>

#include "support/http.hpp"
#include "support/wait.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

/// One response read back from raw bytes.
struct parsed_response {
  int status = 0;
  /// Header names in lower case.
  std::map<std::string, std::string> headers;
  std::string body;

  std::string header(const std::string& lower_name) const {
    auto found = headers.find(lower_name);
    return found == headers.end() ? std::string{} : found->second;
  }

  /// The machine code of a JSON error body, or "".
  std::string code() const {
    boost::system::error_code ec;
    auto json = boost::json::parse(body, ec);
    if (ec || !json.is_object() || !json.as_object().contains("code"))
      return {};
    return std::string{json.at("code").as_string()};
  }
};

/// Parses the responses in raw bytes, one per entry of `to_head` (true: the answer to a HEAD,
/// so its header is all there is). Stops at the first that does not parse whole; `left` gets
/// the bytes after the last one parsed.
std::vector<parsed_response> parse_responses(std::string_view raw, std::vector<bool> to_head,
                                             std::string_view* left = nullptr) {
  std::vector<parsed_response> out;
  for (bool head : to_head) {
    bhttp::response_parser<bhttp::string_body> parser;
    parser.eager(true);
    if (head)
      parser.skip(true);
    beast::error_code ec;
    auto used = parser.put(asio::buffer(raw.data(), raw.size()), ec);
    if (ec || !parser.is_done())
      break;
    raw.remove_prefix(used);
    parsed_response r;
    auto& msg = parser.get();
    r.status = msg.result_int();
    for (auto& field : msg) {
      std::string name{field.name_string()};
      for (auto& c : name)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      r.headers[name] = std::string{field.value()};
    }
    r.body = msg.body();
    out.push_back(std::move(r));
  }
  if (left != nullptr)
    *left = raw;
  return out;
}

/// The four quota headers and CORS, as every /api/* reply carries them.
void check_api_headers(const parsed_response& r, const std::string& limit) {
  CHECK(r.header("access-control-allow-origin") == "*");
  CHECK(r.header("access-control-expose-headers").find("X-RateLimit-Remaining")
        != std::string::npos);
  CHECK(r.header("x-ratelimit-scope") == "ip");
  CHECK(r.header("x-ratelimit-limit") == limit);
  CHECK_FALSE(r.header("x-ratelimit-remaining").empty());
  CHECK_FALSE(r.header("x-ratelimit-reset").empty());
}

const std::string then_health = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

/// How many HTTP responses a raw exchange got back.
std::size_t responses_in(const std::string& raw) {
  std::size_t count = 0;
  for (auto at = raw.find("HTTP/1.1 "); at != std::string::npos; at = raw.find("HTTP/1.1 ", at + 1))
    ++count;
  return count;
}

} // namespace

TEST_CASE("http edge: a body is never run as a second request", "[e2e][server]") {
  service_process svc;
  // Each request's body ("GET /h") and what follows it could be read as the next request by a
  // server that trusted Content-Length here; a proxy in front would have read it differently.
  const std::string smuggled = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  for (std::string framing : {"Transfer-Encoding: xchunked\r\nContent-Length: 6\r\n",
                              "Transfer-Encoding: identity\r\nContent-Length: 6\r\n",
                              "Transfer-Encoding: chunked\r\nContent-Length: 6\r\n",
                              "Content-Length: 6\r\nContent-Length: 6\r\n"}) {
    INFO("framing: " << framing);
    auto raw = raw_exchange(svc.port(),
                            "POST /api/offer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                              + framing + "\r\nGET /h" + smuggled,
                            5s);
    CHECK(raw.find("HTTP/1.1 400") == 0);
    CHECK(raw.find("\"invalid_input\"") != std::string::npos);
    // One answer, then the connection closes: the smuggled request is never served.
    CHECK(responses_in(raw) == 1);
    CHECK(raw.find("HTTP/1.1 200") == std::string::npos);
  }
}

TEST_CASE("http edge: HTTP/1.1 requests need exactly one Host", "[e2e][server]") {
  service_process svc;
  auto missing = raw_exchange(svc.port(), "GET /healthz HTTP/1.1\r\n\r\n", 5s);
  CHECK(missing.find("HTTP/1.1 400") == 0);
  auto twice = raw_exchange(svc.port(), "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 5s);
  CHECK(twice.find("HTTP/1.1 400") == 0);
  // HTTP/1.0 may leave Host out (the container's health check does).
  auto old = raw_exchange(svc.port(), "GET /healthz HTTP/1.0\r\n\r\n", 5s);
  CHECK(old.find(" 200 ") != std::string::npos);
}

TEST_CASE("http edge: HEAD answers are the header alone on every route", "[e2e][server]") {
  service_process svc;
  struct row {
    std::string target;
    int status;
  };
  for (auto r : {row{"/healthz", 200}, row{"/readyz", 200}, row{"/openapi.json", 200},
                 row{"/metrics", 405}, row{"/nope", 404}, row{"/api/nope", 404},
                 row{"/api/info?host=a.com", 405}, row{"/api/offer", 405},
                 row{"/api/account", 405}, row{"/api/account/key", 405},
                 row{"/auth/github/login", 405}, row{"/auth/github/callback", 405},
                 row{"/api/info?host=[::1]", 400}, row{"/healthz?[", 400}}) {
    INFO("HEAD " << r.target);
    // A GET pipelined behind the HEAD: if any body byte followed the HEAD's header, the GET's
    // answer would not start right after it.
    auto raw = raw_exchange(svc.port(),
                            "HEAD " + r.target + " HTTP/1.1\r\nHost: x\r\n\r\n" + then_health,
                            5s);
    std::string_view left;
    auto got = parse_responses(raw, {true, false}, &left);
    REQUIRE(got.size() == 2);
    CHECK(got[0].status == r.status);
    CHECK(got[1].status == 200);
    CHECK(got[1].body == R"({"ok":true})");
    CHECK(left.empty());
    // The header is what a GET gets: the same Content-Length, or the error's own.
    CHECK_FALSE(got[0].header("content-length").empty());
  }
  // RFC 9110 §9.3.2: the Content-Length a GET would be sent.
  for (std::string target : {"/healthz", "/openapi.json", "/nope"}) {
    INFO(target);
    auto head = parse_responses(
      raw_exchange(svc.port(),
                   "HEAD " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 5s),
      {true});
    auto get = http_request(svc.port(), "GET", target);
    REQUIRE(head.size() == 1);
    CHECK(head[0].header("content-length") == std::to_string(get.body.size()));
    CHECK(head[0].body.empty());
  }
}

TEST_CASE("http edge: HEAD answers refused at the header carry no body either",
          "[e2e][server]") {
  service_process svc;
  for (std::string request :
       {std::string{"HEAD /api/offer HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
                    "Content-Length: 0\r\n\r\n"},
        "HEAD /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(9000, 'a') + "\r\n\r\n"}) {
    INFO(request.substr(0, 40));
    auto raw = raw_exchange(svc.port(), request + then_health, 5s);
    std::string_view left;
    auto got = parse_responses(raw, {true}, &left);
    REQUIRE(got.size() == 1);
    CHECK(got[0].status >= 400);
    CHECK(got[0].header("connection") == "close");
    // Nothing after the header: no body, and the pipelined GET is not served.
    CHECK(left.empty());
  }
}

TEST_CASE("http edge: a header over the limit is 431, a request line over it 414",
          "[e2e][server]") {
  service_process svc;
  auto big_header = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(9000, 'a')
                    + "\r\n\r\n";
  auto long_line = "GET /api/info?host=" + std::string(9000, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n";
  struct row {
    std::string request;
    int status;
    std::string code;
    bool api;
  };
  for (auto& r : {row{big_header, 431, "headers_too_large", false},
                  row{long_line, 414, "uri_too_long", true}}) {
    INFO(r.code);
    // A request pipelined behind it is never served: the connection closes after the answer.
    auto raw = raw_exchange(svc.port(), r.request + then_health, 5s);
    CHECK(responses_in(raw) == 1);
    auto got = parse_responses(raw, {false});
    REQUIRE(got.size() == 1);
    CHECK(got[0].status == r.status);
    CHECK(got[0].header("content-type") == "application/json");
    CHECK(got[0].header("connection") == "close");
    CHECK(got[0].code() == r.code);
    CHECK(boost::json::parse(got[0].body).at("ok") == false);
    // Under /api/ it has CORS like every API reply, so a page can read why.
    CHECK((got[0].header("access-control-allow-origin") == "*") == r.api);
  }
  // A long URL within the line limit is served: the limit is nginx's, not a tight one.
  auto near = raw_exchange(svc.port(),
                           "GET /healthz?pad=" + std::string(7900, 'a') + " HTTP/1.1\r\nHost: x\r\n"
                             "Connection: close\r\n\r\n",
                           5s);
  CHECK(near.rfind("HTTP/1.1 200", 0) == 0);
}

TEST_CASE("http edge: API errors decided at the edge carry CORS and quota headers, uncounted",
          "[e2e][server][quota]") {
  service_process svc{{"--limit-info-ip", "5", "--limit-offer-ip", "5"}};
  struct row {
    std::string request;
    std::string code;
  };
  for (auto& r : {
         // Raw brackets and a broken escape: the target is not RFC 3986.
         row{"GET /api/info?host=[::1] HTTP/1.1\r\nHost: x\r\n\r\n", "invalid_input"},
         row{"GET /api/info?host=%zz HTTP/1.1\r\nHost: x\r\n\r\n", "invalid_input"},
         // Framed two ways: refused before its body is read, and the connection closes.
         row{"POST /api/offer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
             "Transfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n{}",
             "invalid_input"},
         row{"POST /api/offer HTTP/1.1\r\nContent-Type: application/json\r\n"
             "Content-Length: 2\r\n\r\n{}",
             "invalid_input"},
       }) {
    INFO(r.request.substr(0, 40));
    auto got = parse_responses(raw_exchange(svc.port(), r.request + then_health, 5s), {false});
    REQUIRE(got.size() == 1);
    CHECK(got[0].status == 400);
    CHECK(got[0].code() == r.code);
    check_api_headers(got[0], "5");
    // Not counted: the caller still has all five calls.
    CHECK(got[0].header("x-ratelimit-remaining") == "5");
  }
  // The quota shown is the caller's real one: a counted call takes one from it.
  auto counted = get_info(svc, "host=");
  CHECK(counted.status == 400);
  CHECK(counted.header("x-ratelimit-remaining") == "4");
}

TEST_CASE("http edge: API calls while shutting down are 503 with CORS and quota headers",
          "[e2e][server][quota]") {
  // The target holds its answer, and the call waiting for it holds shutdown open.
  fake_target_process fake{{"--fault", "delay", "--delay-ms", "1500"}};
  service_process svc{{"--limit-info-ip", "10"}};
  // A second client is in the middle of sending a request when shutdown begins.
  asio::io_context ioc;
  asio::ip::tcp::socket late{ioc};
  late.connect({asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(svc.port())});
  asio::write(late, asio::buffer(std::string{"GET /api/info?host=a.com HTTP/1.1\r\n"}));
  auto slow = std::async(std::launch::async, [&] {
    return get_info(svc, "host=127.0.0.1&port=" + std::to_string(fake.port()));
  });
  INFO("waiting for the slow call to reach the target");
  REQUIRE(wait_until(
    [&] { return fake.stats().at("status_requests").to_number<std::int64_t>() == 1; }, 5s));
  svc.process().signal(SIGTERM);
  INFO("waiting for the listener to close");
  REQUIRE(wait_until(
    [&] {
      return http_request(svc.port(), "GET", "/healthz", {}, {}, 1s).error.rfind("connect:", 0)
             == 0;
    },
    1s));
  asio::write(late, asio::buffer(std::string{"Host: x\r\n\r\n"}));
  std::string raw;
  beast::error_code ec;
  // The service closes the connection after its answer, which ends the read.
  asio::read(late, asio::dynamic_buffer(raw), ec);
  auto got = parse_responses(raw, {false});
  REQUIRE(got.size() == 1);
  CHECK(got[0].status == 503);
  CHECK(got[0].code() == "unavailable");
  CHECK(got[0].header("connection") == "close");
  check_api_headers(got[0], "10");
  // The slow call was counted; this one was not.
  CHECK(got[0].header("x-ratelimit-remaining") == "9");
  CHECK(slow.get().status == 200);
  CHECK(svc.process().wait(10s) == 0);
}
