// Internal to the HTTP client: describing the certificate a TLS peer presented.
//
// Kept apart from the Beast units because X509 parsing needs none of Beast, and those units
// are the slowest of the project to compile; include this header only from
// net/upstream/http_client*.cpp and the tests.
#pragma once

#include <openssl/types.h>

#include "net/upstream/http_client.hpp"

namespace netherscope::net::upstream {

/// Describes the certificate the peer of a finished handshake presented. first_error is the
/// first verification failure the verify callback saw (X509_V_OK for none); the certificate
/// counts as trusted only when there was none and OpenSSL's own verdict agrees.
tls_certificate describe_peer_certificate(SSL* ssl, long first_error);

/// Describes a certificate with a given verification outcome (X509_V_OK: trusted); the part
/// of describe_peer_certificate that needs no connection.
tls_certificate describe_certificate(X509* cert, long verify_code);

} // namespace netherscope::net::upstream
