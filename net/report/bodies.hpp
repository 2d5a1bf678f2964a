// The JSON bodies of a probe's successful replies (SPEC 2.1 and 2.2), rendered once where the
// result is made, so a cached reply is served as stored.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "net/nethernet/sdp_answer.hpp"

namespace netherscope::net {

/// Renders SPEC 2.1 {ok, status, tls, info}: info is the target's body when it is a JSON
/// object, else null (an empty body is normal: BDS with LAN visibility off, go-nethernet).
std::string render_info(std::uint16_t status, bool tls, std::string_view target_body);

/// Renders SPEC 2.2 for a 2xx SDP answer: {ok, answer, candidates, answerFingerprint, iceUfrag,
/// exhausted, networkId, tls, warnings}. Candidates whose address is not public unicast get
/// "publicAddress": false and a warning: players on the Internet cannot reach them.
std::string render_offer(std::string_view answer, const parsed_answer& parsed, bool tls,
                         std::string_view network_id);

} // namespace netherscope::net
