#include <catch2/catch.hpp>

#include <boost/json.hpp>

#include "core/api_json.hpp"
#include "core/offer_request.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

std::optional<offer_request> parse(const std::string& body, std::string* message = nullptr) {
  failure error;
  auto result = parse_offer_body(body, error);
  if (!result) {
    CHECK(error.code == error_code::invalid_input);
    if (message)
      *message = error.message;
  }
  return result;
}

} // namespace

TEST_CASE("offer input: media type must be JSON", "[offer_request]") {
  CHECK(is_json_media_type("application/json"));
  CHECK(is_json_media_type("Application/JSON; charset=utf-8"));
  CHECK(is_json_media_type(" application/json ;charset=UTF-8"));
  CHECK_FALSE(is_json_media_type(""));
  CHECK_FALSE(is_json_media_type("text/plain"));
  CHECK_FALSE(is_json_media_type("application/jsonx"));
  CHECK_FALSE(is_json_media_type("application/x-www-form-urlencoded"));
}

TEST_CASE("offer input: networkId table", "[offer_request]") {
  CHECK(is_valid_network_id("0"));
  CHECK(is_valid_network_id("9876543210123456789"));
  CHECK(is_valid_network_id("18446744073709551615"));        // 2^64-1, 20 digits
  CHECK(is_valid_network_id("00000000000000000001"));        // 20 digits, small value
  CHECK_FALSE(is_valid_network_id("18446744073709551616"));  // 2^64
  CHECK_FALSE(is_valid_network_id("99999999999999999999"));
  CHECK_FALSE(is_valid_network_id("123456789012345678901")); // 21 digits
  CHECK_FALSE(is_valid_network_id(""));
  CHECK_FALSE(is_valid_network_id("12a"));
  CHECK_FALSE(is_valid_network_id("-1"));
  CHECK_FALSE(is_valid_network_id(" 1"));
}

TEST_CASE("offer input: a minimal body takes the defaults", "[offer_request]") {
  auto req = parse(R"({"host":"Play.Example.com"})");
  REQUIRE(req);
  CHECK(req->where.host == "play.example.com");
  CHECK(req->where.port == 19132);
  CHECK(req->where.tls == tls_mode::auto_detect);
  CHECK(req->network_id.empty());
  CHECK_FALSE(req->fresh);
}

TEST_CASE("offer input: every field read, unknown ones ignored", "[offer_request]") {
  auto req = parse(
    R"({"host":"[2001:db8::1]","port":19133,"networkId":"12345","tls":true,"fresh":true,"x":[1]})");
  REQUIRE(req);
  CHECK(req->where.host == "2001:db8::1");
  CHECK(req->where.port == 19133);
  CHECK(req->network_id == "12345");
  CHECK(req->where.tls == tls_mode::on);
  CHECK(req->fresh);
  req = parse(R"({"host":"a.com","tls":false,"port":19132.0,"networkId":null})");
  REQUIRE(req);
  CHECK(req->where.tls == tls_mode::off);
  CHECK(req->where.port == 19132);
}

TEST_CASE("offer input: wrong types and values name the field", "[offer_request]") {
  struct row {
    const char* body;
    const char* field;
  };
  for (auto r : {row{R"([1,2])", "JSON object"}, row{R"(not json)", "JSON object"},
                 row{R"("text")", "JSON object"}, row{R"({})", "host is required"},
                 row{R"({"host":42})", "host must be a string"},
                 row{R"({"host":"a..b"})", "host"},
                 row{R"({"host":"a.com","port":"19132"})", "port"},
                 row{R"({"host":"a.com","port":0})", "port"},
                 row{R"({"host":"a.com","port":65536})", "port"},
                 row{R"({"host":"a.com","port":1.5})", "port"},
                 row{R"({"host":"a.com","port":-1})", "port"},
                 row{R"({"host":"a.com","port":18446744073709551615})", "port"},
                 row{R"({"host":"a.com","tls":"true"})", "tls"},
                 row{R"({"host":"a.com","fresh":1})", "fresh"},
                 row{R"({"host":"a.com","networkId":""})", "networkId"},
                 row{R"({"host":"a.com","networkId":"abc"})", "networkId"},
                 row{R"({"host":"a.com","networkId":"123456789012345678901"})", "networkId"},
                 row{R"({"host":"a.com","networkId":"18446744073709551616"})", "networkId"},
                 row{R"({"host":"a.com","networkId":true})", "networkId"}}) {
    std::string message;
    INFO(r.body);
    CHECK_FALSE(parse(r.body, &message));
    // parse() has checked the code already; PRODUCT.md wants the message to name the field
    // and the rule, and the failure has no structured field name, so the text is under test.
    CHECK(message.find(r.field) != std::string::npos);
  }
}

TEST_CASE("offer input: a numeric networkId is refused with advice", "[offer_request]") {
  std::string message;
  CHECK_FALSE(parse(R"({"host":"a.com","networkId":12345})", &message));
  // PRODUCT.md: a number is refused "with a message saying to send a string" and why; the
  // advice is the behaviour, and only the message carries it.
  CHECK(message.find("string") != std::string::npos);
  CHECK(message.find("2^53") != std::string::npos);
}

TEST_CASE("offer input: random network ids are valid and differ", "[offer_request]") {
  auto a = random_network_id();
  auto b = random_network_id();
  CHECK(is_valid_network_id(a));
  CHECK(is_valid_network_id(b));
  CHECK(a != b);
  CHECK(a != "0");
}

