// The pieces a route table is written with: sets of HTTP methods, and path patterns with
// {parameters} matched against a request's path. Pure values, no allocation on a match.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
// Boost 1.81's string_view (under beast/http/verb.hpp) needs std::ostream complete.
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include <boost/beast/http/verb.hpp>

namespace netherscope::net::http {

/// A set of HTTP methods: those a route takes.
class method_set {
public:
  constexpr method_set() = default;

  /// The set of one method; a method no route can take (CONNECT, TRACE, ...) gives the
  /// empty set.
  constexpr method_set(boost::beast::http::verb verb) : bits_{bit_of(verb)} {}

  /// The methods of both sets.
  constexpr method_set operator|(method_set other) const {
    method_set both;
    both.bits_ = static_cast<std::uint8_t>(bits_ | other.bits_);
    return both;
  }

  constexpr method_set& operator|=(method_set other) {
    return *this = *this | other;
  }

  constexpr bool contains(boost::beast::http::verb verb) const {
    return (bits_ & bit_of(verb)) != 0;
  }

  constexpr bool empty() const {
    return bits_ == 0;
  }

  constexpr bool operator==(method_set other) const {
    return bits_ == other.bits_;
  }

  /// The methods as Allow and Access-Control-Allow-Methods list them, in a fixed order:
  /// "GET, HEAD", "POST, DELETE".
  std::string text() const;

private:
  // The order of this list is the order text() writes.
  static constexpr std::array<boost::beast::http::verb, 6> known{
    boost::beast::http::verb::get,   boost::beast::http::verb::head,
    boost::beast::http::verb::post,  boost::beast::http::verb::put,
    boost::beast::http::verb::patch, boost::beast::http::verb::delete_};

  static constexpr std::uint8_t bit_of(boost::beast::http::verb verb) {
    for (std::size_t i = 0; i < known.size(); ++i)
      if (known[i] == verb)
        return static_cast<std::uint8_t>(1u << i);
    return 0;
  }

  std::uint8_t bits_ = 0;
};

/// The values a request's path gives the {parameters} of the pattern it matched: views into
/// the path, valid as long as the path is.
class path_params {
public:
  /// The most parameters one pattern may have.
  static constexpr std::size_t capacity = 4;

  /// The value of the parameter name; empty when the pattern has no parameter of that name.
  std::string_view operator[](std::string_view name) const {
    for (std::size_t i = 0; i < size_; ++i)
      if (items_[i].first == name)
        return items_[i].second;
    return {};
  }

  std::size_t size() const {
    return size_;
  }

  /// Forgets every value, for the next pattern.
  void clear() {
    size_ = 0;
  }

  /// Records a value; false when capacity values are held already.
  bool add(std::string_view name, std::string_view value) {
    if (size_ == capacity)
      return false;
    items_[size_++] = {name, value};
    return true;
  }

private:
  std::array<std::pair<std::string_view, std::string_view>, capacity> items_{};
  std::size_t size_ = 0;
};

/// Whether path matches pattern: each character of the pattern stands for itself, except a
/// {name}, which stands for one path segment (the characters up to the next '/' or the end,
/// none at all included). On a match, params holds the segments by name.
bool match_pattern(std::string_view pattern, std::string_view path, path_params& params);

/// Whether a pattern can be matched as written: it starts with '/', each {name} is a whole
/// segment with a non-empty name, and it has at most path_params::capacity of them. Checked
/// over the route table at compile time.
constexpr bool well_formed_pattern(std::string_view pattern) {
  if (pattern.empty() || pattern.front() != '/')
    return false;
  std::size_t count = 0;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '}')
      return false;
    if (pattern[i] != '{')
      continue;
    auto close = pattern.find('}', i);
    if (close == std::string_view::npos || close == i + 1 || pattern[i - 1] != '/')
      return false;
    if (pattern.substr(i + 1, close - i - 1).find_first_of("{/") != std::string_view::npos)
      return false;
    if (close + 1 < pattern.size() && pattern[close + 1] != '/')
      return false;
    if (++count > path_params::capacity)
      return false;
    i = close;
  }
  return true;
}

} // namespace netherscope::net::http
