// Building responses: the headers every answer of the edge carries, the JSON errors of the
// error table, CORS and the quota headers of the API, and the rendering of the actors'
// outcomes (render_api). The router (net/http/router.hpp) decides which answer a request
// gets; this file only builds it.
#pragma once

#include <string>
#include <string_view>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>

#include "core/call.hpp"
#include "core/failure.hpp"

namespace netherscope::net::http {

namespace beast = boost::beast;

using request = beast::http::request<beast::http::string_body>;
using response = beast::http::response<beast::http::string_body>;

/// A response with the headers every answer of the edge carries: its Content-Type,
/// Cache-Control: no-store and nosniff. The body's length is set.
response make_response(beast::http::status status, std::string body, std::string_view content_type,
                       unsigned version, bool keep_alive);

/// make_response for a JSON body.
response make_json(beast::http::status status, std::string body, unsigned version, bool keep_alive);

/// Adds the CORS headers of the API: any origin, and the quota headers readable by scripts.
void add_cors(response& res);

/// The JSON error of the error table for error, with Retry-After when it says when to come
/// back.
response error_response(const core::failure& error, unsigned version, bool keep_alive);

/// The answer to a CORS preflight (OPTIONS) of an API route that takes methods ("GET",
/// "POST, DELETE").
response preflight_response(std::string_view methods, const request& req);

/// The HTML page of an error of a server's page (/server/...), with Retry-After when it
/// says when to come back, and the headers every page carries.
response server_error_response(const core::failure& error, unsigned version, bool keep_alive);

/// Builds the HTTP response for the actors' answer to a call of the given kind. Sign-in and
/// session cookies get the Secure attribute and __Host- names when secure_cookies is set
/// (served over HTTPS). public_origin makes a server page's unfurl tags absolute.
response render_api(core::api_outcome&& outcome, core::call_kind kind, unsigned version, bool keep_alive,
                    bool secure_cookies = false, std::string_view public_origin = {});

/// Whether render_api makes the outcome the head of a stream whose body is the call's lines
/// (a status_batch outcome with streaming set and no error): 200, application/x-ndjson,
/// chunked on HTTP/1.1, and on HTTP/1.0 unframed with Connection: close.
bool is_stream_head(const core::api_outcome& outcome, core::call_kind kind);

/// The same, for an outcome the caller keeps (its body is copied).
inline response render_api(const core::api_outcome& outcome, core::call_kind kind, unsigned version,
                           bool keep_alive, bool secure_cookies = false,
                           std::string_view public_origin = {}) {
  return render_api(core::api_outcome{outcome}, kind, version, keep_alive, secure_cookies,
                    public_origin);
}

/// Builds a JSON error response outside the API (bad request line, overload).
response render_plain_error(const core::failure& error, unsigned version, bool keep_alive);

} // namespace netherscope::net::http
