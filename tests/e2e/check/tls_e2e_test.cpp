// End to end: certificates, TLS detection and what the service remembers about targets,
// with the netherscope binary and the fake target (tools/fake_target) as real processes on
// loopback.
#include <catch2/catch.hpp>

#include <filesystem>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <future>
#include <optional>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>

#include "app/service.hpp"
#include "base/text.hpp"
#include "net/nethernet/identity_check.hpp"
#include "net/report/certificate.hpp"
#include "net/upstream/http_client.hpp"
#include "support/http.hpp"
#include "support/loopback_client.hpp"
#include "support/wait.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace json = boost::json;

namespace {

using clock_type = std::chrono::steady_clock;

std::string info_query(unsigned port, const std::string& host = "127.0.0.1",
                       const std::string& extra = {}) {
  return "host=" + host + "&port=" + std::to_string(port) + extra;
}

json::object object_of(const http_reply& reply) {
  INFO(reply.error << reply.body);
  auto value = reply.json();
  REQUIRE(value.is_object());
  return value.as_object();
}

// The lowercase hex SHA-256 of the certificate in a PEM file, computed here with OpenSSL
// rather than by the code under test.
std::string pem_sha256(const std::string& path) {
  auto* file = std::fopen(path.c_str(), "r");
  REQUIRE(file != nullptr);
  X509* cert = PEM_read_X509(file, nullptr, nullptr, nullptr);
  std::fclose(file);
  REQUIRE(cert != nullptr);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  auto ok = X509_digest(cert, EVP_sha256(), digest, &size);
  X509_free(cert);
  REQUIRE(ok == 1);
  return base::hex_lower(std::string_view{reinterpret_cast<const char*>(digest), size});
}

bool has_string(const json::value& list, const std::string& text) {
  if (!list.is_array())
    return false;
  for (auto& item : list.as_array())
    if (item.is_string() && item.as_string() == text)
      return true;
  return false;
}

// The warning the service must give for the certificate it reported.
std::string expected_warning(const json::object& certificate) {
  net::upstream::tls_certificate cert;
  cert.error = std::string{certificate.at("error").as_string()};
  return net::report::certificate_warning(cert);
}

// The keys of body that the OpenAPI document's schema does not describe.
std::vector<std::string> undescribed(const json::object& body, const char* schema) {
  auto doc = json::parse(openapi_document);
  auto& properties = doc.at("components").at("schemas").at(schema).at("properties").as_object();
  std::vector<std::string> out;
  for (auto& [key, value] : body)
    if (!properties.contains(key))
      out.emplace_back(key);
  return out;
}

template <class F>
std::chrono::milliseconds timed(F fn) {
  auto start = clock_type::now();
  fn();
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - start);
}

/// One fetch with the service's own HTTP client, run on an io_context of its own.
net::upstream::fetch_result fetch_once(const target& where, bool accept_untrusted) {
  boost::asio::io_context ioc;
  auto client = loopback_client(ioc);
  net::upstream::fetch_request req;
  req.where = where;
  req.accept_untrusted_certificate = accept_untrusted;
  std::optional<net::upstream::fetch_result> result;
  client->fetch(std::move(req), [&](net::upstream::fetch_result&& r) { result = std::move(r); });
  ioc.run_for(15s);
  client->stop();
  REQUIRE(result);
  return std::move(*result);
}

} // namespace

