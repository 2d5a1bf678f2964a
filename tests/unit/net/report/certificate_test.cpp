// What replies say about a TLS target's certificate, and how the client describes one.
#include <catch2/catch.hpp>

#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <boost/json.hpp>

#include "base/crypto.hpp"
#include "base/text.hpp"
#include "net/report/certificate.hpp"
#include "net/upstream/http_client_certificate.hpp"
#include "support/rooms.hpp"
#include "support/dates.hpp"

using namespace netherscope::test;

namespace {


tls_certificate untrusted_self_signed() {
  tls_certificate cert;
  cert.trusted = false;
  cert.verify_code = X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT;
  cert.error = "self-signed certificate";
  cert.subject = "CN=localhost";
  cert.issuer = "CN=localhost";
  cert.not_before = nov_22;
  cert.not_after = nov_22 + 86400;
  cert.sha256 = std::string(64, 'c');
  return cert;
}

boost::json::object parse_object(const std::string& text) {
  auto value = boost::json::parse(text);
  REQUIRE(value.is_object());
  return value.as_object();
}

// A self-signed certificate with the given CN, valid over [from, until] in Unix seconds.
x509_ptr make_certificate(const std::string& cn, std::int64_t from, std::int64_t until) {
  auto key = generate_ec_key(ec_curve::p256);
  REQUIRE(key);
  x509_ptr cert{X509_new()};
  REQUIRE(cert);
  REQUIRE(X509_set_version(cert.get(), X509_VERSION_3) == 1);
  REQUIRE(ASN1_TIME_set(X509_getm_notBefore(cert.get()), static_cast<time_t>(from)));
  REQUIRE(ASN1_TIME_set(X509_getm_notAfter(cert.get()), static_cast<time_t>(until)));
  REQUIRE(X509_set_pubkey(cert.get(), key.get()) == 1);
  auto* name = X509_get_subject_name(cert.get());
  REQUIRE(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                     reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0)
          == 1);
  REQUIRE(X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                                     reinterpret_cast<const unsigned char*>("Example"), -1, -1, 0)
          == 1);
  REQUIRE(X509_set_issuer_name(cert.get(), name) == 1);
  REQUIRE(X509_sign(cert.get(), key.get(), EVP_sha256()) > 0);
  return cert;
}

} // namespace

TEST_CASE("certificate: OpenSSL's verify codes become stable reasons", "[certificate]") {
  CHECK(certificate_reason(X509_V_OK).empty());
  CHECK(certificate_reason(X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT) == "self_signed");
  CHECK(certificate_reason(X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN) == "self_signed");
  CHECK(certificate_reason(X509_V_ERR_CERT_HAS_EXPIRED) == "expired");
  CHECK(certificate_reason(X509_V_ERR_CERT_NOT_YET_VALID) == "not_yet_valid");
  CHECK(certificate_reason(X509_V_ERR_HOSTNAME_MISMATCH) == "hostname_mismatch");
  CHECK(certificate_reason(X509_V_ERR_IP_ADDRESS_MISMATCH) == "hostname_mismatch");
  CHECK(certificate_reason(X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY) == "unknown_issuer");
  CHECK(certificate_reason(X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE) == "unknown_issuer");
  CHECK(certificate_reason(X509_V_ERR_CERT_REVOKED) == "other");
}

TEST_CASE("certificate: times are RFC 3339 in UTC", "[certificate]") {
  CHECK(rfc3339_utc(nov_22) == "2026-11-22T12:00:00Z");
  CHECK(rfc3339_utc(0) == "1970-01-01T00:00:00Z");
}

