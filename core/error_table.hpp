// The one table that maps an error code to its HTTP status, machine code and public message.
// The status is a number here, so that the rules need no HTTP library; the edge reads it as
// Beast's status (net/http/responses).
#pragma once

#include <cstdint>
#include <ostream>
#include <string_view>

#include "core/failure.hpp"

namespace netherscope::core {

/// How one error_code appears to HTTP callers.
struct error_entry {
  error_code code;
  /// The HTTP status of a reply that carries this code (RFC 9110).
  std::uint16_t status;
  /// A stable token callers can switch on, e.g. "invalid_input".
  std::string_view machine_code;
  /// Used when the failure carries no message of its own.
  std::string_view default_message;
};

/// The table entry of a code; every error_code has exactly one.
const error_entry& lookup(error_code code);

} // namespace netherscope::core
