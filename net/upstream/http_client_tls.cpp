// The outbound client's TLS step: handshake, certificate checks and the fallback to HTTP.
#include "net/upstream/http_client_op.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include "core/host_port.hpp"

namespace netherscope::net::upstream {

namespace {

// OpenSSL's reason text ("wrong version number", "sslv3 alert handshake failure").
std::string tls_reason(const beast::error_code& ec) {
  if (ec.category() == asio::error::get_ssl_category()) {
    if (auto text = ERR_reason_error_string(static_cast<unsigned long>(ec.value())))
      return text;
  }
  return ec.message();
}

} // namespace

void fetch_op::start_tls() {
  tls_.emplace(std::move(*plain_), st_->tls);
  plain_.reset();
  first_verify_error_ = X509_V_OK;
  certificate_.reset();
  auto* ssl = tls_->native_handle();
  // SNI is for names only (RFC 6066 §3 forbids IP literals).
  if (!core::is_ip_literal(req_.where.host))
    SSL_set_tlsext_host_name(ssl, req_.where.host.c_str());
  // The name (or, for a literal, the IP address) is checked by OpenSSL's own chain
  // verification, so a mismatch arrives at the verify callback as its own error code
  // (X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH) like every other failure.
  auto* param = SSL_get0_param(ssl);
  X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  if (core::is_ip_literal(req_.where.host))
    X509_VERIFY_PARAM_set1_ip_asc(param, req_.where.host.c_str());
  else
    X509_VERIFY_PARAM_set1_host(param, req_.where.host.c_str(), req_.where.host.size());
  tls_->set_verify_mode(asio::ssl::verify_peer);
  // The stream owns the callback and this operation owns the stream, so capturing this
  // cannot outlive it; a shared pointer here would be a cycle.
  tls_->set_verify_callback([this](bool preverified, asio::ssl::verify_context& ctx) {
    return on_verify(preverified, ctx.native_handle());
  });
  auto budget = connect_budget();
  if (detecting_)
    budget = std::min<clock_type::duration>(budget, req_.tls_detect_timeout);
  beast::get_lowest_layer(*tls_).expires_after(budget);
  tls_->async_handshake(asio::ssl::stream_base::client,
                        beast::bind_front_handler(&fetch_op::on_handshake,
                                                  shared_from_this()));
}

bool fetch_op::on_verify(bool preverified, X509_STORE_CTX* ctx) {
  if (!preverified && first_verify_error_ == X509_V_OK)
    first_verify_error_ = X509_STORE_CTX_get_error(ctx);
  // OpenSSL reports failures in chain order (issuer, then name, then validity), and the
  // first is the one a user can act on: a self-signed certificate that has also expired is
  // self-signed first. Going on only collects the certificate for the report; nothing has
  // been sent yet, and the caller decides before anything is.
  return preverified || req_.accept_untrusted_certificate;
}

void fetch_op::on_handshake(beast::error_code ec) {
  if (!ec) {
    auto certificate = describe_peer_certificate(tls_->native_handle(), first_verify_error_);
    if (!certificate.trusted && !req_.accept_untrusted_certificate)
      return fail(core::error_code::upstream_failure,
                  "TLS certificate of " + target_text() + " rejected: " + certificate.error);
    certificate_ = std::move(certificate);
    return exchange(*tls_);
  }
  // A certificate refused during the handshake is a real answer: the peer speaks TLS.
  // Report it instead of quietly retrying in the clear.
  if (first_verify_error_ != X509_V_OK && !req_.accept_untrusted_certificate)
    return fail(core::error_code::upstream_failure,
                "TLS certificate of " + target_text() + " rejected: "
                  + X509_verify_cert_error_string(first_verify_error_));
  auto forced = req_.where.tls == core::tls_mode::on;
  if (ec == beast::error::timeout && remaining() == clock_type::duration::zero())
    return fail(core::error_code::upstream_timeout,
                "the TLS handshake with " + target_text() + " did not finish in time");
  if (!forced && !attempts_.empty()) {
    // The peer does not speak TLS: it sent an alert (BDS answers a ClientHello with
    // handshake_failure), a plain-HTTP reply, closed, or stayed silent past the detection
    // deadline. Try plain HTTP on the same port, as the vanilla client does
    // (PROTOCOL.md §0, §5.2).
    detect_timed_out_ = ec == beast::error::timeout && detecting_;
    return next_attempt();
  }
  auto reason = ec == beast::error::timeout ? std::string{"no answer in time"}
                                            : tls_reason(ec);
  fail(core::error_code::upstream_failure,
       "TLS handshake with " + target_text() + " failed (" + reason
         + "); the target does not seem to speak TLS, try without tls=true");
}

} // namespace netherscope::net::upstream
