// End to end: the HTTP edge against requests a hostile client or a confused proxy sends
// (RFC 9112). Each request is written raw, so nothing in a client library tidies it up.
#include <catch2/catch.hpp>

#include <string>

#include "support/http.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

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
