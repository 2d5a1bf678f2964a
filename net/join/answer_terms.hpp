// What a join takes from the server's SDP answer besides its candidates: the ICE credentials,
// the DTLS fingerprint and role, and the SCTP port and message size (RFC 8839, 8122, 8841).
// A pure function over text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "net/join/dtls.hpp"

namespace netherscope::net::join {

struct answer_terms {
  std::string ice_ufrag;
  std::string ice_pwd;
  /// The a=fingerprint:sha-256 digest ("AB:CD:..."), empty when the answer has none.
  std::string fingerprint;
  /// a=setup:active (the usual answer) makes us the DTLS server; passive the client.
  dtls_role role = dtls_role::server;
  /// The raw a=setup value, for the report ("active", "passive", "actpass", or empty).
  std::string setup;
  std::uint16_t sctp_port = 5000;
  /// a=max-message-size; RFC 8841 says 64 KiB when absent.
  std::uint32_t max_message_size = 65536;
};

/// Reads the terms (first value of each attribute, session or media level); nullopt with why
/// when the answer lacks what a join needs (credentials, a sha-256 fingerprint, a usable
/// a=setup: "actpass" in an answer is refused, as RFC 5763 §5 forbids it).
std::optional<answer_terms> read_answer_terms(std::string_view sdp, std::string* why = nullptr);

} // namespace netherscope::net::join
