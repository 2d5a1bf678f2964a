// Pure functions that turn what a target answered into the API's replies.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/results.hpp"
#include "net/report/bodies.hpp"
#include "net/upstream/http_client.hpp"

namespace netherscope::net::report {

/// GET /v1/join: a 2xx is success whatever the body; anything else is upstream_status, and
/// redirects are reported, never followed.
core::info_reply make_info_reply(net::upstream::fetch_result&& fetched);

/// POST /v1/join/{id}: a 2xx valid SDP answer is success, its identity checked at
/// context.now_unix; a NetherNet error code (bare, or in go-nethernet's "Negotiation failed with
/// error code: N") is upstream_status with its name; any other non-2xx is upstream_status; a
/// 2xx that is not a valid SDP answer (empty, not SDP, or SDP lacking a part a client needs) is
/// upstream_invalid_answer, its message naming what is wrong. When identity_out is given, a
/// valid answer's identity check is stored there, so the caller need not check it again.
core::offer_reply make_offer_reply(net::upstream::fetch_result&& fetched, const net::report::offer_context& context,
                             net::nethernet::identity_check* identity_out = nullptr);

/// The NetherNet error code a rejection body carries, if any.
std::optional<std::int64_t> nethernet_code_in(std::string_view body);

} // namespace netherscope::net::report