TEST_CASE("certificate: an untrusted one is shown with its reason and a warning",
          "[certificate]") {
  auto cert = untrusted_self_signed();
  // An info body has no warnings of its own: the list is made.
  auto info = parse_object(with_certificate(R"({"ok":true,"status":200,"tls":true,"info":null})",
                                            cert));
  auto& shown = info.at("certificate").as_object();
  CHECK(shown.at("trusted") == false);
  CHECK(shown.at("reason") == "self_signed");
  CHECK(shown.at("error") == "self-signed certificate");
  CHECK(shown.at("subject") == "CN=localhost");
  CHECK(shown.at("issuer") == "CN=localhost");
  CHECK(shown.at("notBefore") == "2026-11-22T12:00:00Z");
  CHECK(shown.at("notAfter") == "2026-11-23T12:00:00Z");
  CHECK(shown.at("sha256").as_string() == std::string(64, 'c'));
  REQUIRE(info.at("warnings").as_array().size() == 1);
  CHECK(info.at("warnings").as_array()[0].as_string() == certificate_warning(cert));
  // The rest of the body is untouched.
  CHECK(info.at("status") == 200);
  CHECK(info.at("info").is_null());

  // An offer body's warnings are kept, and the certificate's comes after them.
  auto offer = parse_object(
    with_certificate(R"({"ok":true,"tls":true,"warnings":["candidate 1: loopback"]})", cert));
  REQUIRE(offer.at("warnings").as_array().size() == 2);
  CHECK(offer.at("warnings").as_array()[0] == "candidate 1: loopback");
}

TEST_CASE("certificate: a trusted one is shown without reason or warning", "[certificate]") {
  auto cert = untrusted_self_signed();
  cert.trusted = true;
  cert.verify_code = X509_V_OK;
  cert.error.clear();
  auto body = parse_object(with_certificate(R"({"ok":true,"tls":true})", cert));
  auto& shown = body.at("certificate").as_object();
  CHECK(shown.at("trusted") == true);
  CHECK_FALSE(shown.contains("reason"));
  CHECK_FALSE(shown.contains("error"));
  CHECK_FALSE(body.contains("warnings"));
}

TEST_CASE("certificate: nothing is added without a certificate or to a non-object",
          "[certificate]") {
  std::string plain = R"({"ok":true,"tls":false})";
  CHECK(with_certificate(plain, std::nullopt) == plain);
  CHECK(with_certificate("[1,2]", untrusted_self_signed()) == "[1,2]");
  CHECK(with_certificate("not json", untrusted_self_signed()) == "not json");
}

TEST_CASE("certificate: the client describes a certificate from its fields", "[certificate]") {
  auto cert = make_certificate("server.example", nov_22, nov_22 + 7 * 86400);
  auto described = describe_certificate(cert.get(), X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT);
  CHECK_FALSE(described.trusted);
  CHECK(described.verify_code == X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT);
  CHECK(described.error == X509_verify_cert_error_string(X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT));
  // RFC 2253 writes the most specific part first.
  CHECK(described.subject == "O=Example,CN=server.example");
  CHECK(described.issuer == described.subject);
  CHECK(described.not_before == nov_22);
  CHECK(described.not_after == nov_22 + 7 * 86400);
  // The pin is the SHA-256 of the DER, as `openssl x509 -fingerprint -sha256` shows it.
  unsigned char* der = nullptr;
  auto size = i2d_X509(cert.get(), &der);
  REQUIRE(size > 0);
  std::string der_bytes{reinterpret_cast<char*>(der), static_cast<std::size_t>(size)};
  OPENSSL_free(der);
  CHECK(described.sha256 == hex_lower(sha256(der_bytes)));

  auto trusted = describe_certificate(cert.get(), X509_V_OK);
  CHECK(trusted.trusted);
  CHECK(trusted.error.empty());

  auto none = describe_certificate(nullptr, X509_V_OK);
  CHECK_FALSE(none.trusted);
  CHECK_FALSE(none.error.empty());
}

TEST_CASE("certificate: names from strangers come out as ASCII", "[certificate]") {
  // "Zoë\n" in UTF-8: a byte above 0x7F and a control character.
  auto cert = make_certificate("Zo\xC3\xAB\n", nov_22, nov_22 + 86400);
  auto described = describe_certificate(cert.get(), X509_V_OK);
  for (unsigned char c : described.subject)
    CHECK((c >= 0x20 && c < 0x7F));
  CHECK(described.subject.find("CN=Zo") != std::string::npos);
}
