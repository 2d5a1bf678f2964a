// The one table that maps an error code to its HTTP status, machine code and public message.
#pragma once

#include <ostream>
#include <string_view>

#include <boost/beast/http/status.hpp>

#include "net/api/failure.hpp"

namespace netherscope::net::api {

/// How one error_code appears to HTTP callers.
struct error_entry {
  error_code code;
  boost::beast::http::status status;
  /// A stable token callers can switch on, e.g. "invalid_input".
  std::string_view machine_code;
  /// Used when the failure carries no message of its own.
  std::string_view default_message;
};

/// The table entry of a code; every error_code has exactly one.
const error_entry& lookup(error_code code);

} // namespace netherscope::net::api
