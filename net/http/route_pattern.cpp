#include "net/http/route_pattern.hpp"

#include <algorithm>

namespace netherscope::net::http {

std::string method_set::text() const {
  std::string out;
  for (auto verb : known) {
    if (!contains(verb))
      continue;
    if (!out.empty())
      out += ", ";
    auto name = boost::beast::http::to_string(verb);
    out.append(name.data(), name.size());
  }
  return out;
}

bool match_pattern(std::string_view pattern, std::string_view path, path_params& params) {
  params.clear();
  std::size_t at = 0;
  auto matched = true;
  for (std::size_t i = 0; matched && i < pattern.size(); ++i) {
    if (pattern[i] == '{') {
      auto close = pattern.find('}', i);
      auto end = std::min(path.find('/', at), path.size());
      matched = close != std::string_view::npos
                && params.add(pattern.substr(i + 1, close - i - 1), path.substr(at, end - at));
      i = close;
      at = end;
    } else {
      matched = at < path.size() && path[at++] == pattern[i];
    }
  }
  // A failed match hands nothing over.
  if (!matched || at != path.size()) {
    params.clear();
    return false;
  }
  return true;
}

} // namespace netherscope::net::http
