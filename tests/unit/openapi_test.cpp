#include <catch2/catch.hpp>

#include <functional>

#include <boost/json.hpp>

#include "app/service.hpp"
#include "net/base/text.hpp"
#include "net/http/router.hpp"
#include "support/json_schema.hpp"

using namespace netherscope;

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
    net::http::verb verb;
  };
  for (auto r : {route{"/", "get", net::http::verb::get},
                 route{"/", "head", net::http::verb::head},
                 route{"/api/info", "get", net::http::verb::get},
                 route{"/api/offer", "post", net::http::verb::post},
                 route{"/api/check", "get", net::http::verb::get},
                 route{"/api/account", "get", net::http::verb::get},
                 route{"/api/account/key", "post", net::http::verb::post},
                 route{"/api/account/key", "delete", net::http::verb::delete_},
                 route{"/auth/github/login", "get", net::http::verb::get},
                 route{"/auth/github/callback", "get", net::http::verb::get},
                 route{"/account", "get", net::http::verb::get},
                 route{"/account/session", "get", net::http::verb::get},
                 route{"/account/key", "post", net::http::verb::post},
                 route{"/account/key/revoke", "post", net::http::verb::post},
                 route{"/auth/signout", "post", net::http::verb::post},
                 route{"/healthz", "get", net::http::verb::get},
                 route{"/readyz", "get", net::http::verb::get},
                 route{"/metrics", "get", net::http::verb::get},
                 route{"/openapi.json", "get", net::http::verb::get},
                 route{"/openapi.json", "head", net::http::verb::head},
                 route{"/healthz", "head", net::http::verb::head},
                 route{"/readyz", "head", net::http::verb::head}}) {
    INFO(r.path << " " << r.method);
    REQUIRE(paths.contains(r.path));
    CHECK(paths.at(r.path).as_object().contains(r.method));
    // And the router knows it: it does not answer 404.
    net::request req{r.verb, r.path, 11};
    net::route_context ctx;
    auto decision = net::route(req, ctx);
    if (decision.immediate)
      CHECK(decision.immediate->result() != net::http::status::not_found);
    else
      CHECK(decision.call->invalid.code != error_code::not_found);
  }
}

TEST_CASE("openapi: every row of the route table is described, with its methods",
          "[openapi]") {
  auto doc = document();
  auto& paths = doc.at("paths").as_object();
  for (const auto& row : net::routes()) {
    // The page's files other than / are its own business, not the API's.
    auto path = row.kind == net::route_kind::page ? std::string_view{"/"} : row.pattern;
    INFO(path);
    REQUIRE(paths.contains(path));
    auto& described = paths.at(path).as_object();
    for (auto verb : {net::http::verb::get, net::http::verb::head, net::http::verb::post,
                      net::http::verb::put, net::http::verb::patch, net::http::verb::delete_}) {
      if (!row.methods.contains(verb))
        continue;
      auto method = net::http::to_string(verb);
      auto name = net::ascii_lower({method.data(), method.size()});
      INFO(name);
      CHECK(described.contains(name));
    }
    if (row.kind == net::route_kind::api)
      CHECK(described.contains("options"));
  }
}
