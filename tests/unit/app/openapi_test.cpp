#include <catch2/catch.hpp>

#include <functional>

#include <boost/json.hpp>

#include "app/service.hpp"
#include "base/text.hpp"
#include "net/http/router.hpp"
#include "support/json_schema.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

boost::json::value document() {
  boost::system::error_code ec;
  auto doc = boost::json::parse(openapi_document, ec);
  REQUIRE_FALSE(ec);
  return doc;
}

} // namespace

TEST_CASE("openapi: the embedded document is OpenAPI 3.1 and every ref resolves", "[openapi]") {
  auto doc = document();
  CHECK(doc.at("openapi") == "3.1.0");
  std::vector<std::string> broken;
  std::function<void(const boost::json::value&)> walk = [&](const boost::json::value& v) {
    if (v.is_object()) {
      for (auto& [key, value] : v.as_object()) {
        if (key == "$ref" && value.is_string()
            && test::resolve_ref(doc, value.as_string()) == nullptr)
          broken.emplace_back(value.as_string());
        walk(value);
      }
    } else if (v.is_array()) {
      for (auto& item : v.as_array())
        walk(item);
    }
  };
  walk(doc);
  CHECK(broken.empty());
}

TEST_CASE("openapi: every route the router serves is described", "[openapi]") {
  auto doc = document();
  auto& paths = doc.at("paths").as_object();
  struct route {
    const char* path;
    const char* method;
    boost::beast::http::verb verb;
  };
  for (auto r : {route{"/", "get", boost::beast::http::verb::get},
                 route{"/", "head", boost::beast::http::verb::head},
                 route{"/api/info", "get", boost::beast::http::verb::get},
                 route{"/api/offer", "post", boost::beast::http::verb::post},
                 route{"/api/check", "get", boost::beast::http::verb::get},
                 route{"/api/account", "get", boost::beast::http::verb::get},
                 route{"/api/account/key", "post", boost::beast::http::verb::post},
                 route{"/api/account/key", "delete", boost::beast::http::verb::delete_},
                 route{"/api/watch", "get", boost::beast::http::verb::get},
                 route{"/api/watch", "post", boost::beast::http::verb::post},
                 route{"/api/watch/{id}", "delete", boost::beast::http::verb::delete_},
                 route{"/api/watch/{id}/webhooks", "post", boost::beast::http::verb::post},
                 route{"/api/watch/{id}/webhooks/{wid}", "delete",
                       boost::beast::http::verb::delete_},
                 route{"/api/watch/{id}/webhooks/{wid}/test", "post",
                       boost::beast::http::verb::post},
                 route{"/auth/github/login", "get", boost::beast::http::verb::get},
                 route{"/auth/github/callback", "get", boost::beast::http::verb::get},
                 route{"/account", "get", boost::beast::http::verb::get},
                 route{"/account/session", "get", boost::beast::http::verb::get},
                 route{"/account/key", "post", boost::beast::http::verb::post},
                 route{"/account/key/revoke", "post", boost::beast::http::verb::post},
                 route{"/auth/signout", "post", boost::beast::http::verb::post},
                 route{"/healthz", "get", boost::beast::http::verb::get},
                 route{"/readyz", "get", boost::beast::http::verb::get},
                 route{"/metrics", "get", boost::beast::http::verb::get},
                 route{"/openapi.json", "get", boost::beast::http::verb::get},
                 route{"/openapi.json", "head", boost::beast::http::verb::head},
                 route{"/healthz", "head", boost::beast::http::verb::head},
                 route{"/readyz", "head", boost::beast::http::verb::head}}) {
    INFO(r.path << " " << r.method);
    REQUIRE(paths.contains(r.path));
    CHECK(paths.at(r.path).as_object().contains(r.method));
    // And the router knows it: it does not answer 404.
    net::http::request req{r.verb, r.path, 11};
    net::http::route_context ctx;
    auto decision = net::http::route(req, ctx);
    if (decision.immediate)
      CHECK(decision.immediate->result() != boost::beast::http::status::not_found);
    else
      CHECK(decision.call->invalid.code != error_code::not_found);
  }
}

TEST_CASE("openapi: every row of the route table is described, with its methods",
          "[openapi]") {
  auto doc = document();
  auto& paths = doc.at("paths").as_object();
  for (const auto& row : net::http::routes()) {
    // The page's files other than / are its own business, not the API's.
    auto path = row.kind == net::http::route_kind::page ? std::string_view{"/"} : row.pattern;
    INFO(path);
    REQUIRE(paths.contains(path));
    auto& described = paths.at(path).as_object();
    for (auto verb : {boost::beast::http::verb::get, boost::beast::http::verb::head, boost::beast::http::verb::post,
                      boost::beast::http::verb::put, boost::beast::http::verb::patch, boost::beast::http::verb::delete_}) {
      if (!row.methods.contains(verb))
        continue;
      auto method = boost::beast::http::to_string(verb);
      auto name = base::ascii_lower({method.data(), method.size()});
      INFO(name);
      CHECK(described.contains(name));
    }
    if (row.kind == net::http::route_kind::api)
      CHECK(described.contains("options"));
  }
}
