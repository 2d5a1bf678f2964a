// Reading JSON that strangers wrote, without exceptions: a wrong kind or a missing member is
// a null pointer or nullopt, never a throw (Boost.JSON's as_*() and at() would throw).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <boost/json/object.hpp>
#include <boost/json/string.hpp>

namespace netherscope::base {

/// Parses text as a JSON object; nullopt when it is not JSON or not an object.
std::optional<boost::json::object> parse_object(std::string_view text);

/// The member key when it is an object, else null.
const boost::json::object* object_at(const boost::json::object& o, std::string_view key);

/// The member key when it is a string, else null.
const boost::json::string* string_at(const boost::json::object& o, std::string_view key);

/// The member key when it is an integer that fits int64 (a number written with a fraction of
/// zero, 5.0, counts), else nullopt.
std::optional<std::int64_t> int64_at(const boost::json::object& o, std::string_view key);

/// A JSON string as a string_view (valid while the string lives).
inline std::string_view view(const boost::json::string& s) {
  return {s.data(), s.size()};
}

} // namespace netherscope::base
