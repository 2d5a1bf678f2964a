// What every HTML page of the service shares: the head and the top and foot of the page at /,
// and the headers every page is sent with. The account pages and the servers' pages are
// rendered inside this frame, so a person moving between them and / sees one site.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <boost/beast/http/fields.hpp>

namespace netherscope::net::http {

/// The document up to the opening of <main>: the title (already escaped) followed by
/// " · netherscope", the page's stylesheet (/page.css), and extra_head (more <meta> and
/// <link> elements, already escaped) at the end of the head.
std::string page_head(std::string_view title, std::string_view extra_head = {});

/// The document from the closing of <main> on.
std::string_view page_tail();

/// A time as pages show it, in a <time> element (RFC 3339, UTC); empty for none (0 or less).
std::string time_element(std::int64_t unix_seconds);

/// The Content-Security-Policy of every page: nothing may load but this origin's stylesheets
/// and images, nothing runs, forms post only to us, and no site may frame the page.
std::string_view page_content_security_policy();

/// Sets the headers every HTML page carries: the Content-Security-Policy, X-Frame-Options
/// DENY for browsers without frame-ancestors, Referrer-Policy: no-referrer (the callback's
/// URL holds the provider's code, which must not leave in a Referer) and nosniff.
void add_page_headers(boost::beast::http::fields& headers);

} // namespace netherscope::net::http
