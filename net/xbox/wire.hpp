// The Xbox sign-in chain's requests and answers as plain values, before and after any socket:
// the request builders of net/xbox make an http_call, net/upstream/xbox_chain sends it with
// the project's HTTP client, and the readers take the http_answer back. So every step is a pure
// function tested without a socket, and this room needs nothing but base.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace netherscope::net::xbox {

/// A header name and value.
using header = std::pair<std::string, std::string>;

/// One request of the chain, ready to send.
struct http_call {
  /// "GET" or "POST".
  std::string method = "POST";
  /// The absolute URL (https://, or http:// to a loopback fake).
  std::string url;
  /// Sent with the body; empty for a GET.
  std::string content_type;
  std::string body;
  /// Further request headers; they may carry tokens, so they are never logged.
  std::vector<header> headers;

  /// The value of a request header (names compared without letter case), or "".
  std::string header_value(std::string_view name) const;
};

/// One answer, as far as the readers look at it.
struct http_answer {
  int status = 0;
  std::string body;
  /// The response headers of answer_headers() that were present.
  std::vector<header> headers;

  /// The value of a response header (names compared without letter case), or "".
  std::string header_value(std::string_view name) const;
};

/// The response headers the readers use, which the sender must keep: Xbox's X-Err (the error
/// code of a refused sign-in) and Date.
const std::vector<std::string>& answer_headers();

/// An application/x-www-form-urlencoded body of the pairs, in order, everything but RFC 3986
/// unreserved characters percent-encoded.
std::string form_encode(const std::vector<header>& pairs);

/// The path and query of an absolute URL ("/device/authenticate"), as an Xbox request
/// signature covers it; "/" when the URL has no path, "" when it is no absolute URL.
std::string path_of(std::string_view url);

} // namespace netherscope::net::xbox
