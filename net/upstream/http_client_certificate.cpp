// Describing a TLS peer's certificate: names, validity, pin and the verification verdict.
#include "net/upstream/http_client_certificate.hpp"

#include <ctime>
#include <memory>

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include "base/crypto.hpp"
#include "base/text.hpp"

namespace netherscope::net::upstream {

namespace {

// Subjects come from strangers; a name longer than this is cut, since no real one is.
constexpr std::size_t max_name_length = 1024;

struct bio_deleter {
  void operator()(BIO* p) const noexcept {
    BIO_free(p);
  }
};

// RFC 2253 text ("CN=localhost,O=Example"). The flags escape control characters and every
// byte above 0x7F, so the text is ASCII whatever the certificate holds.
std::string name_text(const X509_NAME* name) {
  if (name == nullptr)
    return {};
  std::unique_ptr<BIO, bio_deleter> bio{BIO_new(BIO_s_mem())};
  if (!bio || X509_NAME_print_ex(bio.get(), name, 0, XN_FLAG_RFC2253) < 0)
    return {};
  char* data = nullptr;
  auto size = BIO_get_mem_data(bio.get(), &data);
  if (size <= 0 || data == nullptr)
    return {};
  std::string text{data, static_cast<std::size_t>(size)};
  if (text.size() > max_name_length)
    text.resize(max_name_length);
  return text;
}

// Unix seconds of an ASN.1 time, 0 when it cannot be read.
std::int64_t unix_time(const ASN1_TIME* time) {
  std::tm utc{};
  if (time == nullptr || ASN1_TIME_to_tm(time, &utc) != 1)
    return 0;
  return static_cast<std::int64_t>(timegm(&utc));
}

} // namespace

tls_certificate describe_certificate(X509* cert, long verify_code) {
  base::error_queue_mark mark;
  tls_certificate out;
  out.verify_code = verify_code;
  out.trusted = cert != nullptr && verify_code == X509_V_OK;
  if (verify_code != X509_V_OK)
    out.error = X509_verify_cert_error_string(verify_code);
  if (cert == nullptr) {
    // A server cannot finish a handshake without a certificate under the default cipher
    // list; this covers it anyway with words of our own rather than OpenSSL's "ok".
    out.trusted = false;
    if (out.error.empty())
      out.error = "the target presented no certificate";
    return out;
  }
  out.subject = name_text(X509_get_subject_name(cert));
  out.issuer = name_text(X509_get_issuer_name(cert));
  out.not_before = unix_time(X509_get0_notBefore(cert));
  out.not_after = unix_time(X509_get0_notAfter(cert));
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (X509_digest(cert, EVP_sha256(), digest, &size) == 1)
    out.sha256 = base::hex_lower(std::string_view{reinterpret_cast<const char*>(digest), size});
  return out;
}

tls_certificate describe_peer_certificate(SSL* ssl, long first_error) {
  base::error_queue_mark mark;
  // The first failure the callback saw names the problem; OpenSSL's own verdict is the last
  // one, and it only counts when the callback saw nothing (it never should differ then).
  auto verdict = first_error != X509_V_OK ? first_error : SSL_get_verify_result(ssl);
  base::x509_ptr cert{SSL_get1_peer_certificate(ssl)};
  return describe_certificate(cert.get(), verdict);
}

} // namespace netherscope::net::upstream
