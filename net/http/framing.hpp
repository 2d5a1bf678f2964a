// Whether a request's header frames its message unambiguously (RFC 9112 §6, §3.2).
//
// A proxy in front of us and our parser must agree where a request ends, or the bytes after a
// body could run as a second request that the proxy never saw (request smuggling). So a request
// whose length could be read two ways is refused and its connection closed, never guessed at.
//
// The same goes for the limits on a header: a request over them is refused with the status of the
// limit it broke (RFC 9110 15.5.15, RFC 6585 5) and its connection closed, since where it ends is
// never read.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "core/failure.hpp"

namespace netherscope::net::http {

/// The longest request line (method, target, version) the edge reads: 8 KiB, the size of one of
/// nginx's large_client_header_buffers by default, so a URL that passes a common proxy passes here.
constexpr std::size_t request_line_limit = 8 * 1024;

/// Why a request header cannot be served, as a sentence; nullopt when it is well framed:
/// Transfer-Encoding together with Content-Length, a Transfer-Encoding whose last coding is
/// not chunked, more than one Content-Length, or (HTTP/1.1) a Host field missing or repeated.
std::optional<std::string>
framing_problem(const boost::beast::http::request_header<>& header);

/// The method and target of a request the parser stopped in; views into the arguments of
/// request_start_of, each empty when what was read does not reach it.
struct request_start {
  std::string_view method;
  std::string_view target;
};

/// Reads the method and target of a request the parser stopped in. Beast consumes a request
/// line once it has parsed it, so they come from `parsed` when it has a target, and otherwise
/// from the start of `unparsed`, the bytes the parser left in the read buffer (empty lines
/// before the request line skipped, as RFC 9112 §2.2 allows).
request_start request_start_of(const boost::beast::http::request_header<>& parsed,
                               std::string_view unparsed);

/// Which limit a request broke when the parser stopped at the header limit (`parsed` and
/// `unparsed` as for request_start_of): uri_too_long (414) when its request line is longer
/// than line_limit, or does not end at all in what was read (the line alone filled the header
/// limit); headers_too_large (431) otherwise. The message names the limit in force.
core::failure oversized_header(const boost::beast::http::request_header<>& parsed,
                         std::string_view unparsed, std::size_t header_limit,
                         std::size_t line_limit = request_line_limit);

/// uri_too_long when a header that fit the header limit still has a request line longer than
/// line_limit (the header limit is a setting and may be the larger); nullopt otherwise.
std::optional<core::failure>
overlong_request_line(const boost::beast::http::request_header<>& header,
                      std::size_t line_limit = request_line_limit);

} // namespace netherscope::net::http