TEST_CASE("tls e2e: a self-signed certificate no longer hides the server", "[e2e][tls]") {
  temp_dir dir;
  auto pem = dir.path() + "/target.pem";
  fake_target_process fake{{"--tls", "on", "--cert-out", pem}};
  service_process svc; // trusts the system store only

  for (auto extra : {std::string{}, std::string{"&tls=true"}}) {
    INFO("query" << extra);
    auto reply = get_info(svc, info_query(fake.port(), "127.0.0.1", extra));
    CHECK(reply.status == 200);
    auto body = object_of(reply);
    CHECK(body.at("ok") == true);
    CHECK(body.at("tls") == true);
    CHECK(body.at("info").at("name") == "Fake BDS");
    auto& cert = body.at("certificate").as_object();
    CHECK(cert.at("trusted") == false);
    CHECK(cert.at("reason") == "self_signed");
    CHECK(cert.at("error").as_string()
          == X509_verify_cert_error_string(X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT));
    CHECK(cert.at("subject") == "CN=localhost");
    CHECK(cert.at("issuer") == "CN=localhost");
    CHECK(cert.at("sha256").as_string() == pem_sha256(pem));
    // The fake's certificate is valid from an hour ago for a day.
    CHECK(cert.at("notBefore").as_string() < cert.at("notAfter").as_string());
    CHECK(has_string(body.at("warnings"), expected_warning(cert)));
    // The OpenAPI document describes every field shown.
    CHECK(undescribed(body, "StatusResult").empty());
    CHECK(undescribed(cert, "Certificate").empty());
  }
  // The exchange ran over TLS, twice, and nothing was retried in the clear (a plain request to
  // this TLS-only port would show as a failed handshake).
  CHECK(stat(fake, "status_requests", true) == 2);
  CHECK(stat(fake, "tls_handshake_failures", true) == 0);

  // Offers too: the server's answer, with the certificate and its warning.
  auto offer = post_offer(svc, fake.port());
  CHECK(offer.status == 200);
  auto body = object_of(offer);
  CHECK(body.at("ok") == true);
  CHECK(body.at("tls") == true);
  CHECK(body.at("candidates").as_array().size() == 1);
  auto& cert = body.at("certificate").as_object();
  CHECK(cert.at("reason") == "self_signed");
  CHECK(has_string(body.at("warnings"), expected_warning(cert)));
  CHECK(undescribed(body, "OfferResult").empty());
}

TEST_CASE("tls e2e: a trusted certificate is reported as trusted", "[e2e][tls]") {
  temp_dir dir;
  auto pem = dir.path() + "/target.pem";
  fake_target_process fake{{"--tls", "on", "--cert-out", pem}};
  service_process svc{{"--upstream-ca-file", pem}};
  for (auto host : {"127.0.0.1", "localhost"}) {
    INFO(host);
    auto body = object_of(get_info(svc, info_query(fake.port(), host)));
    CHECK(body.at("ok") == true);
    auto& cert = body.at("certificate").as_object();
    CHECK(cert.at("trusted") == true);
    CHECK_FALSE(cert.contains("reason"));
    CHECK_FALSE(cert.contains("error"));
    CHECK(cert.at("sha256").as_string() == pem_sha256(pem));
    // No warning: info bodies have a warnings list only when there is something to say.
    CHECK_FALSE(body.contains("warnings"));
  }
}

TEST_CASE("tls e2e: each certificate problem is named", "[e2e][tls]") {
  struct row {
    const char* kind;
    const char* host;
    bool trust_written_pem;
    const char* reason;
    long verify_code;
  };
  for (auto r : {row{"expired", "127.0.0.1", true, "expired", X509_V_ERR_CERT_HAS_EXPIRED},
                 row{"wrong-name", "127.0.0.1", true, "hostname_mismatch",
                     X509_V_ERR_IP_ADDRESS_MISMATCH},
                 row{"wrong-name", "localhost", true, "hostname_mismatch",
                     X509_V_ERR_HOSTNAME_MISMATCH},
                 row{"unknown-issuer", "127.0.0.1", false, "unknown_issuer",
                     X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY},
                 // A self-signed certificate that also expired is self-signed first.
                 row{"expired", "127.0.0.1", false, "self_signed",
                     X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT}}) {
    INFO(r.kind << " as " << r.host << (r.trust_written_pem ? ", trusted PEM" : ""));
    temp_dir dir;
    auto pem = dir.path() + "/trust.pem";
    fake_target_process fake{{"--tls", "on", "--cert", r.kind, "--cert-out", pem}};
    std::vector<std::string> args;
    if (r.trust_written_pem)
      args = {"--upstream-ca-file", pem};
    service_process svc{args};
    auto body = object_of(get_info(svc, info_query(fake.port(), r.host)));
    CHECK(body.at("ok") == true);
    CHECK(body.at("tls") == true);
    auto& cert = body.at("certificate").as_object();
    CHECK(cert.at("trusted") == false);
    CHECK(cert.at("reason") == r.reason);
    CHECK(cert.at("error").as_string() == X509_verify_cert_error_string(r.verify_code));
    CHECK(has_string(body.at("warnings"), expected_warning(cert)));
  }

  // The CA behind --cert unknown-issuer, once trusted, makes the chain good.
  temp_dir dir;
  auto ca = dir.path() + "/ca.pem";
  fake_target_process fake{{"--tls", "on", "--cert", "unknown-issuer", "--cert-out", ca}};
  service_process svc{{"--upstream-ca-file", ca}};
  auto body = object_of(get_info(svc, info_query(fake.port())));
  CHECK(body.at("certificate").at("trusted") == true);
  CHECK(body.at("certificate").at("issuer") == "CN=fake_target test CA");
  CHECK(body.at("certificate").at("subject") == "CN=localhost");
}

