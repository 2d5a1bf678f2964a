// Which limit an oversized request header broke: 414 for its request line, 431 for the rest.
#include <catch2/catch.hpp>

#include <string>

#include "net/http/framing.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
namespace http = boost::beast::http;

namespace {

constexpr std::size_t header_limit = 8 * 1024;

/// A header the parser has not got as far as the request line of.
http::request_header<> nothing_parsed() {
  return {};
}

http::request_header<> parsed_line(http::verb method, std::string target) {
  http::request_header<> h;
  h.version(11);
  h.method(method);
  h.target(target);
  return h;
}

} // namespace

TEST_CASE("header limit: a request the parser stopped in names its method and target",
          "[framing]") {
  auto start = request_start_of(nothing_parsed(), "POST /api/offer?x=[ HTTP/1.1\r\nHo");
  CHECK(start.method == "POST");
  CHECK(start.target == "/api/offer?x=[");
  start = request_start_of(nothing_parsed(), "GET");
  CHECK(start.method == "GET");
  CHECK(start.target.empty());
  start = request_start_of(nothing_parsed(), "");
  CHECK(start.method.empty());
  CHECK(start.target.empty());
}

TEST_CASE("header limit: a request line that never ends in what was read is 414",
          "[framing]") {
  auto bytes = "GET /api/info?host=" + std::string(header_limit, 'a');
  CHECK(oversized_header(nothing_parsed(), bytes, header_limit).code
        == error_code::uri_too_long);
  auto start = request_start_of(nothing_parsed(), bytes);
  CHECK(start.method == "GET");
  CHECK(start.target.substr(0, 10) == "/api/info?");
  // The line alone filled a header limit smaller than the line limit: still the line's fault.
  CHECK(oversized_header(nothing_parsed(), "GET /" + std::string(2000, 'a'), 1024).code
        == error_code::uri_too_long);
}

TEST_CASE("header limit: a request line that ends past the line limit is 414", "[framing]") {
  auto bytes = "GET /" + std::string(request_line_limit, 'a') + " HTTP/1.1\r\nHost: x\r\n";
  auto over = oversized_header(nothing_parsed(), bytes, 64 * 1024);
  CHECK(over.code == error_code::uri_too_long);
  CHECK(over.message == "the request line is longer than 8192 bytes");
}

TEST_CASE("header limit: a short request line with too many fields is 431", "[framing]") {
  // The parser had not parsed the line yet (it was read in pieces): the bytes start with it.
  auto bytes
    = "\r\nHEAD /api/offer HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(header_limit, 'a');
  auto over = oversized_header(nothing_parsed(), bytes, header_limit);
  CHECK(over.code == error_code::headers_too_large);
  CHECK(over.message == "the request header is larger than 8192 bytes");
  auto start = request_start_of(nothing_parsed(), bytes);
  CHECK(start.method == "HEAD");
  CHECK(start.target == "/api/offer");
  // The parser had the line: what is left in the buffer are fields only.
  auto parsed = parsed_line(http::verb::get, "/api/info?host=a.com");
  auto fields = "X-Big: " + std::string(header_limit, 'a');
  CHECK(oversized_header(parsed, fields, header_limit).code == error_code::headers_too_large);
  start = request_start_of(parsed, fields);
  CHECK(start.method == "GET");
  CHECK(start.target == "/api/info?host=a.com");
}

TEST_CASE("header limit: a parsed request line over the line limit is 414", "[framing]") {
  // Exactly at the limit passes: "GET " + target + " HTTP/1.1" is 8192 bytes.
  auto at_limit = parsed_line(http::verb::get, "/" + std::string(request_line_limit - 14, 'a'));
  CHECK_FALSE(overlong_request_line(at_limit));
  CHECK(oversized_header(at_limit, "X-Big: x", header_limit).code
        == error_code::headers_too_large);
  auto over_limit = parsed_line(http::verb::get, "/" + std::string(request_line_limit - 13, 'a'));
  auto too_long = overlong_request_line(over_limit);
  REQUIRE(too_long);
  CHECK(too_long->code == error_code::uri_too_long);
  CHECK(oversized_header(over_limit, "", header_limit).code == error_code::uri_too_long);
}
