#include "net/http/framing.hpp"

#include <iterator>

#include "net/base/text.hpp"

namespace netherscope::net {

namespace http = boost::beast::http;

namespace {

/// How many fields of this name the header has.
std::size_t count_of(const http::request_header<>& header, http::field name) {
  auto range = header.equal_range(name);
  return static_cast<std::size_t>(std::distance(range.first, range.second));
}

/// The last transfer coding named across every Transfer-Encoding field, lower-cased.
std::string last_coding(const http::request_header<>& header) {
  std::string last;
  for (auto range = header.equal_range(http::field::transfer_encoding);
       range.first != range.second; ++range.first)
    for (auto coding : split_tokens(
           std::string_view{range.first->value().data(), range.first->value().size()}, ","))
      last = std::string{trim(coding)};
  for (auto& c : last)
    c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return last;
}

} // namespace

std::optional<std::string> framing_problem(const http::request_header<>& header) {
  auto encodings = count_of(header, http::field::transfer_encoding);
  auto lengths = count_of(header, http::field::content_length);
  if (encodings > 0 && lengths > 0)
    return std::string{"a request may not have both Transfer-Encoding and Content-Length"};
  if (encodings > 0 && last_coding(header) != "chunked")
    return std::string{"Transfer-Encoding must end in chunked; its length cannot be known"};
  if (lengths > 1)
    return std::string{"a request may have only one Content-Length"};
  if (header.version() >= 11) {
    auto hosts = count_of(header, http::field::host);
    if (hosts == 0)
      return std::string{"an HTTP/1.1 request needs a Host field"};
    if (hosts > 1)
      return std::string{"a request may have only one Host field"};
  }
  return std::nullopt;
}

} // namespace netherscope::net
