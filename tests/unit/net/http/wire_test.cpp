// The edge writes responses as one buffer (net/http/wire.hpp): the bytes must be the ones
// Beast's own serializer writes for the same message.
#include <catch2/catch.hpp>

#include <sstream>

#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/write.hpp>

#include "net/http/wire.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
namespace http = boost::beast::http;
using response = http::response<http::string_body>;

namespace {

std::string beast_bytes(const response& res) {
  std::ostringstream os;
  os << res;
  return os.str();
}

std::string our_bytes(const response& res) {
  std::string out = "left over from the previous response, which must go";
  net::http::write_wire(res, out);
  return out;
}

} // namespace

TEST_CASE("wire: a response is written as Beast writes it, in one buffer", "[wire]") {
  response ok{http::status::ok, 11};
  ok.set(http::field::content_type, "application/json");
  ok.set("X-RateLimit-Limit", "200");
  ok.set("X-Request-Id", "0123456789abcdef");
  ok.set(http::field::access_control_allow_origin, "*");
  ok.body() = R"({"ok":true,"answer":"v=0\r\n"})";
  ok.keep_alive(true);
  ok.prepare_payload();

  response closing{http::status::too_many_requests, 11};
  closing.set(http::field::retry_after, "3600");
  closing.body() = R"({"ok":false,"code":"quota_exhausted"})";
  closing.keep_alive(false);
  closing.prepare_payload();

  // HTTP/1.0 keeps a connection open only when told so.
  response old{http::status::not_found, 10};
  old.body() = "{}";
  old.keep_alive(true);
  old.prepare_payload();

  // A HEAD answer: the GET's Content-Length, no body.
  response head{http::status::ok, 11};
  head.body() = std::string(2048, 'x');
  head.prepare_payload();
  head.body().clear();

  response no_content{http::status::no_content, 11};
  no_content.prepare_payload();

  response custom{http::status::service_unavailable, 11};
  custom.reason("Draining");
  custom.body() = "{}";
  custom.prepare_payload();

  for (const auto* res : {&ok, &closing, &old, &head, &no_content, &custom}) {
    INFO(beast_bytes(*res));
    CHECK(our_bytes(*res) == beast_bytes(*res));
  }
  CHECK(our_bytes(head).find("Content-Length: 2048\r\n\r\n") == our_bytes(head).size() - 24);
}

TEST_CASE("wire: a stream's lines are framed as chunks, and the last chunk ends it", "[wire]") {
  std::string out = "HTTP/1.1 200 OK\r\n\r\n";
  net::http::append_chunk("{\"a\":1}\n{\"b\":2}\n", out);
  net::http::append_last_chunk(out);
  // 16 bytes of lines: the size in hexadecimal, the data, then the zero-size chunk.
  CHECK(out == "HTTP/1.1 200 OK\r\n\r\n" "10\r\n{\"a\":1}\n{\"b\":2}\n\r\n" "0\r\n\r\n");

  // What a client reads back is the lines, whole.
  http::response_parser<http::string_body> parser;
  boost::system::error_code ec;
  std::string head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  std::string body;
  net::http::append_chunk(std::string(300, 'x') + "\n", body);
  net::http::append_chunk("y\n", body);
  net::http::append_last_chunk(body);
  auto wire = head + body;
  parser.eager(true);
  parser.put(boost::asio::buffer(wire), ec);
  REQUIRE_FALSE(ec);
  REQUIRE(parser.is_done());
  CHECK(parser.get().body() == std::string(300, 'x') + "\ny\n");
}
