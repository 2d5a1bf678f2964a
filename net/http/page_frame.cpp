#include "net/http/page_frame.hpp"

#include "base/text.hpp"

namespace netherscope::net::http {

// The pages run no script; everything they need is markup and the compiled-in stylesheets
// of the page at / (/page.css, and /motd.css for a server's name in colour).
std::string page_head(std::string_view title, std::string_view extra_head) {
  std::string head = R"(<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>)";
  head += title;
  head += R"( · netherscope</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/page.css">
)";
  head += extra_head;
  head += R"(</head><body>
<header class="top"><div class="wrap">
<p class="brand"><a href="/"><img src="/favicon.svg" alt="" width="28" height="28"> netherscope</a></p>
<nav aria-label="Site"><a class="button button-quiet" href="/">Check a server</a></nav>
</div></header>
<main id="main" class="wrap">
)";
  return head;
}

std::string_view page_tail() {
  return R"(</main>
<footer class="wrap foot"><p>netherscope is a free JSON API: the whole contract is at
<a href="/openapi.json">/openapi.json</a>. Every call counts against a monthly quota.</p></footer>
</body></html>
)";
}

std::string time_element(std::int64_t unix_seconds) {
  auto text = base::rfc3339_utc(unix_seconds);
  if (unix_seconds <= 0 || !text)
    return {};
  return "<time datetime=\"" + *text + "\">" + *text + "</time>";
}

std::string_view page_content_security_policy() {
  // The pages load the stylesheet and the icon of the page at / and nothing else; no script
  // runs, so default-src 'none' covers scripts.
  return "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
         "frame-ancestors 'none'; base-uri 'none'";
}

void add_page_headers(boost::beast::http::fields& headers) {
  headers.set("Content-Security-Policy", page_content_security_policy());
  headers.set("X-Frame-Options", "DENY");
  headers.set("Referrer-Policy", "no-referrer");
  headers.set("X-Content-Type-Options", "nosniff");
}

} // namespace netherscope::net::http
