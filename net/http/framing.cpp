#include "net/http/framing.hpp"

#include <iterator>

#include "base/text.hpp"

namespace netherscope::net::http {

namespace beast = boost::beast;

namespace {

/// How many fields of this name the header has.
std::size_t count_of(const beast::http::request_header<>& header, beast::http::field name) {
  auto range = header.equal_range(name);
  return static_cast<std::size_t>(std::distance(range.first, range.second));
}

/// The last transfer coding named across every Transfer-Encoding field, lower-cased.
std::string last_coding(const beast::http::request_header<>& header) {
  std::string last;
  for (auto range = header.equal_range(beast::http::field::transfer_encoding);
       range.first != range.second; ++range.first)
    for (auto coding : base::split_tokens(
           std::string_view{range.first->value().data(), range.first->value().size()}, ","))
      last = base::ascii_lower(base::trim(coding));
  return last;
}

/// The bytes from the first request line on: RFC 9112 §2.2 lets empty lines come first.
std::string_view skip_empty_lines(std::string_view bytes) {
  while (!bytes.empty() && (bytes.front() == '\r' || bytes.front() == '\n'))
    bytes.remove_prefix(1);
  return bytes;
}

// Method, space, target, space, "HTTP/1.1": the line as it was sent, less its CRLF.
std::size_t request_line_length(const beast::http::request_header<>& header) {
  return header.method_string().size() + header.target().size() + 10;
}

core::failure uri_too_long(std::size_t line_limit) {
  return core::make_failure(core::error_code::uri_too_long, "the request line is longer than "
                                                  + std::to_string(line_limit) + " bytes");
}

} // namespace

std::optional<std::string> framing_problem(const beast::http::request_header<>& header) {
  auto encodings = count_of(header, beast::http::field::transfer_encoding);
  auto lengths = count_of(header, beast::http::field::content_length);
  if (encodings > 0 && lengths > 0)
    return std::string{"a request may not have both Transfer-Encoding and Content-Length"};
  if (encodings > 0 && last_coding(header) != "chunked")
    return std::string{"Transfer-Encoding must end in chunked; its length cannot be known"};
  if (lengths > 1)
    return std::string{"a request may have only one Content-Length"};
  if (header.version() >= 11) {
    auto hosts = count_of(header, beast::http::field::host);
    if (hosts == 0)
      return std::string{"an HTTP/1.1 request needs a Host field"};
    if (hosts > 1)
      return std::string{"a request may have only one Host field"};
  }
  return std::nullopt;
}

request_start request_start_of(const beast::http::request_header<>& parsed,
                               std::string_view unparsed) {
  if (!parsed.target().empty())
    return {parsed.method_string(), parsed.target()};
  auto line = skip_empty_lines(unparsed);
  line = line.substr(0, line.find_first_of("\r\n"));
  auto space = line.find(' ');
  if (space == std::string_view::npos)
    return {line, {}};
  auto rest = line.substr(space + 1);
  return {line.substr(0, space), rest.substr(0, rest.find(' '))};
}

core::failure oversized_header(const beast::http::request_header<>& parsed, std::string_view unparsed,
                         std::size_t header_limit, std::size_t line_limit) {
  auto line_length = std::string_view::npos;
  if (!parsed.target().empty()) {
    line_length = request_line_length(parsed);
  } else {
    auto from_line = skip_empty_lines(unparsed);
    auto end = from_line.find('\n');
    // A line ends at its LF; the CR before that is not part of the line. No LF at all: the
    // line alone filled the header limit.
    if (end != std::string_view::npos)
      line_length = end > 0 && from_line[end - 1] == '\r' ? end - 1 : end;
  }
  if (line_length > line_limit)
    return uri_too_long(line_limit);
  return core::make_failure(core::error_code::headers_too_large, "the request header is larger than "
                                                       + std::to_string(header_limit) + " bytes");
}

std::optional<core::failure> overlong_request_line(const beast::http::request_header<>& header,
                                             std::size_t line_limit) {
  if (request_line_length(header) > line_limit)
    return uri_too_long(line_limit);
  return std::nullopt;
}

} // namespace netherscope::net::http
