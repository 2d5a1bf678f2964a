// The fake Xbox chain's request handling: a function from a request to a response, with the
// state it changes. The server (server.cpp) only reads requests and writes what this returns.
#pragma once

#include "state.hpp"

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace fake_xbox {

namespace http = boost::beast::http;

using request = http::request<http::string_body>;
using response = http::response<http::string_body>;

/// Answers one request; every host of the chain on one port, told apart by path.
response handle_request(const request& req, state& st);

// -- what the handlers of each host share (replies.cpp) --

/// A JSON response with the status, keep-alive as the request asked, and a Date header.
response json_reply(const request& req, http::status status, const boost::json::object& body);

/// A text/plain response.
response text_reply(const request& req, http::status status, std::string body);

/// The request body as a JSON object; nullopt when it is not one.
std::optional<boost::json::object> json_body(const request& req);

/// The first value of a form field of an application/x-www-form-urlencoded body, decoded.
std::optional<std::string> form_field(std::string_view body, std::string_view name);

/// A string member of an object, or "" when absent or not a string.
std::string member(const boost::json::object& o, std::string_view key);

/// A time as Xbox writes it: "2020-12-07T19:52:08.4463796Z" (seven fraction digits).
std::string xbox_time(std::int64_t unix_ms);

/// Why a request's Signature header does not prove possession of key (empty when it does):
/// 76 bytes of base64, policy version 1, a FILETIME within the allowed skew, and an ECDSA
/// P-256 r||s over the research's layout of method, path and query, Authorization and body.
std::string check_signature(const request& req, EVP_PKEY* key, const state& st);

/// A compact JWS signed RS256 by the issuer, with its kid in the header.
std::string issuer_jwt(const state& st, const boost::json::object& claims);

/// Counts one event in the stats.
void count(state& st, const std::string& name);

// -- the hosts (live.cpp, xbl.cpp, services.cpp, control.cpp) --

/// login.live.com: /oauth20_connect.srf and /oauth20_token.srf.
response handle_live(const request& req, std::string_view path, state& st);

/// device.auth, sisu, user.auth, title.auth and xsts.auth.xboxlive.com.
response handle_xbl(const request& req, std::string_view path, state& st);

/// 20ca2.playfabapi.com, client.discovery and authorization.franchise.minecraft-services.net.
response handle_services(const request& req, std::string_view path, state& st);

/// /_fake/stats and /_fake/control.
response handle_control(const request& req, std::string_view path, state& st);

}  // namespace fake_xbox
