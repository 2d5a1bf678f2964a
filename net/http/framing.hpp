// Whether a request's header frames its message unambiguously (RFC 9112 §6, §3.2).
//
// A proxy in front of us and our parser must agree where a request ends, or the bytes after a
// body could run as a second request that the proxy never saw (request smuggling). So a request
// whose length could be read two ways is refused and its connection closed, never guessed at.
#pragma once

#include <optional>
#include <string>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

namespace netherscope::net {

/// Why a request header cannot be served, as a sentence; nullopt when it is well framed:
/// Transfer-Encoding together with Content-Length, a Transfer-Encoding whose last coding is
/// not chunked, more than one Content-Length, or (HTTP/1.1) a Host field missing or repeated.
std::optional<std::string>
framing_problem(const boost::beast::http::request_header<>& header);

} // namespace netherscope::net
