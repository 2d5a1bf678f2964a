// Tests for net/nethernet/identity and identity_check: our DTLS certificate and identity key,
// their persisted form, the a=identity attribute of PROTOCOL.md §2.3 we make (checked
// independently with Boost.JSON, OpenSSL and the openssl command-line tool), and the checker
// for the a=identity of others, with cpk in both forms seen in the wild.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "base/crypto.hpp"
#include "base/text.hpp"
#include "net/nethernet/identity.hpp"
#include "net/nethernet/identity_check.hpp"
#include "net/nethernet/sdp_offer.hpp"
#include "support/rooms.hpp"

namespace json = boost::json;
using namespace netherscope::test;

namespace {

// -- independent encoders, through OpenSSL's EVP_EncodeBlock/EVP_DecodeBlock --

std::string ossl_b64_encode(std::string_view data) {
  std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(data.data()),
                          static_cast<int>(data.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::string ossl_b64_decode(std::string_view text) {
  std::string out(text.size() / 4 * 3 + 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  REQUIRE(n >= 0);
  // EVP_DecodeBlock counts the padding as zero bytes; drop them.
  std::size_t pad = 0;
  while (pad < 2 && pad < text.size() && text[text.size() - 1 - pad] == '=')
    ++pad;
  out.resize(static_cast<std::size_t>(n) - pad);
  return out;
}

std::string ossl_b64url_encode(std::string_view data) {
  auto s = ossl_b64_encode(data);
  for (auto& c : s)
    c = c == '+' ? '-' : c == '/' ? '_' : c;
  while (!s.empty() && s.back() == '=')
    s.pop_back();
  return s;
}

std::string ossl_b64url_decode(std::string_view text) {
  std::string s{text};
  for (auto& c : s)
    c = c == '-' ? '+' : c == '_' ? '/' : c;
  while (s.size() % 4 != 0)
    s += '=';
  return ossl_b64_decode(s);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    auto pos = s.find(sep, start);
    if (pos == std::string::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::vector<std::string> keys(const json::object& o) {
  std::vector<std::string> out;
  for (const auto& kv : o)
    out.emplace_back(kv.key());
  return out;
}

std::string str(const json::value& v) {
  return std::string{v.as_string().c_str()};
}

// The parts of an a=identity value, decoded with OpenSSL's base64 and Boost.JSON directly.
struct decoded_identity {
  std::string outer_json;
  json::object outer;
  json::object assertion;
  std::string token;
  std::string fingerprints;
  json::object header;
  json::object claims;
};

decoded_identity decode_identity(const std::string& value) {
  decoded_identity d;
  d.outer_json = ossl_b64_decode(value);
  d.outer = json::parse(d.outer_json).as_object();
  d.assertion = json::parse(str(d.outer.at("assertion"))).as_object();
  d.token = str(d.assertion.at("token"));
  d.fingerprints = str(d.assertion.at("fingerprints"));
  auto parts = split(d.token, '.');
  REQUIRE(parts.size() == 3);
  d.header = json::parse(ossl_b64url_decode(parts[0])).as_object();
  d.claims = json::parse(ossl_b64url_decode(parts[1])).as_object();
  return d;
}

// Reassembles an a=identity value from an assertion's token and fingerprints.
std::string encode_identity(const std::string& token, const std::string& fingerprints) {
  json::object assertion;
  assertion["fingerprints"] = fingerprints;
  assertion["token"] = token;
  json::object outer;
  outer["assertion"] = json::serialize(assertion);
  outer["idp"] = json::object{{"domain", "self"}, {"protocol", "default"}};
  return base64_encode(json::serialize(outer));
}

// A compact ES384 JWS over header and claims, signed with key.
std::string make_token(EVP_PKEY& key, const json::object& header, const json::object& claims) {
  auto input = base64url_encode(json::serialize(header)) + "."
               + base64url_encode(json::serialize(claims));
  auto sig = ecdsa_sign_p1363(key, input);
  REQUIRE(sig);
  return input + "." + base64url_encode(*sig);
}

std::string make_fingerprints(EVP_PKEY& key, const std::vector<std::string>& digests) {
  const std::string header = "eyJhbGciOiJFUzM4NCJ9"; // {"alg":"ES384"}
  auto sig = ecdsa_sign_p1363(key, header + "." + base64url_encode(
                                                    canonical_fingerprint_payload(digests)));
  REQUIRE(sig);
  return header + ".." + base64url_encode(*sig);
}

std::string spki_b64(EVP_PKEY& key) {
  auto der = public_key_der(key);
  REQUIRE(der);
  return base64_encode(*der);
}

// A JWK for key's point written by hand (not through base/jose), claiming curve crv.
json::object ec_jwk(EVP_PKEY& key, const char* crv) {
  auto xy = ec_public_xy(key);
  REQUIRE(xy);
  return {{"crv", crv}, {"kty", "EC"}, {"x", base64url_encode(xy->first)},
          {"y", base64url_encode(xy->second)}};
}

// A temporary directory removed at scope exit.
struct temp_dir {
  std::filesystem::path path;
  temp_dir() {
    auto pattern = (std::filesystem::temp_directory_path() / "netherscope-id-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  void write(const std::string& name, const std::string& bytes) const {
    std::ofstream out(path / name, std::ios::binary);
    out << bytes;
    REQUIRE(out.good());
  }
  std::string read(const std::string& name) const {
    std::ifstream in(path / name, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
};

// r||s to DER with OpenSSL directly, not through crypto.cpp.
std::string p1363_to_der(const std::string& sig) {
  REQUIRE(sig.size() % 2 == 0);
  auto half = static_cast<int>(sig.size() / 2);
  const auto* raw = reinterpret_cast<const unsigned char*>(sig.data());
  BIGNUM* r = BN_bin2bn(raw, half, nullptr);
  BIGNUM* s = BN_bin2bn(raw + half, half, nullptr);
  ECDSA_SIG* es = ECDSA_SIG_new();
  REQUIRE((r && s && es));
  REQUIRE(ECDSA_SIG_set0(es, r, s) == 1);
  int len = i2d_ECDSA_SIG(es, nullptr);
  std::string der(static_cast<std::size_t>(len), '\0');
  auto* p = reinterpret_cast<unsigned char*>(der.data());
  i2d_ECDSA_SIG(es, &p);
  ECDSA_SIG_free(es);
  return der;
}

struct cli_result {
  int status;
  std::string output;
};

// Runs `openssl dgst -sha384 -verify` over data with a DER SPKI and a DER signature.
cli_result openssl_verify(const std::string& spki_der, const std::string& data,
                          const std::string& sig_der) {
  temp_dir dir;
  dir.write("pub.der", spki_der);
  dir.write("data", data);
  dir.write("sig.der", sig_der);
  auto p = [&](const char* name) { return "'" + (dir.path / name).string() + "'"; };
  auto cmd = "openssl dgst -sha384 -verify " + p("pub.der") + " -keyform DER -signature "
             + p("sig.der") + " " + p("data") + " > " + p("out.txt") + " 2>&1";
  int status = std::system(cmd.c_str());
  return {status, dir.read("out.txt")};
}

// A minimal certificate for key signed by signer, made here with OpenSSL directly.
std::string cert_der_for(EVP_PKEY& key, EVP_PKEY& signer) {
  X509* cert = X509_new();
  REQUIRE(cert);
  X509_set_version(cert, X509_VERSION_3);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 7);
  X509_gmtime_adj(X509_getm_notBefore(cert), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
  static constexpr unsigned char cn[] = "test";
  X509_NAME_add_entry_by_txt(X509_get_subject_name(cert), "CN", MBSTRING_ASC, cn, -1, -1, 0);
  X509_set_issuer_name(cert, X509_get_subject_name(cert));
  X509_set_pubkey(cert, &key);
  REQUIRE(X509_sign(cert, &signer, EVP_sha384()) > 0);
  int len = i2d_X509(cert, nullptr);
  std::string der(static_cast<std::size_t>(len), '\0');
  auto* p = reinterpret_cast<unsigned char*>(der.data());
  i2d_X509(cert, &p);
  X509_free(cert);
  return der;
}

constexpr std::int64_t now = 1760000000;

} // namespace

// -- identity.hpp: our certificate and keys --

TEST_CASE("make_local_identity makes a P-256 certificate and a P-384 identity key",
          "[identity]") {
  auto id = make_local_identity();
  REQUIRE(id);
  REQUIRE((id->dtls_key && id->dtls_cert && id->identity_key));
  CHECK(key_curve(*id->dtls_key) == ec_curve::p256);
  CHECK(key_curve(*id->identity_key) == ec_curve::p384);

  // The fingerprint is SHA-256 over the certificate DER, as 32 uppercase hex pairs.
  int len = i2d_X509(id->dtls_cert.get(), nullptr);
  REQUIRE(len > 0);
  std::string der(static_cast<std::size_t>(len), '\0');
  auto* p = reinterpret_cast<unsigned char*>(der.data());
  i2d_X509(id->dtls_cert.get(), &p);
  CHECK(id->fingerprint == hex_colon(sha256(der)));
  CHECK(id->fingerprint.size() == 32 * 3 - 1);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  REQUIRE(X509_digest(id->dtls_cert.get(), EVP_sha256(), md, &md_len) == 1);
  CHECK(id->fingerprint == hex_colon(std::string(reinterpret_cast<char*>(md), md_len)));

  // Self-signed by its key, CN netherscope, valid from about a day ago for about a year.
  CHECK(X509_verify(id->dtls_cert.get(), id->dtls_key.get()) == 1);
  CHECK(EVP_PKEY_eq(X509_get0_pubkey(id->dtls_cert.get()), id->dtls_key.get()) == 1);
  char cn[64] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(id->dtls_cert.get()), NID_commonName, cn,
                            sizeof(cn));
  CHECK(std::string{cn} == "netherscope");
  CHECK(X509_NAME_cmp(X509_get_subject_name(id->dtls_cert.get()),
                      X509_get_issuer_name(id->dtls_cert.get()))
        == 0);
  int days = 0, secs = 0;
  REQUIRE(ASN1_TIME_diff(&days, &secs, X509_get0_notBefore(id->dtls_cert.get()),
                         X509_get0_notAfter(id->dtls_cert.get()))
          == 1);
  CHECK(days == 366);
  CHECK(X509_cmp_current_time(X509_get0_notBefore(id->dtls_cert.get())) < 0);
  CHECK(X509_cmp_current_time(X509_get0_notAfter(id->dtls_cert.get())) > 0);
  const ASN1_INTEGER* serial = X509_get0_serialNumber(id->dtls_cert.get());
  CHECK(ASN1_STRING_length(serial) == 16);

  auto other = make_local_identity();
  REQUIRE(other);
  CHECK(other->fingerprint != id->fingerprint);
  CHECK(ASN1_INTEGER_cmp(serial, X509_get0_serialNumber(other->dtls_cert.get())) != 0);
}

TEST_CASE("an identity survives to_blob and from_blob", "[identity]") {
  auto id = make_local_identity();
  REQUIRE(id);
  auto earlier = ecdsa_sign_p1363(*id->identity_key, "signed before the restart");
  REQUIRE(earlier);
  auto blob = to_blob(*id);
  CHECK_FALSE(blob.dtls_key_der.empty());
  CHECK_FALSE(blob.dtls_cert_der.empty());
  CHECK_FALSE(blob.identity_key_der.empty());

  auto restored = from_blob(blob);
  REQUIRE(restored);
  CHECK(restored->fingerprint == id->fingerprint);
  CHECK(ecdsa_verify_p1363(*restored->identity_key, "signed before the restart", *earlier));
  CHECK(EVP_PKEY_eq(restored->dtls_key.get(), id->dtls_key.get()) == 1);
  auto again = to_blob(*restored);
  CHECK(again.dtls_key_der == blob.dtls_key_der);
  CHECK(again.dtls_cert_der == blob.dtls_cert_der);
  CHECK(again.identity_key_der == blob.identity_key_der);
  // The restored key still makes identities that check out.
  auto attr = make_identity_attribute(*restored->identity_key, {restored->fingerprint}, now);
  REQUIRE(attr);
  CHECK(verify_identity_attribute(*attr, {id->fingerprint}, now).verified);
}

TEST_CASE("from_blob refuses wrong keys and garbage", "[identity]") {
  auto id = make_local_identity();
  auto other = make_local_identity();
  REQUIRE((id && other));
  const auto good = to_blob(*id);
  REQUIRE(from_blob(good));

  auto p256 = generate_ec_key(ec_curve::p256);
  REQUIRE(p256);
  auto b = good;
  b.identity_key_der = private_key_der(*p256).value();
  CHECK_FALSE(from_blob(b)); // identity key must be P-384

  b = good;
  b.dtls_key_der = good.identity_key_der;
  CHECK_FALSE(from_blob(b)); // DTLS key must be P-256 (and match the certificate)

  // A consistent P-384 DTLS key and certificate are still refused: the DTLS key is P-256.
  auto p384 = generate_ec_key(ec_curve::p384);
  REQUIRE(p384);
  b = good;
  b.dtls_key_der = private_key_der(*p384).value();
  b.dtls_cert_der = cert_der_for(*p384, *p384);
  CHECK_FALSE(from_blob(b));

  // A certificate for our DTLS key that another key signed is refused; one it signed itself
  // is accepted (the check is the signature, not the certificate's other contents).
  b = good;
  b.dtls_cert_der = cert_der_for(*id->dtls_key, *other->dtls_key);
  CHECK_FALSE(from_blob(b));
  b.dtls_cert_der = cert_der_for(*id->dtls_key, *id->dtls_key);
  CHECK(from_blob(b));

  b = good;
  b.dtls_cert_der = to_blob(*other).dtls_cert_der;
  CHECK_FALSE(from_blob(b)); // certificate of another key

  for (auto field : {&identity_blob::dtls_key_der, &identity_blob::dtls_cert_der,
                     &identity_blob::identity_key_der}) {
    b = good;
    b.*field = "not DER at all";
    CHECK_FALSE(from_blob(b));
    b = good;
    b.*field += '\0'; // trailing bytes
    CHECK_FALSE(from_blob(b));
    b = good;
    b.*field = (good.*field).substr(0, (good.*field).size() / 2);
    CHECK_FALSE(from_blob(b));
    b = good;
    b.*field = "";
    CHECK_FALSE(from_blob(b));
  }
  CHECK_FALSE(from_blob(identity_blob{}));
}

// -- identity.hpp: the a=identity attribute we make --

TEST_CASE("the canonical fingerprint payload is byte-exact", "[identity]") {
  CHECK(canonical_fingerprint_payload({"AA:BB"})
        == R"({"fingerprint":[{"algorithm":"sha-256","digest":"AA:BB"}]})");
  CHECK(canonical_fingerprint_payload({"01:02", "0A:0B"})
        == R"({"fingerprint":[{"algorithm":"sha-256","digest":"01:02"},)"
           R"({"algorithm":"sha-256","digest":"0A:0B"}]})");
  CHECK(canonical_fingerprint_payload({}) == R"({"fingerprint":[]})");
}

TEST_CASE("make_identity_attribute round-trips through verify_identity_attribute",
          "[identity]") {
  auto id = make_local_identity();
  REQUIRE(id);
  const std::vector<std::string> digests{id->fingerprint};
  auto attr = make_identity_attribute(*id->identity_key, digests, now);
  REQUIRE(attr);
  auto check = verify_identity_attribute(*attr, digests, now);
  CHECK(check.present);
  CHECK(check.verified);
  CHECK(check.code == identity_error::none);
  CHECK(check.error.empty());
  CHECK(check.key_sha256 == hex_lower(sha256(public_key_der(*id->identity_key).value())));
  CHECK(check.key_sha256.size() == 64);
  CHECK(check.issued_at == now);
  CHECK(check.expires_at == now + 60);
  CHECK(verify_identity_attribute(*attr, digests, now + 60).verified);

  SECTION("a tampered digest fails") {
    auto tampered = id->fingerprint;
    tampered[0] = tampered[0] == 'A' ? 'B' : 'A';
    auto r = verify_identity_attribute(*attr, {tampered}, now);
    CHECK_FALSE(r.verified);
    CHECK(r.code == identity_error::fingerprint_signature);
    CHECK_FALSE(r.error.empty());
    // The token itself was fine, so its key and times are still reported.
    CHECK(r.key_sha256 == check.key_sha256);
    CHECK(r.expires_at == now + 60);
    CHECK(verify_identity_attribute(*attr, {id->fingerprint, id->fingerprint}, now).code
          == identity_error::fingerprint_signature);
  }
  SECTION("an expired token fails") {
    auto r = verify_identity_attribute(*attr, digests, now + 61);
    CHECK_FALSE(r.verified);
    CHECK(r.code == identity_error::expired);
    CHECK(r.key_sha256 == check.key_sha256);
  }
  SECTION("digests are covered in their order") {
    const std::vector<std::string> two{"AA:BB", "CC:DD"};
    auto a2 = make_identity_attribute(*id->identity_key, two, now);
    REQUIRE(a2);
    CHECK(verify_identity_attribute(*a2, two, now).verified);
    CHECK(verify_identity_attribute(*a2, {"CC:DD", "AA:BB"}, now).code
          == identity_error::fingerprint_signature);
    CHECK(verify_identity_attribute(*a2, {"AA:BB"}, now).code
          == identity_error::fingerprint_signature);
  }
  SECTION("a changed character anywhere in the value fails") {
    for (std::size_t i = 0; i < attr->size(); i += 37) {
      auto bad = *attr;
      bad[i] = bad[i] == 'A' ? 'B' : 'A';
      CAPTURE(i);
      auto r = verify_identity_attribute(bad, digests, now);
      CHECK_FALSE(r.verified);
      CHECK(r.code != identity_error::none);
    }
  }
}

TEST_CASE("make_identity_attribute refuses what it cannot sign", "[identity]") {
  auto p256 = generate_ec_key(ec_curve::p256);
  auto p384 = generate_ec_key(ec_curve::p384);
  REQUIRE((p256 && p384));
  CHECK_FALSE(make_identity_attribute(*p256, {"AA:BB"}, now));
  CHECK_FALSE(make_identity_attribute(*p384, {}, now));
  CHECK_FALSE(make_identity_attribute(*p384, {"AA:BB"}, INT64_MAX - 10));
}

TEST_CASE("the a=identity value has the self shape with cpk as base64 DER", "[identity]") {
  auto id = make_local_identity();
  REQUIRE(id);
  auto attr = make_identity_attribute(*id->identity_key, {id->fingerprint}, now);
  REQUIRE(attr);
  auto d = decode_identity(*attr);

  // Keys sorted, no whitespace, assertion a JSON string.
  CHECK(d.outer_json.rfind(R"({"assertion":"{\"fingerprints\":\"eyJhbGciOiJFUzM4NCJ9..)", 0)
        == 0);
  CHECK(d.outer_json.find(' ') == std::string::npos);
  CHECK(keys(d.outer) == std::vector<std::string>{"assertion", "idp"});
  CHECK(d.outer.at("assertion").is_string());
  const auto& idp = d.outer.at("idp").as_object();
  CHECK(keys(idp) == std::vector<std::string>{"domain", "protocol"});
  CHECK(str(idp.at("domain")) == "self");
  CHECK(str(idp.at("protocol")) == "default");
  CHECK(keys(d.assertion) == std::vector<std::string>{"fingerprints", "token"});

  // Token header: alg ES384 and x5u the standard-base64 DER SPKI of the identity key.
  CHECK(keys(d.header) == std::vector<std::string>{"alg", "x5u"});
  CHECK(str(d.header.at("alg")) == "ES384");
  auto spki = public_key_der(*id->identity_key);
  REQUIRE(spki);
  CHECK(str(d.header.at("x5u")) == ossl_b64_encode(*spki));

  // Token payload: cpk the same base64 DER SPKI string (the form strict servers require, not a
  // JWK), exp = iat + 60.
  CHECK(keys(d.claims) == std::vector<std::string>{"cpk", "exp", "iat"});
  REQUIRE(d.claims.at("cpk").is_string());
  CHECK(str(d.claims.at("cpk")) == ossl_b64_encode(*spki));
  CHECK(spki->size() == 120); // a P-384 SubjectPublicKeyInfo
  REQUIRE(d.claims.at("iat").is_int64());
  REQUIRE(d.claims.at("exp").is_int64());
  CHECK(d.claims.at("iat").as_int64() == now);
  CHECK(d.claims.at("exp").as_int64() == now + 60);

  // Fingerprints: a detached JWS with header {"alg":"ES384"} and a 96-byte signature.
  auto fp = split(d.fingerprints, '.');
  REQUIRE(fp.size() == 3);
  CHECK(ossl_b64url_decode(fp[0]) == R"({"alg":"ES384"})");
  CHECK(fp[1].empty());
  CHECK(ossl_b64url_decode(fp[2]).size() == 96);
  CHECK(fp[2].find('=') == std::string::npos);
  CHECK(ossl_b64url_decode(split(d.token, '.')[2]).size() == 96);
}

TEST_CASE("a signed-in a=identity carries the GameServerToken under the issuer's domain",
          "[identity]") {
  auto id = make_local_identity();
  auto services = generate_ec_key(ec_curve::p384);
  REQUIRE((id && services));
  // Opaque here: the services' token, whose cpk names our identity key.
  auto gst = make_token(*services, json::object{{"alg", "ES384"}},
                        json::object{{"cpk", spki_b64(*id->identity_key)}});
  const signed_in_identity who{gst, "https://authorization.franchise.minecraft-services.net/"};
  auto attr = make_signed_in_identity_attribute(*id->identity_key, {id->fingerprint}, who);
  REQUIRE(attr);
  auto d = decode_identity(*attr);
  CHECK(keys(d.outer) == std::vector<std::string>{"assertion", "idp"});
  const auto& idp = d.outer.at("idp").as_object();
  CHECK(str(idp.at("domain")) == who.idp_domain);
  CHECK(str(idp.at("protocol")) == "default");
  CHECK(keys(d.assertion) == std::vector<std::string>{"fingerprints", "token"});
  CHECK(d.token == gst);

  // The fingerprints JWS is ours, over our digest: beside a token of our own key it verifies,
  // and over another digest it does not.
  auto own = make_token(*id->identity_key, json::object{{"alg", "ES384"}},
                        json::object{{"cpk", spki_b64(*id->identity_key)}});
  CHECK(verify_identity_attribute(encode_identity(own, d.fingerprints), {id->fingerprint}, now)
          .verified);
  CHECK(verify_identity_attribute(encode_identity(own, d.fingerprints), {"AA:BB"}, now).code
        == identity_error::fingerprint_signature);
  // The services' token is not ours to vouch for: the checker of self-signed identities refuses it.
  CHECK_FALSE(verify_identity_attribute(*attr, {id->fingerprint}, now).verified);

  SECTION("an offer made signed in carries it") {
    auto params = make_offer_parameters(*id, now, &who);
    REQUIRE(params);
    CHECK(decode_identity(params->identity).token == gst);
    auto self = make_offer_parameters(*id, now);
    REQUIRE(self);
    CHECK(str(decode_identity(self->identity).outer.at("idp").as_object().at("domain")) == "self");
  }
  SECTION("what it cannot make") {
    auto p256 = generate_ec_key(ec_curve::p256);
    REQUIRE(p256);
    CHECK_FALSE(make_signed_in_identity_attribute(*p256, {id->fingerprint}, who));
    CHECK_FALSE(make_signed_in_identity_attribute(*id->identity_key, {}, who));
    CHECK_FALSE(make_signed_in_identity_attribute(*id->identity_key, {id->fingerprint},
                                                  signed_in_identity{gst, ""}));
    CHECK_FALSE(make_signed_in_identity_attribute(*id->identity_key, {id->fingerprint},
                                                  signed_in_identity{"", who.idp_domain}));
  }
}

TEST_CASE("the openssl command-line tool verifies our token and fingerprints signatures",
          "[identity]") {
  REQUIRE(std::system("openssl version > /dev/null 2>&1") == 0);
  auto id = make_local_identity();
  REQUIRE(id);
  auto attr = make_identity_attribute(*id->identity_key, {id->fingerprint}, now);
  REQUIRE(attr);
  auto d = decode_identity(*attr);
  // The key as the token itself names it (x5u), decoded without crypto.cpp.
  auto spki = ossl_b64_decode(str(d.header.at("x5u")));

  auto token = split(d.token, '.');
  auto token_input = token[0] + "." + token[1];
  auto token_sig = p1363_to_der(ossl_b64url_decode(token[2]));
  auto ok = openssl_verify(spki, token_input, token_sig);
  CHECK(ok.status == 0);
  CHECK(ok.output.find("Verified OK") != std::string::npos);
  auto bad = openssl_verify(spki, token_input + " ", token_sig);
  CHECK(bad.status != 0);
  CHECK(bad.output.find("Verification failure") != std::string::npos);

  // The detached JWS signs header "." base64url(canonical payload), written out here by hand.
  auto fp = split(d.fingerprints, '.');
  const std::string payload =
    R"({"fingerprint":[{"algorithm":"sha-256","digest":")" + id->fingerprint + R"("}]})";
  auto fp_input = fp[0] + "." + ossl_b64url_encode(payload);
  auto fp_sig = p1363_to_der(ossl_b64url_decode(fp[2]));
  ok = openssl_verify(spki, fp_input, fp_sig);
  CHECK(ok.status == 0);
  CHECK(ok.output.find("Verified OK") != std::string::npos);
  auto tampered = payload;
  tampered[tampered.size() - 6] = tampered[tampered.size() - 6] == 'A' ? 'B' : 'A';
  bad = openssl_verify(spki, fp[0] + "." + ossl_b64url_encode(tampered), fp_sig);
  CHECK(bad.status != 0);
  CHECK(bad.output.find("Verification failure") != std::string::npos);
}

// -- identity_check.hpp: the a=identity of others --

TEST_CASE("verify_identity_attribute accepts cpk as a JWK and as base64 DER", "[identity]") {
  auto key = generate_ec_key(ec_curve::p384);
  REQUIRE(key);
  const std::vector<std::string> digests{"12:34:56"};
  const auto pin = hex_lower(sha256(public_key_der(*key).value()));
  auto xy = ec_public_xy(*key).value();
  // The BDS shape: cpk a P-384 JWK (PROTOCOL.md §4.3).
  const json::object jwk{{"crv", "P-384"}, {"kty", "EC"}, {"x", base64url_encode(xy.first)},
                         {"y", base64url_encode(xy.second)}};
  // The go-nethernet and Pumpkin shape: cpk a standard-base64 DER SPKI string.
  const json::value der(spki_b64(*key));
  for (const auto& cpk : {json::value(jwk), der}) {
    CAPTURE(json::serialize(cpk));
    json::object header{{"alg", "ES384"}, {"x5u", spki_b64(*key)}};
    json::object claims{{"cpk", cpk}, {"exp", now + 60}, {"iat", now}};
    auto value =
      encode_identity(make_token(*key, header, claims), make_fingerprints(*key, digests));
    auto r = verify_identity_attribute(value, digests, now);
    CHECK(r.verified);
    CHECK(r.code == identity_error::none);
    CHECK(r.key_sha256 == pin);
    CHECK(r.issued_at == now);
    CHECK(r.expires_at == now + 60);
    CHECK(verify_identity_attribute(value, {"12:34:57"}, now).code
          == identity_error::fingerprint_signature);
    CHECK(verify_identity_attribute(value, digests, now + 61).code == identity_error::expired);

    // Without x5u, iat and exp the token never expires.
    json::object h{{"alg", "ES384"}};
    json::object c{{"cpk", cpk}};
    auto bare = encode_identity(make_token(*key, h, c), make_fingerprints(*key, digests));
    auto b = verify_identity_attribute(bare, digests, now + 1000000);
    CHECK(b.verified);
    CHECK_FALSE(b.issued_at);
    CHECK_FALSE(b.expires_at);
  }
}

TEST_CASE("verify_identity_attribute reads iat and exp as NumericDates", "[identity]") {
  auto key = generate_ec_key(ec_curve::p384);
  REQUIRE(key);
  const std::vector<std::string> digests{"AB:CD"};
  auto check = [&](const json::object& claims) {
    return verify_identity_attribute(
      encode_identity(make_token(*key, json::object{{"alg", "ES384"}}, claims),
                      make_fingerprints(*key, digests)),
      digests, now);
  };
  // A fraction counts towards the past; exactly now is not expired yet.
  auto r = check({{"cpk", spki_b64(*key)}, {"exp", static_cast<double>(now) + 0.5}});
  CHECK(r.verified);
  CHECK(r.expires_at == now);
  r = check({{"cpk", spki_b64(*key)}, {"exp", static_cast<double>(now) - 0.5}});
  CHECK(r.code == identity_error::expired);
  CHECK(r.expires_at == now - 1);
  // Beyond int64 is clamped, not wrapped into the past.
  r = check({{"cpk", spki_b64(*key)}, {"exp", std::uint64_t{18000000000000000000u}}});
  CHECK(r.verified);
  CHECK(r.expires_at == INT64_MAX);
  r = check({{"cpk", spki_b64(*key)}, {"exp", 1e300}});
  CHECK(r.verified);
  CHECK(r.expires_at == INT64_MAX);
  r = check({{"cpk", spki_b64(*key)}, {"exp", -1e300}});
  CHECK(r.code == identity_error::expired);
  // Not numbers at all.
  CHECK(check({{"cpk", spki_b64(*key)}, {"exp", "soon"}}).code == identity_error::bad_time);
  CHECK(check({{"cpk", spki_b64(*key)}, {"iat", nullptr}}).code == identity_error::bad_time);
}

TEST_CASE("verify_identity_attribute names the check that failed", "[identity]") {
  auto key = generate_ec_key(ec_curve::p384);
  auto other = generate_ec_key(ec_curve::p384);
  auto p256 = generate_ec_key(ec_curve::p256);
  REQUIRE((key && other && p256));
  const std::vector<std::string> digests{"AB:CD"};
  auto fps = make_fingerprints(*key, digests);
  json::object header{{"alg", "ES384"}, {"x5u", spki_b64(*key)}};
  json::object claims{{"cpk", spki_b64(*key)}, {"exp", now + 60}, {"iat", now}};
  const json::object es384{{"alg", "ES384"}};
  auto code = [&](const std::string& value) {
    auto r = verify_identity_attribute(value, digests, now);
    CHECK(r.present);
    CHECK_FALSE(r.verified);
    CHECK_FALSE(r.error.empty());
    return r.code;
  };

  CHECK(code("not base64!") == identity_error::not_base64);
  CHECK(code(base64_encode("[1,2]")) == identity_error::not_json);
  CHECK(code(base64_encode(R"({"assertion":"{}"})")) == identity_error::bad_idp);
  CHECK(code(base64_encode(R"({"assertion":"{}","idp":{"domain":"self","protocol":"x"}})"))
        == identity_error::bad_idp);
  CHECK(code(base64_encode(R"({"assertion":"{}","idp":{"protocol":"default"}})"))
        == identity_error::bad_idp);
  CHECK(code(base64_encode(R"({"assertion":{},"idp":{"domain":"self","protocol":"default"}})"))
        == identity_error::bad_assertion);
  CHECK(code(base64_encode(R"({"assertion":"{\"token\":\"a.b.c\"}",)"
                           R"("idp":{"domain":"self","protocol":"default"}})"))
        == identity_error::bad_assertion);
  CHECK(code(encode_identity("a.b", fps)) == identity_error::bad_token);
  CHECK(code(encode_identity(base64url_encode(R"({"alg":"ES384"})") + ".bm90IGpzb24.AAAA", fps))
        == identity_error::bad_token);

  // Signed by a key other than the one in cpk: a tampered signature, as far as cpk can tell.
  CHECK(code(encode_identity(make_token(*other, header, claims), fps))
        == identity_error::token_signature);
  auto tampered = make_token(*key, header, claims);
  tampered[tampered.size() - 3] = tampered[tampered.size() - 3] == 'A' ? 'B' : 'A';
  CHECK(code(encode_identity(tampered, fps)) == identity_error::token_signature);
  // x5u naming another key, or no key at all.
  json::object h2{{"alg", "ES384"}, {"x5u", spki_b64(*other)}};
  CHECK(code(encode_identity(make_token(*key, h2, claims), fps)) == identity_error::x5u_mismatch);
  json::object h2b{{"alg", "ES384"}, {"x5u", "https://example.com/key"}};
  CHECK(code(encode_identity(make_token(*key, h2b, claims), fps))
        == identity_error::x5u_mismatch);
  // A client token shape (RS256), ES256, and "none" are not ours to check.
  for (const char* alg : {"RS256", "ES256", "none"}) {
    CAPTURE(alg);
    json::object h3{{"alg", alg}};
    CHECK(code(encode_identity(make_token(*key, h3, claims), fps))
          == identity_error::unsupported_alg);
  }
  // A P-256 cpk, as DER or as a JWK; no cpk at all; a cpk of another kind.
  CHECK(code(encode_identity(make_token(*key, es384, {{"cpk", spki_b64(*p256)}}), fps))
        == identity_error::bad_cpk);
  CHECK(code(encode_identity(
          make_token(*key, es384, {{"cpk", ec_jwk(*p256, "P-256")}}), fps))
        == identity_error::bad_cpk);
  CHECK(code(encode_identity(make_token(*key, es384, {{"iat", now}}), fps))
        == identity_error::bad_cpk);
  CHECK(code(encode_identity(make_token(*key, es384, {{"cpk", 42}}), fps))
        == identity_error::bad_cpk);
  CHECK(code(encode_identity(make_token(*key, es384, {{"cpk", "bm90IERFUg=="}}), fps))
        == identity_error::bad_cpk);
  // A JWK whose point is off the curve, or that claims P-384 for a P-256 point.
  auto xy = ec_public_xy(*key).value();
  xy.second[0] = static_cast<char>(xy.second[0] ^ 0x01);
  json::object bad_jwk{{"crv", "P-384"}, {"kty", "EC"}, {"x", base64url_encode(xy.first)},
                       {"y", base64url_encode(xy.second)}};
  CHECK(code(encode_identity(make_token(*key, es384, {{"cpk", bad_jwk}}), fps))
        == identity_error::bad_cpk);
  CHECK(code(encode_identity(
          make_token(*key, es384, {{"cpk", ec_jwk(*p256, "P-384")}}), fps))
        == identity_error::bad_cpk);
  // Fingerprints not detached, not ES384, or signed by another key.
  auto token = make_token(*key, header, claims);
  CHECK(code(encode_identity(token, "eyJhbGciOiJFUzM4NCJ9.e30.AAAA"))
        == identity_error::bad_fingerprints);
  CHECK(code(encode_identity(token, base64url_encode(R"({"alg":"ES256"})") + "..AAAA"))
        == identity_error::bad_fingerprints);
  CHECK(code(encode_identity(token, make_fingerprints(*other, digests)))
        == identity_error::fingerprint_signature);
  CHECK(verify_identity_attribute(encode_identity(token, fps), digests, now).verified);
  CHECK(verify_identity_attribute(encode_identity(token, fps), {}, now).code
        == identity_error::no_fingerprints);
}

TEST_CASE("verify_sdp_identity finds the line and the fingerprints in an SDP", "[identity]") {
  auto id = make_local_identity();
  REQUIRE(id);
  auto params = make_offer_parameters(*id, now);
  REQUIRE(params);
  const auto sdp = build_offer(*params);

  auto r = verify_sdp_identity(sdp, now);
  CHECK(r.present);
  CHECK(r.verified);
  CHECK(r.code == identity_error::none);
  CHECK(r.key_sha256 == hex_lower(sha256(public_key_der(*id->identity_key).value())));

  // LF line ends read the same.
  std::string lf = sdp;
  lf.erase(std::remove(lf.begin(), lf.end(), '\r'), lf.end());
  CHECK(verify_sdp_identity(lf, now).verified);

  auto without = [&](const std::string& prefix) {
    std::string out;
    for (auto line : split(sdp, '\n'))
      if (!line.empty() && line.rfind(prefix, 0) != 0)
        out.append(line).append("\n");
    return out;
  };
  auto absent = verify_sdp_identity(without("a=identity:"), now);
  CHECK_FALSE(absent.present);
  CHECK_FALSE(absent.verified);
  CHECK(absent.code == identity_error::absent);

  auto twice = verify_sdp_identity(sdp + "a=identity:" + params->identity + "\r\n", now);
  CHECK(twice.present);
  CHECK(twice.code == identity_error::duplicate);

  CHECK(verify_sdp_identity(without("a=fingerprint:"), now).code
        == identity_error::no_fingerprints);
  // A second fingerprint the identity does not cover, and one with another hash.
  CHECK(verify_sdp_identity(sdp + "a=fingerprint:sha-256 AB:CD\r\n", now).code
        == identity_error::fingerprint_signature);
  CHECK(verify_sdp_identity(sdp + "a=fingerprint:sha-1 AB:CD\r\n", now).code
        == identity_error::unsupported_fingerprint);
  // Hash names are case-insensitive (RFC 8122).
  std::string upper = sdp;
  upper.replace(upper.find("sha-256"), 7, "SHA-256");
  CHECK(verify_sdp_identity(upper, now).verified);
  CHECK(verify_sdp_identity(sdp, now + 61).code == identity_error::expired);
}

TEST_CASE("identity attributes: one signature serves the offers of half a token's lifetime",
          "[identity]") {
  auto id = make_local_identity();
  REQUIRE(id);
  identity_attributes kept;
  const std::int64_t t0 = now;
  auto first = make_offer_parameters(*id, t0, nullptr, &kept);
  REQUIRE(first);
  // Each offer has its own ICE credentials, and the same attribute while it is good.
  auto later = make_offer_parameters(*id, t0 + identity_attributes::reuse_seconds - 1, nullptr,
                                     &kept);
  REQUIRE(later);
  CHECK(later->ice_ufrag != first->ice_ufrag);
  CHECK(later->identity == first->identity);
  // The kept attribute verifies as a fresh one does, at the time of the later offer.
  auto parsed = verify_identity_attribute(later->identity, {id->fingerprint},
                                          t0 + identity_attributes::reuse_seconds - 1);
  CHECK(parsed.verified);
  CHECK(parsed.issued_at == t0);
  // Half the token's lifetime on, a new one, signed at that time.
  auto renewed = make_offer_parameters(*id, t0 + identity_attributes::reuse_seconds, nullptr,
                                       &kept);
  REQUIRE(renewed);
  CHECK(renewed->identity != first->identity);
  auto renewed_check = verify_identity_attribute(renewed->identity, {id->fingerprint},
                                                 t0 + identity_attributes::reuse_seconds + 59);
  CHECK(renewed_check.verified);
  CHECK(renewed_check.issued_at == t0 + identity_attributes::reuse_seconds);
  // A clock that went back is not given a token issued in its future.
  auto earlier = make_offer_parameters(*id, t0 - 5, nullptr, &kept);
  REQUIRE(earlier);
  CHECK(earlier->identity != renewed->identity);
  // Another identity gets its own.
  auto other = make_local_identity();
  REQUIRE(other);
  auto theirs = make_offer_parameters(*other, t0 + identity_attributes::reuse_seconds, nullptr,
                                      &kept);
  REQUIRE(theirs);
  CHECK(theirs->identity != renewed->identity);
  CHECK(verify_identity_attribute(theirs->identity, {other->fingerprint},
                                  t0 + identity_attributes::reuse_seconds)
          .verified);
}

TEST_CASE("identity attributes: a signed-in attribute is kept while its token is the same",
          "[identity]") {
  auto id = make_local_identity();
  REQUIRE(id);
  identity_attributes kept;
  signed_in_identity who{"eyJ.token.one", "https://authorization.franchise.minecraft-services.net/"};
  auto first = make_offer_parameters(*id, 0, &who, &kept);
  REQUIRE(first);
  auto again = make_offer_parameters(*id, 1000, &who, &kept);
  REQUIRE(again);
  CHECK(again->identity == first->identity);
  who.game_server_token = "eyJ.token.two";
  auto renewed = make_offer_parameters(*id, 1000, &who, &kept);
  REQUIRE(renewed);
  CHECK(renewed->identity != first->identity);
  auto decoded = base64_decode(renewed->identity);
  REQUIRE(decoded);
  CHECK(decoded->find("eyJ.token.two") != std::string::npos);
  CHECK(decoded->find("eyJ.token.one") == std::string::npos);
  // Another issuer with the same token is another attribute too.
  who.idp_domain = "https://example.test/";
  auto moved = make_offer_parameters(*id, 1000, &who, &kept);
  REQUIRE(moved);
  CHECK(moved->identity != renewed->identity);
  auto moved_text = base64_decode(moved->identity);
  REQUIRE(moved_text);
  CHECK(moved_text->find("example.test") != std::string::npos);
}
