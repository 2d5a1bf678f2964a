// A response as the bytes that go on the wire, in one buffer.
//
// Beast's serializer hands the socket a chain of small buffers (the status line, then each
// field's name, separator, value and line end) and walks that chain on every write; for a
// small reply such as a cached offer the walk is a large part of an io thread's work per
// response (docs/BENCHMARKS.md has the profile). One contiguous buffer costs a single append
// per piece and one buffer per write. The bytes are the ones Beast writes: the test holds the two side
// by side.
#pragma once

#include <string>
#include <string_view>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

namespace netherscope::net::http {

/// Writes res (header, then its body as it stands) into out, replacing what out held and
/// keeping its capacity for the next response. Content-Length and Connection are fields the
/// caller set (prepare_payload, keep_alive); a HEAD answer is one whose body was cleared.
void write_wire(const boost::beast::http::response<boost::beast::http::string_body>& res,
                std::string& out);

/// Appends data to out as one chunk of a chunked body (RFC 9112 §7.1), framed by Beast's
/// make_chunk; data must not be empty, which would end the body.
void append_chunk(std::string_view data, std::string& out);

/// Appends the last chunk, which ends a chunked body, without trailers.
void append_last_chunk(std::string& out);

} // namespace netherscope::net::http
