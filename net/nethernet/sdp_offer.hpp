// The SDP offer we send in POST /v1/join/{networkId}: a complete libwebrtc-like data-channel
// offer carrying our DTLS fingerprint and a session-level a=identity line (PROTOCOL.md §2.2,
// §3.2, §4.2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "net/nethernet/identity.hpp"
#include "net/nethernet/identity_attributes.hpp"

namespace netherscope::net::nethernet {

/// Everything that varies between two offers.
struct offer_parameters {
  /// The o= line's session id (random, below 2^62).
  std::uint64_t session_id = 0;
  /// ICE username fragment: 4 ice-chars, as libwebrtc makes it.
  std::string ice_ufrag;
  /// ICE password: 24 ice-chars, as libwebrtc makes it.
  std::string ice_pwd;
  /// Our certificate's SHA-256 digest, "AB:CD:..." (without the "sha-256 " prefix).
  std::string fingerprint;
  /// The value after "a=identity:".
  std::string identity;
  /// Candidate attribute values without "a=" ("candidate:..."); usually empty.
  std::vector<std::string> candidates;
};

/// Fresh offer parameters for our identity: random ufrag, pwd and session id (RAND_bytes) and
/// an identity attribute over our fingerprint: self-signed and valid from now_unix, or, with
/// signed_in, carrying a signed-in player's GameServerToken; nullopt when OpenSSL fails. With
/// kept, the attribute is the one kept there while it is good (identity_attributes.hpp), and
/// signed anew only otherwise.
std::optional<offer_parameters> make_offer_parameters(const local_identity& id,
                                                      std::int64_t now_unix,
                                                      const signed_in_identity* signed_in
                                                      = nullptr,
                                                      identity_attributes* kept = nullptr);

/// The offer text, CRLF line ends, in libwebrtc's layout; a=end-of-candidates comes last, and
/// only when the offer has candidates.
std::string build_offer(const offer_parameters& p);

} // namespace netherscope::net::nethernet