TEST_CASE("tls e2e: requests that may carry secrets still refuse an untrusted certificate",
          "[e2e][tls]") {
  // The sign-in client (GitHub) uses the same fetch without accept_untrusted_certificate.
  fake_target_process fake{{"--tls", "on"}};
  target where{"127.0.0.1", static_cast<std::uint16_t>(fake.port()), tls_mode::on};

  auto refused = fetch_once(where, false);
  CHECK(refused.error.code == error_code::upstream_failure);
  CHECK_FALSE(refused.certificate);
  // The request never left: the handshake was refused by the client's check.
  REQUIRE(wait_until([&] { return stat(fake, "tls_handshake_failures", true) == 1; }, 5s));
  CHECK(stat(fake, "status_requests", true) == 0);

  auto reported = fetch_once(where, true);
  CHECK(reported.error.ok());
  CHECK(reported.status == 200);
  REQUIRE(reported.certificate);
  CHECK_FALSE(reported.certificate->trusted);
  CHECK(reported.certificate->verify_code == X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT);
}

TEST_CASE("tls e2e: a target silent on a ClientHello costs the detection deadline once",
          "[e2e][tls]") {
  fake_target_process fake{{"--tls", "silent"}};
  temp_dir data;
  std::optional<service_process> svc;
  // Default deadlines: 1500 ms to detect TLS, 5000 ms to connect.
  svc.emplace(std::vector<std::string>{}, std::vector<std::string>{}, true, data.path());

  json::object first;
  auto first_took = timed([&] { first = object_of(get_info(*svc, info_query(fake.port()))); });
  CHECK(first.at("ok") == true);
  CHECK(first.at("tls") == false);
  CHECK(stat(fake, "tls_hellos_ignored") == 1);
  // It gave up on TLS after the detection deadline, well before the connect deadline.
  CHECK(first_took >= 1400ms);
  CHECK(first_took < 4000ms);

  // The scheme is remembered: the next calls, info and offer, go straight to plain HTTP.
  auto second_took = timed([&] {
    CHECK(object_of(get_info(*svc, info_query(fake.port()))).at("tls") == false);
  });
  CHECK(second_took < 1000ms);
  CHECK(object_of(post_offer(*svc, fake.port())).at("tls") == false);
  CHECK(stat(fake, "tls_hellos_ignored") == 1);

  // In the store, not in memory: a restarted service remembers it too.
  svc.reset();
  svc.emplace(std::vector<std::string>{}, std::vector<std::string>{}, true, data.path());
  CHECK(object_of(get_info(*svc, info_query(fake.port()))).at("tls") == false);
  CHECK(stat(fake, "tls_hellos_ignored") == 1);
  CHECK(stat(fake, "status_requests") == 3);
}

