#include <catch2/catch.hpp>

#include "net/http/framing.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
namespace http = boost::beast::http;

namespace {

http::request_header<> head_of(std::vector<std::pair<http::field, std::string>> fields,
                              unsigned version = 11) {
  http::request_header<> h;
  h.version(version);
  h.method(http::verb::post);
  h.target("/api/offer");
  for (auto& [name, value] : fields)
    h.insert(name, value);
  return h;
}

} // namespace

TEST_CASE("framing: well-framed requests pass", "[framing]") {
  CHECK_FALSE(framing_problem(head_of({{http::field::host, "x"}})));
  CHECK_FALSE(framing_problem(head_of({{http::field::host, "x"}, {http::field::content_length, "5"}})));
  CHECK_FALSE(framing_problem(
    head_of({{http::field::host, "x"}, {http::field::transfer_encoding, "gzip, Chunked"}})));
  // HTTP/1.0 clients may omit Host (the container health check does).
  CHECK_FALSE(framing_problem(head_of({}, 10)));
}

TEST_CASE("framing: a length that could be read two ways is refused", "[framing]") {
  for (std::string coding : {"xchunked", "identity", "gzip", "chunked, gzip", "chunked;x=1"}) {
    INFO("Transfer-Encoding: " << coding);
    CHECK(framing_problem(
      head_of({{http::field::host, "x"}, {http::field::transfer_encoding, coding}})));
  }
  CHECK(framing_problem(head_of({{http::field::host, "x"},
                                {http::field::transfer_encoding, "chunked"},
                                {http::field::content_length, "5"}})));
  CHECK(framing_problem(head_of({{http::field::host, "x"},
                                {http::field::content_length, "5"},
                                {http::field::content_length, "5"}})));
}

TEST_CASE("framing: HTTP/1.1 needs exactly one Host", "[framing]") {
  CHECK(framing_problem(head_of({})));
  CHECK(framing_problem(head_of({{http::field::host, "a"}, {http::field::host, "b"}})));
}
