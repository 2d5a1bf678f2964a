#include "game_session.hpp"

#include "crypto.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <usrsctp.h>

#include <arpa/inet.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace fake_target {

namespace {

constexpr std::uint16_t sctp_port = 5000;
constexpr std::uint32_t ppid_dcep = 50;
constexpr std::uint32_t ppid_binary = 53;
constexpr std::uint32_t ppid_binary_partial = 52;

int conn_output(void* address, void* buffer, std::size_t length, std::uint8_t, std::uint8_t) {
  static_cast<game_session*>(address)->sctp_out(buffer, length);
  return 0;
}

int on_receive(struct socket*, union sctp_sockstore, void* data, std::size_t length,
               struct sctp_rcvinfo info, int flags, void* ulp) {
  if (data == nullptr) return 1;
  if ((flags & MSG_NOTIFICATION) == 0) {
    game_session::message m;
    m.stream = info.rcv_sid;
    m.ppid = ntohl(info.rcv_ppid);
    m.data.assign(static_cast<const char*>(data), length);
    static_cast<game_session*>(ulp)->sctp_in(std::move(m));
  }
  std::free(data);
  return 1;
}

/// The certificate's fingerprint as the answers write theirs (crypto.hpp).
std::string fingerprint_of(X509* cert) {
  unsigned char* der = nullptr;
  const int size = i2d_X509(cert, &der);
  if (size <= 0) return {};
  auto out = sha256_fingerprint(std::string_view(reinterpret_cast<const char*>(der), static_cast<std::size_t>(size)));
  OPENSSL_free(der);
  return out;
}

std::string upper(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

/// The client checks our certificate against our answer; we check its against its offer,
/// after the handshake (a self-signed chain is all WebRTC has).
int accept_any(int, X509_STORE_CTX*) { return 1; }

/// A server that will not take the client's certificate: OpenSSL ends the handshake with a
/// fatal unknown_ca alert, which the joining client hears from its peer.
int reject_all(int, X509_STORE_CTX*) { return 0; }

/// One unsigned LEB128 number at pos, or false.
bool read_varuint(const std::string& s, std::size_t& pos, std::uint32_t& out) {
  out = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (pos >= s.size()) return false;
    const auto b = static_cast<unsigned char>(s[pos++]);
    out |= static_cast<std::uint32_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

/// One packet as a whole NetherNet message: no segments to follow, then a one-packet batch.
std::string whole_message(const std::string& packet) {
  std::string out(1, '\0');
  auto n = static_cast<std::uint32_t>(packet.size());
  do {
    auto b = static_cast<unsigned char>(n & 0x7f);
    n >>= 7;
    if (n) b |= 0x80;
    out += static_cast<char>(b);
  } while (n);
  return out + packet;
}

std::string network_settings() {
  // id 143, threshold 1 (u16le), zlib (u16le 0), throttle off, threshold 0, scalar 0.0f.
  return whole_message(std::string("\x8f\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00", 12));
}

std::string play_status(std::int32_t status) {
  std::string p(1, '\x02');
  for (int shift = 24; shift >= 0; shift -= 8) p += static_cast<char>((status >> shift) & 0xff);
  return whole_message(p);
}

}  // namespace

struct game_session::tls {
  SSL_CTX* ctx = nullptr;
  SSL* ssl = nullptr;
  BIO* in = nullptr;
  BIO* out = nullptr;
  ~tls() {
    if (ssl) SSL_free(ssl);  // frees both BIOs
    if (ctx) SSL_CTX_free(ctx);
  }
};

void init_sctp() {
  static std::once_flag once;
  std::call_once(once, [] {
    usrsctp_init_nothreads(0, &conn_output, nullptr);
    usrsctp_sysctl_set_sctp_ecn_enable(0);
  });
}

void sctp_timers(std::uint32_t elapsed_ms) {
  usrsctp_handle_timers(elapsed_ms);
}

bool has_use_candidate(std::string_view d) {
  if (d.size() < 20 || d[0] != 0x00 || d[1] != 0x01) return false;
  std::size_t pos = 20;
  while (pos + 4 <= d.size()) {
    const auto type = static_cast<unsigned>(static_cast<unsigned char>(d[pos]) << 8 | static_cast<unsigned char>(d[pos + 1]));
    const auto length = static_cast<std::size_t>(static_cast<unsigned char>(d[pos + 2]) << 8 | static_cast<unsigned char>(d[pos + 3]));
    if (type == 0x0025) return true;
    pos += 4 + ((length + 3) & ~std::size_t{3});
  }
  return false;
}

game_session::game_session(const game_settings& settings, std::string peer_fingerprint, send_fn send,
                           counters& stats)
    : settings_(settings), peer_fingerprint_(upper(std::move(peer_fingerprint))), send_(std::move(send)),
      stats_(stats), tls_(std::make_unique<tls>()) {}

game_session::~game_session() {
  if (sctp_) {
    usrsctp_close(sctp_);
    usrsctp_deregister_address(this);
  }
}

void game_session::start() {
  if (started_ || settings_.mode == game_mode::off) return;
  started_ = true;
  ++stats_.joins_started;
  auto& t = *tls_;
  t.ctx = SSL_CTX_new(DTLS_client_method());
  if (!t.ctx) return;
  BIO* cert_bio = BIO_new_mem_buf(settings_.cert_pem.data(), static_cast<int>(settings_.cert_pem.size()));
  X509* cert = PEM_read_bio_X509(cert_bio, nullptr, nullptr, nullptr);
  BIO_free(cert_bio);
  BIO* key_bio = BIO_new_mem_buf(settings_.key_pem.data(), static_cast<int>(settings_.key_pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio, nullptr, nullptr, nullptr);
  BIO_free(key_bio);
  const bool loaded = cert && key && SSL_CTX_use_certificate(t.ctx, cert) == 1
                      && SSL_CTX_use_PrivateKey(t.ctx, key) == 1;
  X509_free(cert);
  EVP_PKEY_free(key);
  if (!loaded) return;
  SSL_CTX_set_verify(t.ctx, SSL_VERIFY_PEER,
                     settings_.mode == game_mode::alert ? reject_all : accept_any);
  // As libwebrtc (BDS) and pion do: SRTP profiles offered, though no media ever flows.
  SSL_CTX_set_tlsext_use_srtp(t.ctx, "SRTP_AES128_CM_SHA1_80");
  SSL_CTX_set_options(t.ctx, SSL_OP_NO_QUERY_MTU);
  t.ssl = SSL_new(t.ctx);
  t.in = BIO_new(BIO_s_mem());
  t.out = BIO_new(BIO_s_mem());
  BIO_set_mem_eof_return(t.in, -1);
  SSL_set_bio(t.ssl, t.in, t.out);
  SSL_set_mtu(t.ssl, 1200);
  SSL_set_connect_state(t.ssl);
  handshake();
}

void game_session::flush() {
  auto& t = *tls_;
  if (!t.out) return;
  while (BIO_ctrl_pending(t.out) > 0) {
    std::string datagram(BIO_ctrl_pending(t.out), '\0');
    const int n = BIO_read(t.out, datagram.data(), static_cast<int>(datagram.size()));
    if (n <= 0) break;
    datagram.resize(static_cast<std::size_t>(n));
    send_(datagram);
  }
}

void game_session::handshake() {
  auto& t = *tls_;
  const int r = SSL_do_handshake(t.ssl);
  flush();
  if (r != 1) {
    const int e = SSL_get_error(t.ssl, r);
    if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
      ++stats_.dtls_failures;
      closed_ = true;
    }
    ERR_clear_error();
    return;
  }
  X509* peer = SSL_get1_peer_certificate(t.ssl);
  const auto seen = peer ? fingerprint_of(peer) : std::string{};
  X509_free(peer);
  if (seen.empty() || seen != peer_fingerprint_) {
    // Not the certificate the offer named: end it, as a WebRTC stack does.
    ++stats_.dtls_failures;
    SSL_shutdown(t.ssl);
    flush();
    closed_ = true;
    return;
  }
  established_ = true;
  ++stats_.dtls_established;
  // pion-based servers abort without it (alert 71); count what was agreed, for tests to see.
  if (SSL_get_selected_srtp_profile(t.ssl) != nullptr)
    ++stats_.dtls_srtp;
  if (settings_.mode != game_mode::no_sctp)
    start_sctp();
}

void game_session::start_sctp() {
  init_sctp();
  usrsctp_register_address(this);
  sctp_ = usrsctp_socket(AF_CONN, SOCK_STREAM, IPPROTO_SCTP, &on_receive, nullptr, 0, this);
  if (!sctp_) {
    usrsctp_deregister_address(this);
    closed_ = true;
    return;
  }
  usrsctp_set_non_blocking(sctp_, 1);
  const int on = 1;
  usrsctp_setsockopt(sctp_, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof on);
  usrsctp_setsockopt(sctp_, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof on);
  struct linger no_linger{1, 0};
  usrsctp_setsockopt(sctp_, SOL_SOCKET, SO_LINGER, &no_linger, sizeof no_linger);
  struct sctp_initmsg init{};
  init.sinit_num_ostreams = 1024;
  init.sinit_max_instreams = 1024;
  usrsctp_setsockopt(sctp_, IPPROTO_SCTP, SCTP_INITMSG, &init, sizeof init);
  struct sockaddr_conn local{};
  local.sconn_family = AF_CONN;
  local.sconn_port = htons(sctp_port);
  local.sconn_addr = this;
  usrsctp_bind(sctp_, reinterpret_cast<struct sockaddr*>(&local), sizeof local);
  struct sockaddr_conn remote = local;
  usrsctp_connect(sctp_, reinterpret_cast<struct sockaddr*>(&remote), sizeof remote);
  serve_inbox();
}

void game_session::sctp_out(const void* data, std::size_t size) {
  if (closed_ || !tls_->ssl) return;
  SSL_write(tls_->ssl, data, static_cast<int>(size));
  flush();
}

void game_session::on_datagram(std::string_view datagram) {
  if (!started_ || closed_) return;
  auto& t = *tls_;
  BIO_write(t.in, datagram.data(), static_cast<int>(datagram.size()));
  if (!established_) {
    handshake();
    if (!established_) return;
  }
  read_records();
  serve_inbox();
}

void game_session::read_records() {
  auto& t = *tls_;
  char buffer[65536];
  for (;;) {
    const int n = SSL_read(t.ssl, buffer, sizeof buffer);
    if (n <= 0) {
      if (SSL_get_error(t.ssl, n) == SSL_ERROR_ZERO_RETURN) closed_ = true;
      ERR_clear_error();
      flush();
      return;
    }
    if (sctp_) usrsctp_conninput(this, buffer, static_cast<std::size_t>(n), 0);
  }
}

void game_session::send_message(std::uint16_t stream, std::uint32_t ppid, std::string_view data) {
  struct sctp_sndinfo info{};
  info.snd_sid = stream;
  info.snd_ppid = htonl(ppid);
  info.snd_flags = SCTP_EOR;
  usrsctp_sendv(sctp_, data.data(), data.size(), nullptr, 0, &info, sizeof info, SCTP_SENDV_SNDINFO, 0);
}

// Replies are sent once usrsctp has returned from the input that delivered the message.
void game_session::serve_inbox() {
  while (!inbox_.empty() && !closed_) {
    auto m = std::move(inbox_.front());
    inbox_.pop_front();
    if (m.ppid == ppid_dcep) {
      // DATA_CHANNEL_OPEN (RFC 8832 §5.1): acknowledged on its stream; the label names the
      // reliable channel, where the game's packets come.
      if (m.data.size() < 12 || m.data[0] != 0x03) continue;
      if (settings_.mode == game_mode::refuse_channels) {
        // As go-nethernet does with a channel it does not accept: the connection ends.
        struct linger abort_now{1, 0};
        usrsctp_setsockopt(sctp_, SOL_SOCKET, SO_LINGER, &abort_now, sizeof abort_now);
        usrsctp_close(sctp_);
        usrsctp_deregister_address(this);
        sctp_ = nullptr;
        closed_ = true;
        return;
      }
      const auto label_length = static_cast<std::size_t>(static_cast<unsigned char>(m.data[8]) << 8
                                                         | static_cast<unsigned char>(m.data[9]));
      if (m.data.size() >= 12 + label_length && m.data.compare(12, label_length, "ReliableDataChannel") == 0)
        reliable_stream_ = m.stream;
      ++stats_.channels_opened;
      send_message(m.stream, ppid_dcep, std::string_view("\x02", 1));
      continue;
    }
    if ((m.ppid == ppid_binary || m.ppid == ppid_binary_partial) && m.stream == reliable_stream_)
      answer_game(m.stream, m.data);
  }
}

void game_session::answer_game(std::uint16_t stream, const std::string& data) {
  // [0: no more segments][varuint length][varuint packet id 193][i32 BE protocol]
  std::size_t pos = 1;
  std::uint32_t length = 0;
  std::uint32_t id = 0;
  if (data.empty() || data[0] != 0 || !read_varuint(data, pos, length) || !read_varuint(data, pos, id)
      || (id & 0x3ff) != 193 || pos + 4 > data.size())
    return;
  std::int32_t protocol = 0;
  for (int i = 0; i < 4; ++i)
    protocol = static_cast<std::int32_t>(static_cast<std::uint32_t>(protocol) << 8
                                         | static_cast<unsigned char>(data[pos + i]));
  ++stats_.game_requests;
  switch (settings_.mode) {
    case game_mode::silent:
    case game_mode::off:
    case game_mode::no_sctp:
    case game_mode::refuse_channels:
    case game_mode::alert:
      return;
    case game_mode::garbage:
      send_message(stream, ppid_binary, std::string_view("\x00\xff\xff\xff\xff\xff\x7f", 7));
      return;
    case game_mode::normal:
      break;
  }
  if (protocol < settings_.protocol)
    send_message(stream, ppid_binary, play_status(1));
  else if (protocol > settings_.protocol)
    send_message(stream, ppid_binary, play_status(2));
  else
    send_message(stream, ppid_binary, network_settings());
}

void game_session::tick() {
  if (!started_ || established_ || closed_ || !tls_->ssl) return;
  if (DTLSv1_handle_timeout(tls_->ssl) > 0) flush();
}

}  // namespace fake_target
