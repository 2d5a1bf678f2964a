// Test support: an answer of the Xbox chain's services as the readers of net/xbox take it.
#pragma once

#include <string>
#include <utility>
#include <vector>

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

} // namespace netherscope::test
