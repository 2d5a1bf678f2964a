#include "net/report/replies.hpp"

#include "core/api_json.hpp"
#include "net/report/bodies.hpp"
#include "base/text.hpp"
#include "net/nethernet/identity_check.hpp"
#include "net/report/certificate.hpp"
#include "net/nethernet/sdp_answer.hpp"

namespace netherscope::net::report {

namespace {

/// ASCII whitespace around a body.

constexpr std::string_view go_nethernet_prefix = "Negotiation failed with error code: ";

bool is_success(std::uint16_t status) {
  return status >= 200 && status <= 299;
}

} // namespace

core::info_reply make_info_reply(net::upstream::fetch_result&& fetched) {
  core::info_reply reply;
  reply.tls = fetched.tls;
  reply.status = fetched.status;
  if (!fetched.error.ok()) {
    reply.error = std::move(fetched.error);
    return reply;
  }
  if (!is_success(fetched.status)) {
    reply.error.code = core::error_code::upstream_status;
    reply.error.http_status = fetched.status;
    reply.error.body = core::keep_quotable(std::move(fetched.body));
    return reply;
  }
  reply.body = net::report::render_info(fetched.status, fetched.tls, fetched.body);
  reply.body = net::report::with_certificate(std::move(reply.body), fetched.certificate);
  return reply;
}

std::optional<std::int64_t> nethernet_code_in(std::string_view body) {
  std::int64_t code = 0;
  if (net::nethernet::classify_answer(body, &code) == net::nethernet::answer_kind::error_code)
    return code;
  // go-nethernet and dragonfly wrap the code in a sentence (PROTOCOL.md §4.4).
  while (!body.empty() && (body.back() == '\n' || body.back() == '\r' || body.back() == ' '))
    body.remove_suffix(1);
  if (body.substr(0, go_nethernet_prefix.size()) == go_nethernet_prefix
      && net::nethernet::classify_answer(body.substr(go_nethernet_prefix.size()), &code)
           == net::nethernet::answer_kind::error_code)
    return code;
  return std::nullopt;
}

core::offer_reply make_offer_reply(net::upstream::fetch_result&& fetched, const net::report::offer_context& context,
                             net::nethernet::identity_check* identity_out) {
  core::offer_reply reply;
  if (!fetched.error.ok()) {
    reply.error = std::move(fetched.error);
    return reply;
  }
  auto kind = net::nethernet::classify_answer(fetched.body);
  const auto status = std::to_string(fetched.status);
  if (is_success(fetched.status) && kind == net::nethernet::answer_kind::sdp) {
    auto parsed = net::nethernet::parse_answer(fetched.body);
    if (!parsed.valid()) {
      reply.error = core::make_failure(core::error_code::upstream_invalid_answer,
                                 "the target answered " + status
                                   + " with an SDP answer that is not valid: " + parsed.problem);
      return reply;
    }
    auto identity = net::nethernet::verify_sdp_identity(fetched.body, context.now_unix);
    reply.body = net::report::render_offer(fetched.body, parsed, identity, fetched.tls, context);
    reply.body = net::report::with_certificate(std::move(reply.body), fetched.certificate);
    if (identity_out)
      *identity_out = std::move(identity);
    return reply;
  }
  auto code = nethernet_code_in(fetched.body);
  if (code || !is_success(fetched.status)) {
    reply.error.code = core::error_code::upstream_status;
    reply.error.http_status = fetched.status;
    reply.error.body = core::keep_quotable(std::move(fetched.body));
    if (code && *code <= INT32_MAX) {
      reply.error.nethernet_error = static_cast<std::int32_t>(*code);
      reply.error.reason = std::string{net::nethernet::nethernet_error_name(*code)};
    }
    return reply;
  }
  auto shown = base::trim(fetched.body, base::ascii_whitespace);
  if (shown.empty()) {
    reply.error = core::make_failure(core::error_code::upstream_invalid_answer,
                               "the target answered " + status
                                 + " with an empty body instead of an SDP answer");
    return reply;
  }
  auto quoted = core::fit_for_json(shown, 200);
  reply.error = core::make_failure(core::error_code::upstream_invalid_answer,
                             "the target answered " + status
                               + " with a body that is neither an SDP answer (it does not begin "
                                 "with v=0) nor a NetherNet error code; it begins \""
                               + quoted.text + (quoted.truncated ? "...\"" : "\""));
  return reply;
}

} // namespace netherscope::net::report
