#include "net/join/dtls.hpp"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <string>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/srtp.h>
#include <openssl/x509.h>

#include "net/nethernet/identity.hpp"

namespace netherscope::net::join {

namespace {

/// The MTU the records are cut to: below IPv6's 1280 with room for the UDP and IP headers,
/// as libdatachannel does.
constexpr long record_mtu = 1200;

/// The profile offered; no SRTP is ever sent, but pion-based servers refuse a handshake that
/// does not negotiate one (alert 71).
constexpr const char* srtp_profiles = "SRTP_AES128_CM_SHA1_80:SRTP_AEAD_AES_128_GCM";

int out_write(BIO* b, const char* data, int len) {
  if (len <= 0)
    return 0;
  static_cast<dtls_session*>(BIO_get_data(b))->push_output(std::string(data, static_cast<std::size_t>(len)));
  return len;
}

long out_ctrl(BIO*, int cmd, long, void*) {
  switch (cmd) {
    case BIO_CTRL_FLUSH:
      return 1;
    case BIO_CTRL_DGRAM_QUERY_MTU:
    case BIO_CTRL_WPENDING:
    case BIO_CTRL_PENDING:
    default:
      return 0;
  }
}

int out_create(BIO* b) {
  BIO_set_init(b, 1);
  return 1;
}

/// The method of the BIO that hands each record to the session as one datagram; made once and
/// kept for the life of the process, as OpenSSL's own methods are.
const BIO_METHOD* out_method() {
  static BIO_METHOD* method = [] {
    auto* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "netherscope datagrams");
    BIO_meth_set_write(m, out_write);
    BIO_meth_set_ctrl(m, out_ctrl);
    BIO_meth_set_create(m, out_create);
    return m;
  }();
  return method;
}

int verify_peer(X509_STORE_CTX* store, void*) {
  auto* ssl = static_cast<SSL*>(
    X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()));
  auto* session = ssl != nullptr ? static_cast<dtls_session*>(SSL_get_app_data(ssl)) : nullptr;
  return session != nullptr && session->fingerprint_matches(X509_STORE_CTX_get0_cert(store)) ? 1
                                                                                              : 0;
}

void on_info(const SSL* ssl, int where, int ret) {
  if ((where & SSL_CB_ALERT) == 0)
    return;
  auto* session = static_cast<dtls_session*>(SSL_get_app_data(ssl));
  if (session == nullptr)
    return;
  // A warning-level close_notify is how a session ends, not a failure.
  if ((ret & 0xFF) == SSL3_AD_CLOSE_NOTIFY)
    return;
  session->note_alert(SSL_alert_desc_string_long(ret), (where & SSL_CB_READ) != 0);
}

/// The answer's fingerprint as certificate_fingerprint writes one: hex digits in upper case.
std::string normalized(std::string_view fingerprint) {
  std::string out{fingerprint};
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

} // namespace

namespace {

/// A context holding one certificate and key, with everything that does not depend on the
/// session (the verify and info callbacks find their session through the SSL). Null when
/// OpenSSL refuses the certificate or key.
SSL_CTX* make_context(std::string_view certificate_pem, std::string_view key_pem) {
  SSL_CTX* ctx = SSL_CTX_new(DTLS_method());
  if (ctx == nullptr)
    return nullptr;
  SSL_CTX_set_min_proto_version(ctx, DTLS1_2_VERSION);
  auto* cert_bio = BIO_new_mem_buf(certificate_pem.data(), static_cast<int>(certificate_pem.size()));
  X509* cert = PEM_read_bio_X509(cert_bio, nullptr, nullptr, nullptr);
  BIO_free(cert_bio);
  auto* key_bio = BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio, nullptr, nullptr, nullptr);
  BIO_free(key_bio);
  bool usable = cert != nullptr && key != nullptr && SSL_CTX_use_certificate(ctx, cert) == 1
                && SSL_CTX_use_PrivateKey(ctx, key) == 1 && SSL_CTX_check_private_key(ctx) == 1;
  X509_free(cert);
  EVP_PKEY_free(key);
  // Returns 0 on success, unlike most of OpenSSL.
  if (!usable || SSL_CTX_set_tlsext_use_srtp(ctx, srtp_profiles) != 0) {
    SSL_CTX_free(ctx);
    return nullptr;
  }
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  SSL_CTX_set_cert_verify_callback(ctx, verify_peer, nullptr);
  SSL_CTX_set_info_callback(ctx, on_info);
  return ctx;
}

/// The context of the last certificate and key asked for, shared by the sessions that use
/// them: a worker joins with the service's one DTLS identity again and again, and reading a
/// PEM key and making a context cost more than the rest of a handshake's CPU.
class context_cache {
public:
  /// A reference to the context for these PEMs (the caller frees it), or null.
  SSL_CTX* get(std::string_view certificate_pem, std::string_view key_pem) {
    std::lock_guard<std::mutex> guard{mutex_};
    if (ctx_ == nullptr || certificate_pem != certificate_pem_ || key_pem != key_pem_) {
      SSL_CTX* fresh = make_context(certificate_pem, key_pem);
      if (fresh == nullptr)
        return nullptr;
      SSL_CTX_free(ctx_);
      ctx_ = fresh;
      certificate_pem_ = certificate_pem;
      key_pem_ = key_pem;
    }
    SSL_CTX_up_ref(ctx_);
    return ctx_;
  }

private:
  std::mutex mutex_;
  std::string certificate_pem_;
  std::string key_pem_;
  SSL_CTX* ctx_ = nullptr;
};

