// Test support: an answer of the Xbox chain's services as the readers of net/xbox take it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

#include "net/xbox/endpoints.hpp"
#include "net/xbox/wire.hpp"

namespace netherscope::test {

/// An answer with status, body and the response headers the readers look at.
inline net::xbox::http_answer answer(int status, std::string body,
                                     std::vector<net::xbox::header> headers = {}) {
  net::xbox::http_answer a;
  a.status = status;
  a.body = std::move(body);
  a.headers = std::move(headers);
  return a;
}

/// The production hosts: the endpoints with nothing redirected.
inline const net::xbox::endpoints production;

/// The instant the sample answers were received, 2020-12-07T19:52:08.446Z, in Unix ms.
inline constexpr std::int64_t received = 1607370728446;

/// The JSON body a reader sent, as an object.
inline boost::json::object body_of(const net::xbox::http_call& call) {
  return boost::json::parse(call.body).as_object();
}

} // namespace netherscope::test
