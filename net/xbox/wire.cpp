#include "net/xbox/wire.hpp"

#include <boost/url/encode.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

#include "base/text.hpp"

namespace netherscope::net::xbox {

namespace {

std::string find_header(const std::vector<header>& headers, std::string_view name) {
  for (const auto& [key, value] : headers)
    if (base::iequals(key, name))
      return value;
  return {};
}

} // namespace

std::string http_call::header_value(std::string_view name) const {
  return find_header(headers, name);
}

std::string http_answer::header_value(std::string_view name) const {
  return find_header(headers, name);
}

const std::vector<std::string>& answer_headers() {
  static const std::vector<std::string> names{"X-Err", "Date"};
  return names;
}

std::string form_encode(const std::vector<header>& pairs) {
  std::string out;
  for (const auto& [name, value] : pairs) {
    if (!out.empty())
      out += '&';
    out += boost::urls::encode(name, boost::urls::unreserved_chars);
    out += '=';
    out += boost::urls::encode(value, boost::urls::unreserved_chars);
  }
  return out;
}

std::string path_of(std::string_view text) {
  auto url = boost::urls::parse_absolute_uri(text);
  if (!url)
    return {};
  std::string path{url->encoded_path()};
  if (path.empty())
    path = "/";
  if (url->has_query())
    path += "?" + std::string{url->encoded_query()};
  return path;
}

} // namespace netherscope::net::xbox
