// The web page's routes: its embedded files, their headers, conditional GETs, and what the
// page's HTML may refer to under its own Content-Security-Policy.
#include <catch2/catch.hpp>

#include <regex>
#include <set>
#include <string>

#include "net/http/page.hpp"
#include "net/http/router.hpp"

using namespace netherscope::net;

namespace {

request make_request(http::verb method, std::string target) {
  request req{method, target, 11};
  req.set(http::field::host, "127.0.0.1:8080");
  return req;
}

route_context context() {
  route_context rc;
  rc.client = identify_client(boost::asio::ip::make_address("198.51.100.7"), "", {});
  rc.openapi_json = R"({"openapi":"3.1.0"})";
  return rc;
}

response answer_of(http::verb method, std::string target, std::string if_none_match = {}) {
  auto req = make_request(method, std::move(target));
  if (!if_none_match.empty())
    req.set(http::field::if_none_match, if_none_match);
  auto decision = route(req, context());
  REQUIRE(decision.immediate);
  REQUIRE_FALSE(decision.call);
  return std::move(*decision.immediate);
}

std::string header(const response& res, std::string_view name) {
  return std::string{res[name]};
}

} // namespace

TEST_CASE("page: GET / serves the page with its security headers", "[page]") {
  auto res = answer_of(http::verb::get, "/");
  CHECK(res.result() == http::status::ok);
  CHECK(header(res, "Content-Type") == "text/html; charset=utf-8");
  CHECK(res.body().find("<h1>") != std::string::npos);
  auto csp = header(res, "Content-Security-Policy");
  CHECK(csp.find("default-src 'self'") != std::string::npos);
  CHECK(csp.find("script-src 'self'") != std::string::npos);
  CHECK(csp.find("frame-ancestors 'none'") != std::string::npos);
  CHECK(csp.find("unsafe") == std::string::npos);
  CHECK(header(res, "X-Content-Type-Options") == "nosniff");
  CHECK(header(res, "Referrer-Policy") == "no-referrer");
  CHECK(header(res, "Cache-Control") == "no-cache");
  auto etag = header(res, "ETag");
  REQUIRE(etag.size() > 2);
  CHECK(etag.front() == '"');
  CHECK(etag.back() == '"');
  CHECK(header(res, "Content-Length") == std::to_string(res.body().size()));
}

TEST_CASE("page: every file is served with its type, and unknown ones are 404", "[page]") {
  REQUIRE(page_asset_count >= 5);
  std::set<std::string> etags;
  for (std::size_t i = 0; i < page_asset_count; ++i) {
    const auto& asset = page_assets[i];
    auto decision = route(make_request(http::verb::get, std::string{asset.path}), context());
    REQUIRE(decision.immediate);
    CHECK(decision.route == asset.path);
    CHECK(decision.immediate->result() == http::status::ok);
    CHECK(decision.immediate->body() == asset.body);
    CHECK(header(*decision.immediate, "Content-Type") == asset.content_type);
    etags.insert(std::string{asset.etag});
  }
  CHECK(etags.size() == page_asset_count);
  CHECK(answer_of(http::verb::get, "/page.js").result() == http::status::ok);
  CHECK(header(answer_of(http::verb::get, "/page.js"), "Content-Type")
        == "text/javascript; charset=utf-8");
  CHECK(answer_of(http::verb::get, "/page.jsx").result() == http::status::not_found);
  CHECK(answer_of(http::verb::get, "/index.html").result() == http::status::not_found);
}

TEST_CASE("page: a matching If-None-Match gets 304 without a body", "[page]") {
  auto etag = header(answer_of(http::verb::get, "/page.css"), "ETag");
  for (auto value : {etag, "W/" + etag, "\"other\", " + etag, std::string{"*"}}) {
    auto res = answer_of(http::verb::get, "/page.css", value);
    CHECK(res.result() == http::status::not_modified);
    CHECK(res.body().empty());
    CHECK(header(res, "ETag") == etag);
    CHECK(header(res, "Cache-Control") == "no-cache");
  }
  CHECK(answer_of(http::verb::get, "/page.css", "\"other\"").result() == http::status::ok);
  CHECK(answer_of(http::verb::get, "/page.css", "\"\"").result() == http::status::ok);
}

TEST_CASE("page: etag_matches compares weakly and reads lists", "[page]") {
  CHECK(etag_matches("\"a\"", "\"a\""));
  CHECK(etag_matches("W/\"a\"", "\"a\""));
  CHECK(etag_matches(" \"b\" , \"a\" ", "\"a\""));
  CHECK(etag_matches("*", "\"a\""));
  CHECK_FALSE(etag_matches("", "\"a\""));
  CHECK_FALSE(etag_matches("\"ab\"", "\"a\""));
  CHECK_FALSE(etag_matches("a", "\"a\""));
  CHECK_FALSE(etag_matches(",,", "\"a\""));
}

TEST_CASE("page: HEAD gives the GET's length and no body, other methods 405", "[page]") {
  auto get = answer_of(http::verb::get, "/");
  auto head = answer_of(http::verb::head, "/");
  CHECK(head.result() == http::status::ok);
  CHECK(head.body().empty());
  CHECK(header(head, "Content-Length") == std::to_string(get.body().size()));
  for (auto method : {http::verb::post, http::verb::put, http::verb::delete_}) {
    auto res = answer_of(method, "/");
    CHECK(res.result() == http::status::method_not_allowed);
    CHECK(header(res, "Allow") == "GET, HEAD");
  }
}

TEST_CASE("page: the HTML needs nothing its policy forbids", "[page]") {
  const auto* index = find_page_asset("/");
  REQUIRE(index != nullptr);
  std::string html{index->body};
  // Inline script, inline event handlers and style attributes would be blocked by the CSP
  // and leave the page broken, so none may be written.
  CHECK_FALSE(std::regex_search(html, std::regex{R"(<script(?![^>]*\ssrc=)[^>]*>)"}));
  CHECK_FALSE(std::regex_search(html, std::regex{R"(\son[a-z]+\s*=)", std::regex::icase}));
  CHECK_FALSE(std::regex_search(html, std::regex{R"(\sstyle\s*=)", std::regex::icase}));
  CHECK(html.find("<style") == std::string::npos);
  CHECK(html.find("<html lang=\"en\">") != std::string::npos);
  // Every file the HTML and the scripts load is one the service serves, from this origin.
  std::regex reference{R"((?:src|href)="([^"#]*)\"|from '\./([^']+)')"};
  std::set<std::string> loaded;
  for (std::size_t i = 0; i < page_asset_count; ++i) {
    std::string text{page_assets[i].body};
    for (std::sregex_iterator it{text.begin(), text.end(), reference}, end; it != end; ++it) {
      auto path = (*it)[1].matched ? (*it)[1].str() : "/" + (*it)[2].str();
      if (path.rfind("/api/", 0) == 0 || path.rfind("/auth/", 0) == 0 || path == "/openapi.json")
        continue;
      loaded.insert(path);
    }
  }
  CHECK(loaded.count("/page.js") == 1);
  CHECK(loaded.count("/account.js") == 1);
  for (const auto& path : loaded) {
    INFO(path);
    CHECK(find_page_asset(path) != nullptr);
  }
}
