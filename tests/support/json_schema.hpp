// Test support: checks a JSON value against a schema of the OpenAPI document, with the
// keywords that document uses ($ref, type, const, enum, properties, required, items,
// additionalProperties, oneOf, anyOf, minimum, maximum, maxLength, maxItems, pattern).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

namespace netherscope::test {

/// What a local $ref ("#/components/schemas/Error") names inside doc, or nullptr when it names
/// nothing or is not local. The part after '#' is a JSON Pointer (RFC 6901), so "~1" and "~0"
/// escapes are read as such.
const boost::json::value* resolve_ref(const boost::json::value& doc, std::string_view ref);

/// Every way value breaks schema, each as "path: what"; empty when it conforms. $refs
/// ("#/components/...") are resolved in doc. Stricter than JSON Schema in one way: an object
/// member that a schema with `properties` does not name is reported, unless the schema has
/// an `additionalProperties` schema for it.
std::vector<std::string> schema_violations(const boost::json::value& doc,
                                           const boost::json::value& schema,
                                           const boost::json::value& value);

} // namespace netherscope::test
