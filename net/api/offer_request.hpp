// Validation of POST /api/offer's JSON body (SPEC 4.2, PRODUCT.md "Input").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "net/api/failure.hpp"
#include "net/api/results.hpp"

namespace netherscope::net {

/// Whether a Content-Type names JSON: application/json, any case, parameters allowed.
bool is_json_media_type(std::string_view content_type);

/// Validates a networkId given as text: 1..20 decimal digits whose value fits in uint64.
bool is_valid_network_id(std::string_view text);

/// Reads the offer request from a body already known to be JSON by its media type.
/// On invalid input returns nullopt and sets error (invalid_input, naming the field).
std::optional<offer_request> parse_offer_body(std::string_view body, failure& error);

/// A random network id (uint64 from OpenSSL's generator) as decimal text.
std::string random_network_id();

} // namespace netherscope::net