TEST_CASE("tls e2e: a forced scheme skips both the detection and the memory", "[e2e][tls]") {
  fake_target_process fake{{"--tls", "silent"}};
  service_process svc{{"--connect-timeout-ms", "800", "--tls-detect-timeout-ms", "300"}};

  // Forced off: no ClientHello, and nothing remembered from it...
  CHECK(object_of(get_info(svc, info_query(fake.port(), "127.0.0.1", "&tls=false")))
          .at("tls")
        == false);
  CHECK(stat(fake, "tls_hellos_ignored") == 0);
  // ...so the first auto-detected call still detects.
  CHECK(object_of(get_info(svc, info_query(fake.port()))).at("tls") == false);
  CHECK(stat(fake, "tls_hellos_ignored") == 1);

  // Forced on: the handshake gets the whole connect deadline, not the detection one, and no
  // plain fallback; the remembered plain HTTP does not change that.
  http_reply forced;
  auto took = timed([&] {
    forced = get_info(svc, info_query(fake.port(), "127.0.0.1", "&tls=true"));
  });
  CHECK(forced.status == 502);
  CHECK(forced.code() == "upstream_failure");
  CHECK(took >= 700ms);
  CHECK(stat(fake, "tls_hellos_ignored") == 2);
  CHECK(stat(fake, "status_requests") == 2);
  // And the failed forced call did not make the memory forget plain HTTP.
  CHECK(object_of(get_info(svc, info_query(fake.port()))).at("tls") == false);
  CHECK(stat(fake, "tls_hellos_ignored") == 2);
}

TEST_CASE("tls e2e: a remembered scheme that no longer answers is forgotten", "[e2e][tls]") {
  std::optional<fake_target_process> fake;
  fake.emplace(std::vector<std::string>{"--tls", "off"});
  auto port = fake->port();
  service_process svc;
  CHECK(object_of(get_info(svc, info_query(port))).at("tls") == false);

  // The target goes away: the call fails, and the memory of plain HTTP goes with it.
  fake.reset();
  auto gone = get_info(svc, info_query(port));
  CHECK(gone.status == 502);

  // Back on the same port, behind TLS: detected again, not refused as plain HTTP would be.
  fake.emplace(std::vector<std::string>{"--tls", "on", "--port", std::to_string(port)});
  auto body = object_of(get_info(svc, info_query(port)));
  CHECK(body.at("ok") == true);
  CHECK(body.at("tls") == true);
}

TEST_CASE("tls e2e: the answer's identity key is remembered per target", "[e2e][tls]") {
  std::optional<fake_target_process> fake;
  fake.emplace();
  auto port = fake->port();
  service_process svc;
  auto key_of = [](const json::object& body) {
    auto check = net::nethernet::verify_sdp_identity(body.at("answer").as_string(),
                                          static_cast<std::int64_t>(std::time(nullptr)));
    REQUIRE(check.verified);
    return check.key_sha256;
  };

  // First sight: nothing to compare with.
  auto first = object_of(post_offer(svc, port, R"(,"fresh":true)"));
  REQUIRE(first.at("ok") == true);
  CHECK_FALSE(first.at("identity").as_object().contains("keyChanged"));
  auto first_key = key_of(first);

  // The same server again: the same key.
  auto second = object_of(post_offer(svc, port, R"(,"fresh":true)"));
  CHECK(second.at("identity").at("keyChanged") == false);
  CHECK_FALSE(second.at("identity").as_object().contains("previousKeySha256"));

  // A restarted fake makes a new identity key at startup: a change, naming the old key.
  fake.reset();
  fake.emplace(std::vector<std::string>{"--port", std::to_string(port)});
  auto third = object_of(post_offer(svc, port, R"(,"fresh":true)"));
  CHECK(third.at("identity").at("keyChanged") == true);
  CHECK(third.at("identity").at("previousKeySha256").as_string() == first_key);
  CHECK(undescribed(third, "OfferResult").empty());
  CHECK(key_of(third) != first_key);

  // And the new key is the one remembered now.
  auto fourth = object_of(post_offer(svc, port, R"(,"fresh":true)"));
  CHECK(fourth.at("identity").at("keyChanged") == false);
  // The memory lives in an environment of its own, apart from the quota store.
  CHECK(std::filesystem::exists(svc.data_dir() + "/targets/data.mdb"));
}
