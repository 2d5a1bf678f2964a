// What a reply says about a TLS target's certificate: the certificate itself, a stable
// reason when it is not trusted, and the warning that goes with it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "net/upstream/http_client.hpp"

namespace netherscope::net::report {

/// A stable token for why a certificate is not trusted, from OpenSSL's verify code:
/// self_signed, expired, not_yet_valid, hostname_mismatch (a name or an IP address the
/// certificate does not cover), unknown_issuer, or other; empty for X509_V_OK.
std::string_view certificate_reason(long verify_code);

/// The certificate as replies show it: {trusted, reason, error, subject, issuer, notBefore,
/// notAfter, sha256}; reason and error only when it is not trusted.
boost::json::object certificate_json(const upstream::tls_certificate& cert);

/// The warning an untrusted certificate gets, in words a server owner can act on.
std::string certificate_warning(const upstream::tls_certificate& cert);

/// Adds "certificate" to a rendered reply body (a JSON object) and, when the certificate is
/// not trusted, its warning to the body's "warnings" (made when absent). Without a
/// certificate, or when body is not a JSON object, returns body unchanged.
std::string with_certificate(std::string body, const std::optional<upstream::tls_certificate>& cert);

} // namespace netherscope::net::report
