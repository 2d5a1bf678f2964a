// Helpers the readers of net/xbox share: members of untrusted JSON by kind (beside
// base/json_access, which the readers use too), and provider text made safe to quote in an operator's message.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace netherscope::net::xbox {

/// The member key when it is an array, else null.
const boost::json::array* array_at(const boost::json::object& o, std::string_view key);

/// The member key when it is a non-empty string, as a std::string.
std::optional<std::string> text_at(const boost::json::object& o, std::string_view key);

/// The first member whose key equals key without regard to ASCII letter case, else null.
const boost::json::value* member_icase(const boost::json::object& o, std::string_view key);

/// Provider text fit to quote in a message: printable ASCII kept, everything else "?", cut to
/// limit characters. Only ever given names and codes, never anything a request carried.
std::string shown(std::string_view text, std::size_t limit = 80);

} // namespace netherscope::net::xbox
