// Validation of POST /api/status's JSON body: the targets whose status a caller asks for.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/call.hpp"
#include "core/failure.hpp"

namespace netherscope::core {

/// Reads the targets of a body already known to be JSON by its media type:
/// {"targets":[{"host","port","tls","raknetPort"},...]}, 1 to max_status_targets entries.
/// A body that cannot be served at all (not a JSON object, targets missing, not an array,
/// empty or too long, an entry that is not an object) returns nullopt with error set
/// (invalid_input). A problem with one entry's fields goes into that entry's invalid, named
/// by its index, so the others are still served. Unknown fields are ignored, as in
/// POST /api/offer's body.
std::optional<std::vector<status_item>> parse_status_body(std::string_view body, failure& error);

} // namespace netherscope::core
