#include "net/http/page.hpp"

#include <boost/beast/http/field.hpp>

#include "base/text.hpp"

namespace netherscope::net::http {

namespace beast = boost::beast;

const page_asset* find_page_asset(std::string_view path) {
  for (std::size_t i = 0; i < page_asset_count; ++i)
    if (page_assets[i].path == path)
      return &page_assets[i];
  return nullptr;
}

bool etag_matches(std::string_view if_none_match, std::string_view etag) {
  for (auto item : base::split(if_none_match, ',')) {
    item = base::trim(item);
    if (item == "*")
      return true;
    // Weak comparison: a W/ prefix does not matter for a conditional GET.
    if (item.substr(0, 2) == "W/")
      item.remove_prefix(2);
    if (!item.empty() && item == etag)
      return true;
  }
  return false;
}

beast::http::response<beast::http::string_body> page_response(const page_asset& asset,
                                                const beast::http::request<beast::http::string_body>& req,
                                                bool keep_alive) {
  auto not_modified = etag_matches(req[beast::http::field::if_none_match], asset.etag);
  beast::http::response<beast::http::string_body> res{not_modified ? beast::http::status::not_modified
                                                     : beast::http::status::ok,
                                        req.version()};
  res.set(beast::http::field::content_type, asset.content_type);
  res.set(beast::http::field::etag, asset.etag);
  // Revalidated on every use: the files change with each release and are tiny, and a 304
  // costs one round trip. Hashed file names with year-long caching would save that trip but
  // need a build step to rewrite the references.
  res.set(beast::http::field::cache_control, "no-cache");
  res.set("Content-Security-Policy", web_page_csp);
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Referrer-Policy", "no-referrer");
  res.set("X-Frame-Options", "DENY");
  res.set("Cross-Origin-Opener-Policy", "same-origin");
  res.keep_alive(keep_alive);
  if (not_modified)
    return res;
  res.body() = std::string{asset.body};
  res.prepare_payload();
  if (req.method() == beast::http::verb::head)
    res.body().clear(); // Content-Length stays that of the GET (RFC 9110 section 9.3.2).
  return res;
}

} // namespace netherscope::net::http
