// Fuzzes the HTTP edge without sockets: bytes as a client sends them, read the way a session
// reads them (Beast's parser with our header and body limits, the framing check before any
// body byte, the oversized-body answer), then routed by the pure router.
//
// Several requests may follow each other in one input, as on a kept-alive connection, so the
// fuzzer also explores where one request ends and the next begins.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/json/parse.hpp>

#include "base/cidr.hpp"
#include "net/http/client_request.hpp"
#include "net/http/framing.hpp"
#include "net/http/router.hpp"
#include "net/http/server_context.hpp"
#include "tests/fuzz/fuzz_check.hpp"
#include "support/rooms.hpp"

namespace {

namespace http = boost::beast::http;
using namespace netherscope::test;
using netherscope::fuzz::require;

/// A session stops reading ahead at its pipeline limit; a handful of requests is enough to
/// reach every state of the parser between two requests.
constexpr int max_requests = 4;

/// Checks what a session would send: the response serializes, and a JSON body is JSON.
void check_response(const response& res) {
  std::ostringstream wire;
  wire << res;
  if (res[http::field::content_type] == "application/json" && !res.body().empty()) {
    // Strict parsing: whatever the caller sent is echoed as valid UTF-8 (render_error makes
    // it so), so invalid UTF-8 in a body is a finding.
    boost::system::error_code ec;
    boost::json::parse(res.body(), ec);
    require(!ec, "a JSON response body is well-formed JSON, valid UTF-8 included");
  }
}

/// Checks a routing decision and renders what the actors would answer to an invalid call,
/// since that echoes the caller's input.
void check_decision(route_decision& decision, unsigned version, bool keep_alive) {
  require(decision.immediate.has_value() != decision.call.has_value(),
          "a request is either answered at once or handed to the actors");
  if (decision.immediate) {
    check_response(*decision.immediate);
    return;
  }
  api_outcome outcome;
  outcome.error = decision.call->invalid;
  check_response(render_api(std::move(outcome), decision.call->kind, version, keep_alive));
}

/// The client as a session sees it: a loopback peer, trusted as a proxy, so that the
/// request's X-Forwarded-For is read as well.
route_context make_context(const request& req) {
  static const std::vector<cidr> trusted{*parse_cidr("127.0.0.0/8")};
  std::string forwarded;
  auto [first, last] = req.equal_range("X-Forwarded-For");
  for (auto i = first; i != last; ++i) {
    if (!forwarded.empty())
      forwarded += ',';
    forwarded.append(i->value().data(), i->value().size());
  }
  route_context rc;
  rc.client = identify_client(boost::asio::ip::make_address("127.0.0.1"), forwarded, trusted);
  return rc;
}

/// Feeds the rest of the input to the parser until the header (or the whole message) is read
/// or an error stops it. Returns false when the input ran out first: the parser is always
/// given every byte left, so needing more means the session would wait for the client.
bool feed(http::request_parser<http::string_body>& parser, std::string_view& rest,
          boost::beast::error_code& ec, bool header_only) {
  while (!(header_only ? parser.is_header_done() : parser.is_done())) {
    auto used = parser.put(boost::asio::buffer(rest.data(), rest.size()), ec);
    rest.remove_prefix(used);
    if (ec == http::error::need_more)
      return false;
    if (ec)
      return true;
    // A body part with no bytes left to give makes no progress and reports nothing.
    if (used == 0)
      return false;
  }
  return true;
}

/// Reads and routes one request; false when the connection would close after it.
bool one_request(std::string_view& rest) {
  static const server_settings settings;
  http::request_parser<http::string_body> parser;
  parser.header_limit(static_cast<std::uint32_t>(settings.header_limit));
  parser.body_limit(settings.body_limit);
  boost::beast::error_code ec;
  if (!feed(parser, rest, ec, true))
    return false;
  if (!ec) {
    if (auto problem = framing_problem(parser.get())) {
      check_response(render_plain_error(
        make_failure(error_code::invalid_input, "malformed HTTP request: " + *problem), 11, false));
      return false;
    }
    auto length = parser.content_length();
    if (length && *length > settings.body_limit)
      ec = http::error::body_limit;
    else if (!feed(parser, rest, ec, false))
      return false;
  }
  if (ec == http::error::body_limit) {
    auto& req = parser.get();
    auto decision = route_oversized(req, make_context(req), settings.body_limit);
    check_decision(decision, req.version(), false);
    return false;
  }
  if (ec) {
    check_response(render_plain_error(
      make_failure(error_code::invalid_input, "malformed HTTP request: " + ec.message()), 11,
      false));
    return false;
  }
  auto req = parser.release();
  auto decision = route(req, make_context(req));
  check_decision(decision, req.version(), req.keep_alive());
  return req.keep_alive();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view rest{reinterpret_cast<const char*>(data), size};
  for (int i = 0; i < max_requests && !rest.empty(); ++i)
    if (!one_request(rest))
      break;
  return 0;
}
