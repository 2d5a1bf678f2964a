// The fake NetherNet target's configuration, as parsed from the command line.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fake_target {

/// How the listening port speaks: plain HTTP, TLS only, plain HTTP that answers a
/// TLS ClientHello with a handshake_failure alert the way BDS reportedly does, or plain HTTP
/// that never answers a ClientHello at all (the connection stays open until the client
/// gives up).
enum class tls_mode { off, on, bds, silent };

/// Which certificate --tls on presents: a good self-signed one, one that expired, one for
/// another name, or one signed by a CA the fake keeps to itself.
enum class cert_kind { good, expired, wrong_name, unknown_issuer };

/// What the body of a successful GET /v1/join looks like.
enum class body_mode { json, empty, text };

/// Misbehaviour applied to GET /v1/join only. control_bytes answers with a body of control
/// bytes, each of which a JSON writer must escape in six characters.
enum class status_fault { none, delay, hang, drip, oversize, close_mid_body, redirect, control_bytes };

/// Misbehaviour applied to POST /v1/join/{id} once the offer has been counted. control_answer
/// is a valid answer padded with a line of control bytes; control_error a 400 whose body is
/// control bytes.
enum class offer_fault { none, hang, close_mid_body, oversize, control_answer, control_error };

/// Whether an offer's a=identity line must be present, is checked when present, or is ignored.
/// strict is required plus Pumpkin's typed parse of the token: its cpk must be a string (base64
/// DER SubjectPublicKeyInfo), and a JWK object is refused.
enum class identity_policy { required, optional, ignore, strict };

/// How the UDP port of an answered offer answers ICE connectivity checks: with a Binding
/// success (as a server whose firewall lets players in), not at all (a closed firewall), or
/// with a success whose MESSAGE-INTEGRITY uses the wrong key (something else on the port).
enum class stun_mode { answer, silent, wrong_integrity };

/// Which server implementation's answer and error shapes to imitate.
enum class server_style { bds, go, pumpkin };

/// How the answer's self-signed token writes its `cpk` claim.
enum class cpk_form { jwk, der };

/// Whether the server admits only players signed in to Xbox Live (online mode). Without
/// --xbox-issuer every online-mode offer is refused; with it, offers are admitted whose
/// GameServerToken verifies against that issuer's keys.
enum class auth_mode { offline, online };

/// The shape of an online-mode refusal (PROTOCOL.md, "Refusals of an anonymous offer"): BDS's
/// bare 37, go-nethernet's 400 sentence, Pumpkin's 400 texts, or a 401 (crustaceans, gateway).
/// automatic follows --style.
enum class auth_style { automatic, bds, go_nethernet, pumpkin, http401 };

/// Whether the fake answers RakNet's unconnected ping on UDP: not at all (no UDP socket on the
/// port), on the TCP port's number beside NetherNet, or only RakNet (nothing listens on the
/// TCP port; the stats move to a port of their own).
enum class raknet_mode { off, on, only };

/// Whose status string the pong carries (PROTOCOL.md, "RakNet status").
enum class raknet_style { bds, bds_trailer, geyser, pocketmine, nukkit, pumpkin };

/// A hostile pong: silence, a wrong magic, a time that is not ours, a reply from another port,
/// a datagram past 1,500 bytes, a 1,400-byte string, invalid UTF-8, fewer than 6 fields, id 0x19,
/// a length past the end, no length prefix.
enum class raknet_fault {
  none,
  silent,
  wrong_magic,
  no_echo,
  other_port,
  oversize,
  long_string,
  bad_utf8,
  truncated,
  incompatible,
  length_past_end,
  no_length,
};

/// An inclusive UDP port range; an empty optional means "let the OS pick, unlimited".
struct port_range {
  std::uint16_t first = 0;
  std::uint16_t last = 0;
};

/// Every knob of the fake target, with the defaults documented in README.md.
struct config {
  std::string bind = "127.0.0.1";
  std::uint16_t port = 0;
  /// How many consecutive ports from `port` serve the same fake server, so that one process
  /// stands for many watched servers (tools/bench/watch_scale.sh).
  std::uint16_t port_count = 1;
  tls_mode tls = tls_mode::off;
  cert_kind cert = cert_kind::good;
  std::string cert_out;

  unsigned status_code = 200;
  body_mode body = body_mode::json;
  std::string info_json;
  std::string text = "not json";
  status_fault fault = status_fault::none;
  std::chrono::milliseconds delay{2000};
  std::size_t oversize_bytes = 70000;
  std::string redirect_to = "http://127.0.0.1:1/v1/join";
  /// Interim (1xx) statuses sent, in order, before the final response to GET /v1/join and
  /// POST /v1/join/{id}.
  std::vector<unsigned> interim;

  identity_policy identity = identity_policy::required;
  server_style style = server_style::bds;
  cpk_form answer_cpk = cpk_form::jwk;
  unsigned error_status = 200;
  std::optional<port_range> udp_ports;
  std::chrono::milliseconds port_hold{30000};
  std::vector<std::string> extra_candidates;
  std::chrono::milliseconds answer_delay{0};
  offer_fault post_fault = offer_fault::none;
  /// A NetherNet error code every valid offer is refused with, in the style's shape; -1: none.
  /// It stands for a server that checks what the fake cannot (an Xbox token in online mode).
  int reject_offers = -1;
  stun_mode stun = stun_mode::answer;
  /// What follows a nominating check (--game): DTLS, SCTP, the channels and the game's answer
  /// at game_protocol, or silence, garbage, or no DTLS at all (off).
  std::string game = "normal";
  std::int32_t game_protocol = 2193;
  /// The address the answer's candidate names instead of the bind address (a server in a
  /// container advertising its internal address); empty: the bind address.
  std::string candidate_address;

  auth_mode auth = auth_mode::offline;
  /// The online-mode refusal's shape, never automatic once parsed.
  auth_style auth_shape = auth_style::bds;
  /// --xbox-issuer: the issuer's base URL (http, loopback, no trailing slash) whose keys verify
  /// GameServerTokens in online mode; empty: online mode refuses every offer.
  std::string xbox_issuer;
  /// --allowlist: the gamertags admitted in verified online mode, lowercased; empty: everyone.
  std::vector<std::string> allowlist;

  raknet_mode raknet = raknet_mode::off;
  raknet_style pong_style = raknet_style::bds;
  raknet_fault pong_fault = raknet_fault::none;
};

/// The name a mode is written with on the command line and in the "listening" event.
const char* to_string(tls_mode mode);

/// The name a RakNet mode is written with on the command line and in the "listening" event.
const char* to_string(raknet_mode mode);

/// Parses argv into `out`. Returns std::nullopt to go on running, or the exit code to stop
/// with (0 after --help, 2 after a usage error, whose message is already on stderr).
std::optional<int> parse_command_line(int argc, char** argv, config& out);

}  // namespace fake_target
