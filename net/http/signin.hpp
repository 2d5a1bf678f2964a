// The browser side of sign-in and of the account page, as pure functions: which cookies,
// how they are read and written, and whether a POST came from our own page.
//
// Over HTTPS the cookies are named with the __Host- prefix (RFC 6265bis §4.1.3.2): browsers
// then accept them only with Secure, Path=/ and no Domain, so neither a plain-HTTP page nor a
// sibling host can plant or overwrite them. Browsers refuse __Host- cookies that are not
// Secure, and Secure cookies from plain-HTTP pages, so for plain-HTTP local use (a public
// base URL such as http://127.0.0.1:8080) the same cookies go without the prefix. That is
// meant for a machine of one's own only; docs/OPERATIONS.md says so.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/beast/http/fields.hpp>

namespace netherscope::net::http {

/// The names of the two cookies.
struct cookie_names {
  /// Binds a sign-in attempt to the browser that started it (10 minutes).
  std::string_view binding;
  /// The account page's session.
  std::string_view session;
};

/// The cookie names for a service served over HTTPS (secure) or plain HTTP.
cookie_names signin_cookie_names(bool secure);

/// One cookie as the request's Cookie headers give it.
struct cookie_lookup {
  /// Its value, when it was sent exactly once.
  std::string value;
  /// It was sent at all.
  bool found = false;
  /// It was sent more than once (in one Cookie header or several). Browsers send every
  /// cookie whose domain and path match, so two of one name mean another host or path
  /// planted one; no copy is trusted rather than the first one winning.
  bool ambiguous = false;
};

/// Finds the cookie name in every Cookie header of a request (RFC 6265 §5.4 cookie-string:
/// pairs separated by "; ", names compared exactly).
cookie_lookup find_cookie(const boost::beast::http::fields& headers, std::string_view name);

/// The Set-Cookie value that gives the browser a sign-in binding for 10 minutes.
std::string binding_cookie(std::string_view value, bool secure);

/// The Set-Cookie value that gives the browser a session (session_lifetime_seconds).
std::string session_cookie(std::string_view value, bool secure);

/// The Set-Cookie value that removes a cookie (Max-Age=0), with the attributes it was set
/// with, as browsers match a cookie by name, domain and path.
std::string cleared_cookie(std::string_view name, bool secure);

/// The origin of an absolute http(s) URL as browsers write it in an Origin header: scheme
/// and host lower-cased, the port only when it is not the scheme's default. Empty for other
/// URLs. Letter case never matters: HTTPS://Example.COM is https://example.com.
std::string origin_of(std::string_view url);

/// Whether a POST came from a page of our own origin, as far as the browser vouches:
/// - Sec-Fetch-Site, when sent, must be same-origin (browsers set it; pages cannot);
/// - Origin, when sent and not "null", must be public_origin;
/// - without an Origin, or with "null" (browsers send "null" for our own forms, since our
///   pages say Referrer-Policy: no-referrer), only Sec-Fetch-Site: same-origin vouches.
/// Two Origin headers are refused. A request no browser vouches for is refused: scripts
/// and other programs use the API with a key instead.
bool same_origin_post(const boost::beast::http::fields& headers, std::string_view public_origin);

/// The value of a field given exactly once in an application/x-www-form-urlencoded body;
/// nullopt when it is absent, repeated, or the body is no such form.
std::optional<std::string> form_field(std::string_view body, std::string_view name);

} // namespace netherscope::net::http
