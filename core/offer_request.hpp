// Validation of POST /api/offer's JSON body (SPEC 4.2, PRODUCT.md "Input").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "core/failure.hpp"
#include "core/results.hpp"

namespace netherscope::core {

/// The most entries expectPorts may have. It bounds the work one call can ask for (each
/// expected port is looked for among the candidates) and is far above any port list a
/// server's server-udp-ports setting gives.
constexpr std::size_t max_expected_ports = 64;

/// Whether a Content-Type names JSON: application/json, any case, parameters allowed.
bool is_json_media_type(std::string_view content_type);

/// Validates a networkId given as text: 1..20 decimal digits whose value fits in uint64.
bool is_valid_network_id(std::string_view text);

/// A JSON value as a port number 1..65535, or nullopt.
std::optional<std::uint16_t> port_number(const boost::json::value& v);

/// A request body read as a JSON object; nullopt with invalid_input ("the body must be a JSON
/// object such as <example>") for anything else.
std::optional<boost::json::object> read_object_body(std::string_view body, std::string_view example,
                                                    failure& error);

/// Reads the target a JSON object names, as POST /api/offer's body and each entry of POST
/// /api/status's name it: host (required), port and tls (true or false; absent or null to
/// detect). On invalid input returns false and sets error (invalid_input, naming the field);
/// where keeps what was read before it.
bool read_target(const boost::json::object& obj, target& where, failure& error);

/// Reads the offer request from a body already known to be JSON by its media type.
/// On invalid input returns nullopt and sets error (invalid_input, naming the field).
std::optional<offer_request> parse_offer_body(std::string_view body, failure& error);

/// A random network id (uint64 from OpenSSL's generator) as decimal text.
std::string random_network_id();

} // namespace netherscope::core