context_cache& contexts() {
  // Never destroyed: sessions may outlive static destruction's order.
  static auto* cache = new context_cache;
  return *cache;
}

} // namespace

std::unique_ptr<dtls_session> dtls_session::make(std::string_view certificate_pem,
                                                 std::string_view key_pem, dtls_role role,
                                                 std::string expected_fingerprint,
                                                 std::string* why) {
  auto fail = [&](const char* reason) -> std::unique_ptr<dtls_session> {
    if (why != nullptr)
      *why = reason;
    ERR_clear_error();
    return nullptr;
  };
  std::unique_ptr<dtls_session> s{new dtls_session};
  s->expected_ = normalized(std::move(expected_fingerprint));
  s->ctx_ = contexts().get(certificate_pem, key_pem);
  if (s->ctx_ == nullptr)
    return fail("the certificate or key is not usable");
  s->ssl_ = SSL_new(s->ctx_);
  if (s->ssl_ == nullptr)
    return fail("cannot make a DTLS session");
  SSL_set_app_data(s->ssl_, s.get());
  SSL_set_options(s->ssl_, SSL_OP_NO_QUERY_MTU);
  SSL_set_mtu(s->ssl_, record_mtu);
  s->in_ = BIO_new(BIO_s_mem());
  BIO_set_mem_eof_return(s->in_, -1);
  BIO* out = BIO_new(out_method());
  BIO_set_data(out, s.get());
  SSL_set_bio(s->ssl_, s->in_, out);
  if (role == dtls_role::server)
    SSL_set_accept_state(s->ssl_);
  else
    SSL_set_connect_state(s->ssl_);
  return s;
}

dtls_session::~dtls_session() {
  SSL_free(ssl_);
  SSL_CTX_free(ctx_);
}

void dtls_session::push_output(std::string datagram) {
  output_.push_back(std::move(datagram));
}

bool dtls_session::fingerprint_matches(X509* peer) {
  auto seen = peer != nullptr ? nethernet::certificate_fingerprint(*peer) : std::nullopt;
  if (seen && *seen == expected_) {
    details_.fingerprint_verified = true;
    return true;
  }
  mismatch_ = true;
  return false;
}

void dtls_session::note_alert(const char* name, bool from_peer) {
  if (!details_.alert.empty())
    return;
  details_.alert = name;
  details_.alert_from_peer = from_peer;
}

void dtls_session::start() {
  advance();
}

void dtls_session::advance() {
  if (state_ != dtls_state::handshaking)
    return;
  int r = SSL_do_handshake(ssl_);
  if (r == 1) {
    state_ = dtls_state::connected;
    details_.cipher = SSL_get_cipher_name(ssl_);
    if (auto* profile = SSL_get_selected_srtp_profile(ssl_))
      details_.srtp_profile = profile->name;
    return;
  }
  auto e = SSL_get_error(ssl_, r);
  if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
    return;
  state_ = mismatch_ ? dtls_state::fingerprint_mismatch : dtls_state::failed;
  ERR_clear_error();
}

void dtls_session::on_datagram(std::string_view datagram, std::vector<std::string>& received) {
  if (state_ != dtls_state::handshaking && state_ != dtls_state::connected)
    return;
  BIO_write(in_, datagram.data(), static_cast<int>(datagram.size()));
  advance();
  if (state_ != dtls_state::connected)
    return;
  char buffer[16384];
  for (;;) {
    int n = SSL_read(ssl_, buffer, sizeof buffer);
    if (n > 0) {
      received.emplace_back(buffer, static_cast<std::size_t>(n));
      continue;
    }
    auto e = SSL_get_error(ssl_, n);
    if (e == SSL_ERROR_ZERO_RETURN)
      state_ = dtls_state::closed;
    else if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
      state_ = dtls_state::failed;
    ERR_clear_error();
    return;
  }
}

bool dtls_session::send(std::string_view data) {
  if (state_ != dtls_state::connected)
    return false;
  int n = SSL_write(ssl_, data.data(), static_cast<int>(data.size()));
  if (n <= 0) {
    ERR_clear_error();
    return false;
  }
  return true;
}

void dtls_session::close() {
  if (state_ == dtls_state::connected) {
    SSL_shutdown(ssl_);
    ERR_clear_error();
  }
}

std::optional<std::chrono::steady_clock::time_point> dtls_session::on_timer(
  std::chrono::steady_clock::time_point now) {
  if (state_ != dtls_state::handshaking)
    return std::nullopt;
  timeval left{};
  if (DTLSv1_get_timeout(ssl_, &left) != 1)
    return std::nullopt;
  if (left.tv_sec == 0 && left.tv_usec == 0) {
    if (DTLSv1_handle_timeout(ssl_) < 0) {
      state_ = mismatch_ ? dtls_state::fingerprint_mismatch : dtls_state::failed;
      ERR_clear_error();
      return std::nullopt;
    }
    if (DTLSv1_get_timeout(ssl_, &left) != 1)
      return std::nullopt;
  }
  return now + std::chrono::seconds{left.tv_sec} + std::chrono::microseconds{left.tv_usec};
}

std::vector<std::string> dtls_session::take_output() {
  std::vector<std::string> out;
  out.swap(output_);
  return out;
}

} // namespace netherscope::net::join