TEST_CASE("offer input: expectPorts is a short list of port numbers", "[offer_request]") {
  auto req = parse(R"({"host":"a.com","expectPorts":[19132, 19133.0, 65535, 1]})");
  REQUIRE(req);
  CHECK(req->expect_ports == std::vector<std::uint16_t>{19132, 19133, 65535, 1});
  req = parse(R"({"host":"a.com","expectPorts":[]})");
  REQUIRE(req);
  CHECK(req->expect_ports.empty());
  req = parse(R"({"host":"a.com","expectPorts":null})");
  REQUIRE(req);
  CHECK(req->expect_ports.empty());

  std::string most = "[1";
  for (std::size_t i = 1; i < max_expected_ports; ++i)
    most += "," + std::to_string(i + 1);
  CHECK(parse(R"({"host":"a.com","expectPorts":)" + most + "]}"));
  CHECK_FALSE(parse(R"({"host":"a.com","expectPorts":)" + most + ",65]}"));

  struct row {
    const char* body;
    const char* field;
  };
  for (auto r : {row{R"({"host":"a.com","expectPorts":19132})", "expectPorts"},
                 row{R"({"host":"a.com","expectPorts":"19132"})", "expectPorts"},
                 row{R"({"host":"a.com","expectPorts":{"a":1}})", "expectPorts"},
                 row{R"({"host":"a.com","expectPorts":[19132,0]})", "expectPorts[1]"},
                 row{R"({"host":"a.com","expectPorts":[65536]})", "expectPorts[0]"},
                 row{R"({"host":"a.com","expectPorts":[-1]})", "expectPorts[0]"},
                 row{R"({"host":"a.com","expectPorts":[1.5]})", "expectPorts[0]"},
                 row{R"({"host":"a.com","expectPorts":["19132"]})", "expectPorts[0]"},
                 row{R"({"host":"a.com","expectPorts":[null]})", "expectPorts[0]"},
                 row{R"({"host":"a.com","expectPorts":[[1]]})", "expectPorts[0]"}}) {
    std::string message;
    INFO(r.body);
    CHECK_FALSE(parse(r.body, &message));
    // As above: the field's name (with the entry's index) is what the caller needs.
    CHECK(message.find(r.field) != std::string::npos);
  }
}

TEST_CASE("expected ports: a warning only when no UDP candidate uses one", "[offer_request]") {
  using ports = std::vector<std::uint16_t>;
  CHECK(expected_ports_warning({}, {40000}).empty());
  CHECK(expected_ports_warning({19132, 40000}, {40000}).empty());
  CHECK(expected_ports_warning({40000}, {19133, 40000}).empty());
  auto missed = expected_ports_warning({19132, 19133, 19132}, {40000, 40001, 40000});
  CHECK_FALSE(missed.empty());
  // The ports are data the owner acts on: each expected and each seen port is named once.
  CHECK(missed.find("(19132, 19133)") != std::string::npos);
  CHECK(missed.find("40000, 40001") != std::string::npos);
  CHECK(missed.find("server-udp-ports") != std::string::npos);
  CHECK_FALSE(expected_ports_warning(ports{19132}, ports{}).empty());
}

TEST_CASE("expected ports: the body's UDP candidates are read, case-insensitively",
          "[offer_request]") {
  const std::string body
    = R"({"ok":true,"candidates":[{"transport":"UDP","port":40000},)"
      R"({"transport":"tcp","port":19132},{"transport":"udp","port":40001}],)"
      R"("exhausted":false,"warnings":["earlier"],"cached":true})";
  // A match on an upper-case UDP candidate: the body is passed on untouched.
  CHECK(with_expected_ports(body, {40000}) == body);
  CHECK(with_expected_ports(body, {40001, 5}) == body);
  CHECK(with_expected_ports(body, {}) == body);

  // 19132 is only on a TCP candidate, which players cannot use.
  auto value = boost::json::parse(with_expected_ports(body, {19132}));
  auto& warned = value.as_object();
  auto& warnings = warned.at("warnings").as_array();
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0] == "earlier");
  CHECK(warnings[1] == expected_ports_warning({19132}, {40000, 40001}).c_str());
  // Its machine code stands at the same index in warningCodes (created here: this body had none).
  REQUIRE(warned.at("warningCodes").as_array().size() == 1);
  CHECK(warned.at("warningCodes").at(0) == "expected_ports_unused");
  // Everything else stays as it was, the cache's fields included.
  warned.at("warnings").as_array().pop_back();
  warned.erase("warningCodes");
  CHECK(warned == boost::json::parse(body).as_object());

  // No candidates at all, and no warnings array yet.
  auto none = boost::json::parse(with_expected_ports(R"({"ok":true,"candidates":[]})", {19132}));
  REQUIRE(none.as_object().at("warnings").as_array().size() == 1);
  CHECK(none.at("warnings").at(0) == expected_ports_warning({19132}, {}).c_str());
  // Odd shapes are never a crash: what is not a UDP candidate with a port is skipped.
  auto odd = boost::json::parse(with_expected_ports(
    R"({"candidates":[1,{"transport":7,"port":1},{"transport":"udp","port":"1"},)"
    R"({"transport":"udp","port":70000},{"transport":"udp"}],"warnings":[]})", {1}));
  CHECK(odd.at("warnings").as_array().size() == 1);
  CHECK(with_expected_ports("not json", {1}) == "not json");
  CHECK(with_expected_ports("[1]", {1}) == "[1]");
}
