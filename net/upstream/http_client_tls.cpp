// The outbound client's TLS step: handshake, certificate checks and the fallback to HTTP.
#include "net/upstream/http_client_op.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <boost/asio/ssl/host_name_verification.hpp>

#include "net/api/host_port.hpp"

namespace netherscope::net {

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
  auto* ssl = tls_->native_handle();
  // SNI is for names only (RFC 6066 §3 forbids IP literals); the certificate is checked
  // against the name or, for a literal, against its IP addresses.
  if (!is_ip_literal(req_.where.host))
    SSL_set_tlsext_host_name(ssl, req_.where.host.c_str());
  tls_->set_verify_mode(asio::ssl::verify_peer);
  tls_->set_verify_callback(asio::ssl::host_name_verification(req_.where.host));
  beast::get_lowest_layer(*tls_).expires_after(connect_budget());
  tls_->async_handshake(asio::ssl::stream_base::client,
                        beast::bind_front_handler(&fetch_op::on_handshake,
                                                  shared_from_this()));
}

void fetch_op::on_handshake(beast::error_code ec) {
  if (!ec)
    return exchange(*tls_);
  // A certificate the store does not trust is a real answer: the peer speaks TLS. Report it
  // instead of quietly retrying in the clear.
  auto verify = SSL_get_verify_result(tls_->native_handle());
  if (verify != X509_V_OK) {
    return fail(error_code::upstream_failure,
                "TLS certificate of " + target_text() + " rejected: "
                  + X509_verify_cert_error_string(verify));
  }
  auto forced = req_.where.tls == tls_mode::on;
  if (ec == beast::error::timeout && remaining() == clock_type::duration::zero())
    return fail(error_code::upstream_timeout,
                "the TLS handshake with " + target_text() + " did not finish in time");
  if (!forced && !attempts_.empty()) {
    // The peer does not speak TLS: it sent an alert (BDS answers a ClientHello with
    // handshake_failure), a plain-HTTP reply, closed, or stayed silent. Try plain HTTP on
    // the same port, as the vanilla client does (PROTOCOL.md §0, §5.2).
    return next_attempt();
  }
  auto reason = ec == beast::error::timeout ? std::string{"no answer in time"}
                                            : tls_reason(ec);
  fail(error_code::upstream_failure,
       "TLS handshake with " + target_text() + " failed (" + reason
         + "); the target does not seem to speak TLS, try without tls=true");
}

} // namespace netherscope::net
