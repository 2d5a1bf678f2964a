#include "net/report/certificate.hpp"

#include <ctime>

#include <openssl/x509_vfy.h>

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "core/api_json.hpp"
#include "base/text.hpp"

namespace netherscope::net::report {

std::string_view certificate_reason(long verify_code) {
  switch (verify_code) {
    case X509_V_OK:
      return {};
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
      return "self_signed";
    case X509_V_ERR_CERT_HAS_EXPIRED:
      return "expired";
    case X509_V_ERR_CERT_NOT_YET_VALID:
      return "not_yet_valid";
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
      return "hostname_mismatch";
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
      return "unknown_issuer";
    default:
      return "other";
  }
}

namespace {

/// A certificate time as RFC 3339, or null when it lies outside what RFC 3339 can write.
boost::json::value time_or_null(std::int64_t unix_seconds) {
  auto text = base::rfc3339_utc(unix_seconds);
  return text ? boost::json::value(*text) : boost::json::value(nullptr);
}

} // namespace

boost::json::object certificate_json(const upstream::tls_certificate& cert) {
  boost::json::object out;
  out["trusted"] = cert.trusted;
  if (!cert.trusted) {
    out["reason"] = certificate_reason(cert.verify_code);
    out["error"] = core::valid_utf8(cert.error);
  }
  // The names are ASCII already (http_client escapes them); valid_utf8 guards the JSON anyway.
  out["subject"] = core::valid_utf8(cert.subject);
  out["issuer"] = core::valid_utf8(cert.issuer);
  out["notBefore"] = time_or_null(cert.not_before);
  out["notAfter"] = time_or_null(cert.not_after);
  out["sha256"] = cert.sha256;
  return out;
}

std::string certificate_warning(const upstream::tls_certificate& cert) {
  return "the server's TLS certificate is not trusted (" + core::valid_utf8(cert.error)
         + "): Minecraft clients refuse it, so players cannot connect through this address "
           "over HTTPS; use a certificate from a public CA that names this host, or serve "
           "plain HTTP";
}

std::string with_certificate(std::string body, const std::optional<upstream::tls_certificate>& cert) {
  if (!cert)
    return body;
  boost::system::error_code ec;
  auto parsed = boost::json::parse(body, ec);
  if (ec || !parsed.is_object())
    return body;
  auto& object = parsed.as_object();
  object["certificate"] = certificate_json(*cert);
  if (!cert->trusted)
    core::add_warning(object, "certificate_untrusted", certificate_warning(*cert));
  return boost::json::serialize(object);
}

} // namespace netherscope::net::report
