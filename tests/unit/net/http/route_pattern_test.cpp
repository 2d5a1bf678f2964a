// The pieces the route table is written with: method sets and path patterns.
#include <catch2/catch.hpp>

#include "net/http/route_pattern.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
namespace http = boost::beast::http;

TEST_CASE("router pattern: a pattern without parameters matches its path only", "[router]") {
  path_params params;
  CHECK(match_pattern("/api/info", "/api/info", params));
  CHECK(params.size() == 0);
  for (auto path : {"/api/inf", "/api/infos", "/api/info/", "/API/info", "", "/"})
    CHECK_FALSE(match_pattern("/api/info", path, params));
}

TEST_CASE("router pattern: each {parameter} takes one segment, handed over by name",
          "[router]") {
  constexpr std::string_view test = "/api/watch/{id}/webhooks/{wid}/test";
  path_params params;
  REQUIRE(match_pattern(test, "/api/watch/w1/webhooks/h2/test", params));
  CHECK(params.size() == 2);
  CHECK(params["id"] == "w1");
  CHECK(params["wid"] == "h2");
  CHECK(params["other"].empty());
  // The values are views into the path, not copies.
  std::string path = "/api/watch/abc";
  REQUIRE(match_pattern("/api/watch/{id}", path, params));
  CHECK(params["id"].data() == path.data() + 11);
  // A segment stops at '/': a longer path is another route's.
  CHECK_FALSE(match_pattern("/api/watch/{id}", "/api/watch/abc/webhooks", params));
  CHECK_FALSE(match_pattern(test, "/api/watch/w1/webhooks/h2", params));
  CHECK_FALSE(match_pattern(test, "/api/watch/w1/hooks/h2/test", params));
  CHECK_FALSE(match_pattern("/api/watch/{id}", "/api/watch", params));
  // An empty segment is a value too; the handler decides what it means.
  REQUIRE(match_pattern("/api/explain/{code}", "/api/explain/", params));
  CHECK(params.size() == 1);
  CHECK(params["code"].empty());
  // A failed match leaves no values behind.
  CHECK_FALSE(match_pattern(test, "/api/watch/w1/webhooks/h2/x", params));
  CHECK(params.size() == 0);
}

TEST_CASE("router pattern: the table's patterns are checked as written", "[router]") {
  static_assert(well_formed_pattern("/api/info"));
  static_assert(well_formed_pattern("/api/watch/{id}/webhooks/{wid}/test"));
  static_assert(well_formed_pattern("/{a}/{b}/{c}/{d}"));
  for (std::string_view bad : {"", "api/info", "/api/{id", "/api/id}", "/api/{}",
                               "/api/x{id}", "/api/{id}x", "/api/{a/b}", "/api/{a{b}}",
                               "/{a}/{b}/{c}/{d}/{e}"}) {
    INFO(bad);
    CHECK_FALSE(well_formed_pattern(bad));
  }
}

TEST_CASE("router pattern: method sets write Allow in one order", "[router]") {
  method_set get{http::verb::get};
  method_set head{http::verb::head};
  method_set post{http::verb::post};
  method_set del{http::verb::delete_};
  CHECK((get | head).text() == "GET, HEAD");
  CHECK((head | get).text() == "GET, HEAD");
  CHECK((del | post).text() == "POST, DELETE");
  CHECK((get | method_set{http::verb::put} | method_set{http::verb::patch}).text()
        == "GET, PUT, PATCH");
  CHECK((get | head).contains(http::verb::head));
  CHECK_FALSE(get.contains(http::verb::head));
  CHECK_FALSE(get.contains(http::verb::options));
  // A method no route takes is no member of any set.
  CHECK(method_set{http::verb::trace}.empty());
  CHECK_FALSE((get | head | post | del).contains(http::verb::connect));
  CHECK(method_set{}.text().empty());
}
