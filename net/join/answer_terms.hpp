// What a join takes from the server's SDP answer: the ICE credentials, the DTLS fingerprint
// and role, the SCTP port and message size (RFC 8839, 8122, 8841), and the candidates; and the
// join job made of them with our side's credentials and identity.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "net/join/dtls.hpp"
#include "net/join/job.hpp"
#include "net/nethernet/identity.hpp"

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

/// What a join job is made of besides the answer.
struct job_inputs {
  /// Our offer's ICE credentials.
  std::string local_ufrag;
  std::string local_pwd;
  /// Our DTLS certificate and key, whose fingerprint the offer carried.
  const nethernet::local_identity* identity = nullptr;
  std::int32_t protocol = 0;
  std::chrono::milliseconds timeout{5000};
  std::uint64_t tie_breaker = 0;
  /// Whether the join may send to this candidate address (the service's address policy).
  std::function<bool(const boost::asio::ip::address&)> allowed;
};

/// The join job of an answer: its terms, and its UDP candidates of component 1 whose address
/// is an IP literal the policy allows, the first max_pairs of them in the answer's order.
/// nullopt with why when the answer lacks its terms or the identity cannot be written.
std::optional<join_job> job_from_answer(std::string_view answer_sdp, const job_inputs& in,
                                        std::string* why = nullptr);

} // namespace netherscope::net::join
