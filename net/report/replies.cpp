#include "net/report/replies.hpp"

#include "net/api/api_json.hpp"
#include "net/report/bodies.hpp"
#include "net/report/certificate.hpp"
#include "net/nethernet/sdp_answer.hpp"

namespace netherscope {

namespace {

constexpr std::string_view go_nethernet_prefix = "Negotiation failed with error code: ";

bool is_success(std::uint16_t status) {
  return status >= 200 && status <= 299;
}

} // namespace

info_reply make_info_reply(net::fetch_result&& fetched) {
  info_reply reply;
  reply.tls = fetched.tls;
  reply.status = fetched.status;
  if (!fetched.error.ok()) {
    reply.error = std::move(fetched.error);
    return reply;
  }
  if (!is_success(fetched.status)) {
    reply.error.code = error_code::upstream_status;
    reply.error.http_status = fetched.status;
    reply.error.body = std::move(fetched.body);
    return reply;
  }
  reply.body = net::render_info(fetched.status, fetched.tls, fetched.body);
  reply.body = net::with_certificate(std::move(reply.body), fetched.certificate);
  return reply;
}

std::optional<std::int64_t> nethernet_code_in(std::string_view body) {
  std::int64_t code = 0;
  if (net::classify_answer(body, &code) == net::answer_kind::error_code)
    return code;
  // go-nethernet and dragonfly wrap the code in a sentence (PROTOCOL.md §4.4).
  while (!body.empty() && (body.back() == '\n' || body.back() == '\r' || body.back() == ' '))
    body.remove_suffix(1);
  if (body.substr(0, go_nethernet_prefix.size()) == go_nethernet_prefix
      && net::classify_answer(body.substr(go_nethernet_prefix.size()), &code)
           == net::answer_kind::error_code)
    return code;
  return std::nullopt;
}

offer_reply make_offer_reply(net::fetch_result&& fetched, std::string_view network_id) {
  offer_reply reply;
  if (!fetched.error.ok()) {
    reply.error = std::move(fetched.error);
    return reply;
  }
  auto kind = net::classify_answer(fetched.body);
  if (is_success(fetched.status) && kind == net::answer_kind::sdp) {
    auto parsed = net::parse_answer(fetched.body);
    reply.body = net::render_offer(fetched.body, parsed, fetched.tls, network_id);
    reply.body = net::with_certificate(std::move(reply.body), fetched.certificate);
    return reply;
  }
  auto code = nethernet_code_in(fetched.body);
  if (code || !is_success(fetched.status)) {
    reply.error.code = error_code::upstream_status;
    reply.error.http_status = fetched.status;
    reply.error.body = std::move(fetched.body);
    if (code && *code <= INT32_MAX) {
      reply.error.nethernet_error = static_cast<std::int32_t>(*code);
      reply.error.reason = std::string{net::nethernet_error_name(*code)};
    }
    return reply;
  }
  reply.error = make_failure(error_code::upstream_failure,
                             "the target answered " + std::to_string(fetched.status)
                               + " with neither SDP nor a NetherNet error code: "
                               + net::valid_utf8(fetched.body, 200));
  return reply;
}

} // namespace netherscope
