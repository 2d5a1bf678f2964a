// POST /api/status's body: what refuses the whole body, and what only one entry.
#include <catch2/catch.hpp>

#include <string>

#include "core/status_request.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

// The whole body's refusal, or "" when it was read.
std::string refusal(const std::string& body) {
  failure error;
  auto items = parse_status_body(body, error);
  if (items) {
    CHECK(error.ok());
    return {};
  }
  CHECK(error.code == error_code::invalid_input);
  CHECK_FALSE(error.message.empty());
  return error.message;
}

std::vector<status_item> read(const std::string& body) {
  failure error;
  auto items = parse_status_body(body, error);
  INFO(error.message);
  REQUIRE(items);
  return *items;
}

std::string targets_of(std::size_t n) {
  std::string body = R"({"targets":[)";
  for (std::size_t i = 0; i < n; ++i)
    body += (i ? "," : "") + std::string{R"({"host":"a.example","port":)"}
            + std::to_string(20000 + i) + "}";
  return body + "]}";
}

} // namespace

TEST_CASE("status input: each entry is read, with the defaults of a target", "[status_request]") {
  auto items = read(R"({"targets":[{"host":"Play.Example.com"},
    {"host":"[2001:db8::1]","port":19133,"tls":true,"raknetPort":19200,"extra":1},
    {"host":"203.0.113.7","port":19134.0,"tls":false,"raknetPort":null}],"other":"ignored"})");
  REQUIRE(items.size() == 3);
  CHECK(items[0].invalid.ok());
  CHECK(items[0].where.host == "play.example.com");
  CHECK(items[0].where.port == 19132);
  CHECK(items[0].where.tls == tls_mode::auto_detect);
  CHECK(items[0].raknet_port == 0);
  CHECK(items[1].invalid.ok());
  CHECK(items[1].where.host == "2001:db8::1");
  CHECK(items[1].where.port == 19133);
  CHECK(items[1].where.tls == tls_mode::on);
  CHECK(items[1].raknet_port == 19200);
  CHECK(items[2].invalid.ok());
  CHECK(items[2].where.port == 19134);
  CHECK(items[2].where.tls == tls_mode::off);
  CHECK(items[2].raknet_port == 0);
}

TEST_CASE("status input: a body that cannot be served is refused whole", "[status_request]") {
  CHECK_THAT(refusal(""), Catch::Contains("JSON object"));
  CHECK_THAT(refusal("not json"), Catch::Contains("JSON object"));
  CHECK_THAT(refusal(R"([{"host":"a.example"}])"), Catch::Contains("JSON object"));
  CHECK_THAT(refusal("{}"), Catch::Contains("targets is required"));
  CHECK_THAT(refusal(R"({"targets":null})"), Catch::Contains("targets is required"));
  CHECK_THAT(refusal(R"({"targets":{"host":"a.example"}})"), Catch::Contains("array"));
  CHECK_THAT(refusal(R"({"targets":"a.example"})"), Catch::Contains("array"));
  CHECK_THAT(refusal(R"({"targets":[]})"), Catch::Contains("1 to 50"));
  CHECK_THAT(refusal(R"({"targets":[{"host":"a.example"},"b.example"]})"),
             Catch::Contains("targets[1] must be an object"));
  CHECK_THAT(refusal(R"({"targets":[null]})"), Catch::Contains("targets[0] must be an object"));
}

TEST_CASE("status input: at most max_status_targets targets", "[status_request]") {
  CHECK(read(targets_of(max_status_targets)).size() == max_status_targets);
  CHECK_THAT(refusal(targets_of(max_status_targets + 1)),
             Catch::Contains("names 51 servers") && Catch::Contains("at most 50"));
}

TEST_CASE("status input: a bad entry is only that entry's, named by its index",
          "[status_request]") {
  auto items = read(R"({"targets":[
    {"port":19132},
    {"host":7},
    {"host":"a..b"},
    {"host":"a.example","port":0},
    {"host":"a.example","port":"19132"},
    {"host":"a.example","port":65536},
    {"host":"a.example","tls":"on"},
    {"host":"a.example","raknetPort":0},
    {"host":"a.example","raknetPort":"19132"},
    {"host":"a.example","raknetPort":19132.5},
    {"host":"good.example","raknetPort":65535}]})");
  REQUIRE(items.size() == 11);
  std::vector<std::string> expected{"host is required", "host must be a string", "a..b",
                                    "port must be", "port must be", "port must be",
                                    "tls must be true or false", "raknetPort must be",
                                    "raknetPort must be", "raknetPort must be"};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO(i);
    CHECK(items[i].invalid.code == error_code::invalid_input);
    CHECK_THAT(items[i].invalid.message,
               Catch::StartsWith("targets[" + std::to_string(i) + "]: ")
                 && Catch::Contains(expected[i]));
  }
  CHECK(items[10].invalid.ok());
  CHECK(items[10].where.host == "good.example");
  CHECK(items[10].raknet_port == 65535);
}

TEST_CASE("status input: an internal address in a numeric form is read as the address",
          "[status_request]") {
  // The host parser is the one every route shares: a numeric form is its dotted address,
  // which the probe's address policy then judges before any lookup.
  auto items = read(R"({"targets":[{"host":"0x7f000001"},{"host":"127.1"}]})");
  CHECK(items[0].where.host == "127.0.0.1");
  CHECK(items[1].where.host == "127.0.0.1");
}
