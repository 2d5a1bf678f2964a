// What the fake does after a client's connectivity check nominates its pair, as a BDS-like
// server (a=setup:active) does: DTLS as the client, SCTP over it, the two data channels the
// client opens acknowledged, and an answer to RequestNetworkSettings (PROTOCOL.md §6).
//
// Written apart from netherscope's own join (net/join) on purpose, with OpenSSL and usrsctp
// used directly: the fake stands for a server we did not write, so a misreading of the
// protocol must not hide on both sides of the tests.
#pragma once

#include "config.hpp"
#include "target_state.hpp"

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

// usrsctp's socket type, in the global namespace where usrsctp.h declares it.
struct socket;

namespace fake_target {

/// What the game layer answers (--game): NetworkSettings at --game-protocol, PlayStatus 1 to
/// an older client and 2 to a newer one; nothing; bytes that are no NetherNet message; no
/// DTLS at all (the fake before it had a game layer); DTLS but no SCTP; or SCTP with every
/// channel refused (the association aborted at the first DATA_CHANNEL_OPEN).
enum class game_mode { normal, silent, garbage, off, no_sctp, refuse_channels, alert };

/// Shared by every session: the mode, the protocol, and the DTLS certificate the answers'
/// a=fingerprint names.
struct game_settings {
  game_mode mode = game_mode::normal;
  std::int32_t protocol = 2193;
  std::string cert_pem;
  std::string key_pem;
};

/// One client's connection on a leased port.
class game_session {
 public:
  using send_fn = std::function<void(std::string_view datagram)>;

  /// peer_fingerprint: the offer's sha-256 a=fingerprint, which the client's certificate must
  /// match.
  game_session(const game_settings& settings, std::string peer_fingerprint, send_fn send,
               counters& stats);
  ~game_session();
  game_session(const game_session&) = delete;
  game_session& operator=(const game_session&) = delete;

  /// Sends the ClientHello; once only.
  void start();
  bool started() const { return started_; }
  /// A datagram from the client whose first byte is 20 to 63 (RFC 7983: DTLS).
  void on_datagram(std::string_view datagram);
  /// Retransmits a lost DTLS flight when its time has come; call every few milliseconds.
  void tick();

  /// For usrsctp's callbacks.
  void sctp_out(const void* data, std::size_t size);
  struct message {
    std::uint16_t stream = 0;
    std::uint32_t ppid = 0;
    std::string data;
  };
  void sctp_in(message m) { inbox_.push_back(std::move(m)); }

 private:
  void flush();
  void handshake();
  void start_sctp();
  void read_records();
  void serve_inbox();
  void send_message(std::uint16_t stream, std::uint32_t ppid, std::string_view data);
  void answer_game(std::uint16_t stream, const std::string& data);

  const game_settings& settings_;
  std::string peer_fingerprint_;
  send_fn send_;
  counters& stats_;
  struct tls;
  std::unique_ptr<tls> tls_;
  ::socket* sctp_ = nullptr;
  std::deque<message> inbox_;
  std::int32_t reliable_stream_ = -1;
  bool started_ = false;
  bool established_ = false;
  bool closed_ = false;
};

/// usrsctp without threads, once per process; its timers need usrsctp_timers() every 10 ms.
void init_sctp();
void sctp_timers(std::uint32_t elapsed_ms);

/// Whether a STUN Binding request carries USE-CANDIDATE (RFC 8445 §7.1.2): the client
/// nominates the pair, and a server then starts DTLS on it.
bool has_use_candidate(std::string_view datagram);

}  // namespace fake_target
