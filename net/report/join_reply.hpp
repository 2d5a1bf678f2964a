// The body of POST /api/join (docs/API.md "POST /api/join"): one player's join as an object,
// from the worker's report or from how signalling ended, and the reply of one or two players.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "core/failure.hpp"
#include "core/join_request.hpp"
#include "net/join/job.hpp"
#include "core/clients.hpp"

namespace netherscope::net::report {

/// What a player's join object says besides the worker's report.
struct join_context {
  core::join_order order;
  /// How long the offer took to be answered.
  double signalling_ms = -1;
  /// The join's own offer result, the body /api/offer would give (null when it failed).
  boost::json::value offer;
  /// The error body /api/offer would give (null when the offer was answered).
  boost::json::value offer_error;
  /// The linked Xbox account's gamertag the offer was signed as; empty for self-signed.
  std::string offered_as;
};

/// One player's join order after the server's status: the protocol asked for (0 for the
/// server's own, as its GET /v1/join names it, else the newest the service knows) and what
/// the status said of the server.
core::join_order join_order_for(const core::transports_seen& seen, std::int32_t asked,
                               std::string network_id);

/// The outcome code of an offer that got no usable answer: auth_required or not_allowed (an
/// online-mode refusal, as GET /api/check names it, not_allowed when we were signed in),
/// offer_refused, offer_timeout, offer_unreachable or offer_unreadable.
std::string_view signalling_outcome(const core::failure& offer_error, bool signed_in);

/// The join object of a join that ended before the worker ran: stage and outcome as given,
/// with the outcome's sentence as the reason and detail after it when not empty.
core::join_result unjoined(std::string_view stage, std::string_view outcome, std::string detail,
                          const join_context& context);

/// The join object of the worker's report.
core::join_result describe_join(const join::join_report& report, const join_context& context);

/// One of a join object's timings ("signallingMs", "totalMs", ...), when it has that one as a
/// number.
std::optional<double> join_timing_ms(const boost::json::object& join, std::string_view name);

/// "enough" when both players joined, "one_port" when one did and the other could not while
/// it held its port, null when neither did.
boost::json::value port_pool(const core::join_result& first, const core::join_result& second);

/// The reply of POST /api/join: {ok: true, ...first}, and with a second player "second" (its
/// join object) and "portPool".
std::string render_join(const core::join_result& first, const core::join_result* second);

} // namespace netherscope::net::report
