// Tests for the probe option without sockets: probe in POST /api/offer's body, the
// GET /api/check route, and the offer cache's rule that an entry without reachability does
// not answer a call that asks for it.
#include <catch2/catch.hpp>

#include "actors/offer_cache.hpp"
#include "app/service.hpp"
#include "core/offer_request.hpp"
#include "net/http/router.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
namespace http = boost::beast::http;
using namespace std::chrono_literals;

namespace {

request get(std::string target) {
  request req{http::verb::get, target, 11};
  req.set(http::field::host, "127.0.0.1:8080");
  return req;
}

route_context probe_context() {
  route_context rc;
  rc.client = identify_client(boost::asio::ip::make_address("198.51.100.7"), "", {});
  return rc;
}

} // namespace

TEST_CASE("probe option: probe is a boolean in the offer body", "[probe_option]") {
  failure error;
  auto req = parse_offer_body(R"({"host":"a.com","probe":true})", error);
  REQUIRE(req);
  CHECK(req->probe);
  req = parse_offer_body(R"({"host":"a.com"})", error);
  REQUIRE(req);
  CHECK_FALSE(req->probe);
  req = parse_offer_body(R"({"host":"a.com","probe":null})", error);
  REQUIRE(req);
  CHECK_FALSE(req->probe);
  CHECK_FALSE(parse_offer_body(R"({"host":"a.com","probe":"yes"})", error));
  CHECK(error.code == error_code::invalid_input);
  CHECK(error.message.find("probe") == 0);
}

TEST_CASE("probe option: the offer route carries probe to the call", "[probe_option]") {
  request req{http::verb::post, "/api/offer", 11};
  req.set(http::field::host, "127.0.0.1:8080");
  req.set(http::field::content_type, "application/json");
  req.body() = R"({"host":"a.com","probe":true})";
  req.prepare_payload();
  auto d = route(req, probe_context());
  REQUIRE(d.call);
  CHECK(d.call->invalid.ok());
  CHECK(d.call->probe);
}

TEST_CASE("probe option: GET /api/check is a counted call read like /api/info",
          "[probe_option]") {
  auto d = route(get("/api/check?host=Play.Example.com&port=19133&tls=false"), probe_context());
  REQUIRE(d.call);
  CHECK(d.call->kind == call_kind::check);
  CHECK(d.call->invalid.ok());
  CHECK(d.call->where.host == "play.example.com");
  CHECK(d.call->where.port == 19133);
  CHECK(d.call->where.tls == tls_mode::off);
  CHECK(d.route == "/api/check");
  CHECK(d.target_label == "play.example.com:19133");

  auto missing = route(get("/api/check"), probe_context());
  REQUIRE(missing.call);
  CHECK(missing.call->kind == call_kind::check);
  CHECK(missing.call->invalid.code == error_code::invalid_input);

  request post{http::verb::post, "/api/check", 11};
  post.set(http::field::host, "127.0.0.1:8080");
  auto wrong = route(post, probe_context());
  REQUIRE(wrong.call);
  CHECK(wrong.call->invalid.code == error_code::method_not_allowed);
  api_outcome outcome;
  outcome.error = wrong.call->invalid;
  CHECK(render_api(outcome, call_kind::check, 11, true)[http::field::allow] == "GET");
}

TEST_CASE("probe option: an unprobed cache entry does not answer a probe call",
          "[probe_option][offer_cache]") {
  const auto t0 = offer_cache::clock_type::time_point{} + 1000s;
  const auto wall = offer_cache::wall_clock::time_point{std::chrono::seconds{1795348800}};
  const target where{"a.com", 19132, tls_mode::auto_detect};
  offer_cache cache{offer_cache::limits{}};

  cache.put(where, R"({"ok":true})", t0, wall);
  CHECK(cache.fresh(where, t0 + 1s));
  CHECK_FALSE(cache.fresh(where, t0 + 1s, true));
  CHECK_FALSE(cache.usable(where, t0 + 1s, true, true));
  CHECK(cache.usable(where, t0 + 1s, true, false));

  cache.put(where, R"({"ok":true,"reachability":{}})", t0 + 2s, wall, true);
  CHECK(cache.fresh(where, t0 + 3s));
  CHECK(cache.fresh(where, t0 + 3s, true));
  CHECK(cache.usable(where, t0 + 3s, true, true));
}
