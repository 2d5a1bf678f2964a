// The fake's answers to ICE connectivity checks (RFC 8445 §7.3) on the UDP ports its answers
// advertise. Written apart from netherscope's own STUN code (net/nethernet/stun) on purpose:
// the fake stands for a server we did not write, so one misreading of RFC 8489 must not hide
// on both sides of the tests.
#pragma once

#include "config.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace fake_target {

/// The ICE credentials of one answer: its ufrag and pwd.
struct ice_credentials {
  std::string ufrag;
  std::string pwd;
};

/// What to send back for a datagram that arrived on an answer's port from `from_address`
/// (4 or 16 raw bytes) and `from_port`: a Binding success for a Binding request whose
/// USERNAME starts with "<our ufrag>:" and whose MESSAGE-INTEGRITY verifies under our pwd,
/// with XOR-MAPPED-ADDRESS, MESSAGE-INTEGRITY (under our pwd, or another key in
/// wrong_integrity mode) and FINGERPRINT. Nothing for anything else, and nothing at all in
/// silent mode.
std::optional<std::string> answer_check(std::string_view datagram, const ice_credentials& ours,
                                        stun_mode mode, std::string_view from_address,
                                        std::uint16_t from_port);

}  // namespace fake_target
