// The fake target's request handling as functions from a request to a reply plan. The
// session executes the plan; nothing here touches a socket.
#pragma once

#include "target_state.hpp"

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <chrono>
#include <functional>
#include <optional>

namespace fake_target {

namespace http = boost::beast::http;

using request = http::request<http::string_body>;
using response = http::response<http::string_body>;

/// How the session delivers a response.
enum class reply_kind {
  respond,         ///< write it (after `wait`)
  hang,            ///< write nothing; keep the socket until the client closes it
  drip,            ///< write the header, then one body byte every `wait`
  close_mid_body,  ///< write the header and the (short) body, then close the socket
};

/// A response plus the way it should go out.
struct reply_plan {
  reply_kind kind = reply_kind::respond;
  response res;
  std::chrono::milliseconds wait{0};
  /// Interim (1xx) responses, as raw bytes, written before anything else of this plan
  /// (--interim); empty for none.
  std::string interim{};
  /// When set, the reply is not known yet (the issuer's keys are being fetched again): the
  /// session calls it with a function that takes the real plan, which runs later on the same
  /// io_context, and ignores the rest of this plan.
  std::function<void(std::function<void(reply_plan)>)> deferred{};
};

/// The largest request body the fake reads, the 1 MiB limit of go-nethernet and Pumpkin.
constexpr std::uint64_t max_body_size = 1024 * 1024;

/// Decides what it can from the header alone, before any body is read: a bad network ID,
/// a POST without Content-Length (BDS does not read chunked bodies) or with one above
/// 1 MiB. Returns the response to send, or std::nullopt to go on and read the body.
std::optional<response> check_header(const request& header, std::optional<std::uint64_t> content_length,
                                     target_state& state);

/// The answer to a chunked body that outgrew max_body_size while it was being read.
response body_too_large(const request& header, target_state& state);

/// Handles a complete request and writes its event line.
reply_plan handle_request(const request& req, target_state& state);

}  // namespace fake_target
