// DTLS 1.2 over the join's ICE pair with OpenSSL 3, in either role, driven by the caller's
// datagrams: no socket here. Records go out as one datagram per write (a custom BIO, since a
// memory BIO would merge them), datagrams come in one at a time, and retransmissions follow
// DTLSv1_get_timeout. The peer's certificate is accepted only if its SHA-256 is the answer's
// a=fingerprint, and use_srtp is offered and accepted, which pion-based servers require
// (PROTOCOL.md "DTLS").
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <openssl/ssl.h>

namespace netherscope::net::join {

/// Which side of the handshake we are: the answer's a=setup:active makes us the server.
enum class dtls_role { server, client };

/// Where a session stands.
enum class dtls_state {
  handshaking,
  /// The handshake finished and the peer's fingerprint matched.
  connected,
  /// The peer's certificate is not the one the answer named: nothing more is sent.
  fingerprint_mismatch,
  /// An alert came or went, or the handshake failed otherwise.
  failed,
  /// The peer sent close_notify.
  closed,
};

/// What the handshake negotiated, for the report.
struct dtls_details {
  std::string cipher;
  std::string srtp_profile;
  bool fingerprint_verified = false;
  /// The alert that ended the handshake, by OpenSSL's long name ("insufficient security"),
  /// and whether the peer sent it.
  std::string alert;
  bool alert_from_peer = false;
};

/// One DTLS session.
class dtls_session {
public:
  /// Our certificate and key (PEM), the role, and the peer's expected fingerprint
  /// ("AB:CD:...", either case). nullopt from make() when OpenSSL refuses any of it.
  static std::unique_ptr<dtls_session> make(std::string_view certificate_pem,
                                            std::string_view key_pem, dtls_role role,
                                            std::string expected_fingerprint,
                                            std::string* why = nullptr);
  ~dtls_session();
  dtls_session(const dtls_session&) = delete;
  dtls_session& operator=(const dtls_session&) = delete;

  /// Starts the handshake (a client sends its ClientHello).
  void start();

  /// Takes one datagram from the peer. Application data it held is appended to `received`,
  /// one entry per record.
  void on_datagram(std::string_view datagram, std::vector<std::string>& received);

  /// Sends application data (one SCTP packet) as one record.
  bool send(std::string_view data);

  /// Sends close_notify.
  void close();

  /// Handles retransmission when its timer ran out; returns when to call it next.
  std::optional<std::chrono::steady_clock::time_point> on_timer(
    std::chrono::steady_clock::time_point now);

  /// The datagrams to send now, taken.
  std::vector<std::string> take_output();

  dtls_state state() const {
    return state_;
  }
  const dtls_details& details() const {
    return details_;
  }

  /// Internal: the custom BIO's sink, the verify callback's check and the info callback's
  /// record of the first alert.
  void push_output(std::string datagram);
  bool fingerprint_matches(X509* peer);
  void note_alert(const char* name, bool from_peer);

private:
  dtls_session() = default;
  void advance();

  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  BIO* in_ = nullptr;
  std::vector<std::string> output_;
  std::string expected_;
  bool mismatch_ = false;
  dtls_state state_ = dtls_state::handshaking;
  dtls_details details_;
};

} // namespace netherscope::net::join
