// Tests for net/crypto and net/identity: encodings, P1363 signatures, our DTLS certificate and
// identity key, their persisted form, and the a=identity attribute of PROTOCOL.md §2.3
// (including an independent check of our signatures with the openssl command-line tool).
#include <catch2/catch.hpp>

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

#include "net/base/crypto.hpp"
#include "net/nethernet/identity.hpp"

namespace json = boost::json;
using namespace netherscope::net;

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

// -- crypto.hpp --

TEST_CASE("base64 and base64url match the RFC 4648 vectors in both directions", "[crypto]") {
  struct vec {
    const char* raw;
    const char* b64;
    const char* b64url;
  };
  const vec vectors[] = {
    {"", "", ""},
    {"f", "Zg==", "Zg"},
    {"fo", "Zm8=", "Zm8"},
    {"foo", "Zm9v", "Zm9v"},
    {"foob", "Zm9vYg==", "Zm9vYg"},
    {"fooba", "Zm9vYmE=", "Zm9vYmE"},
    {"foobar", "Zm9vYmFy", "Zm9vYmFy"},
  };
  for (const auto& v : vectors) {
    CAPTURE(v.raw);
    CHECK(base64_encode(v.raw) == v.b64);
    CHECK(base64_decode(v.b64) == std::optional<std::string>{v.raw});
    CHECK(base64url_encode(v.raw) == v.b64url);
    CHECK(base64url_decode(v.b64url) == std::optional<std::string>{v.raw});
    // base64url accepts the padded form as well.
    CHECK(base64url_decode(v.b64) == std::optional<std::string>{v.raw});
  }
  // The two alphabets differ in the last two characters.
  const std::string high{"\xfb\xff\xbf", 3};
  CHECK(base64_encode(high) == "+/+/");
  CHECK(base64url_encode(high) == "-_-_");
  CHECK(base64_decode("+/+/") == std::optional<std::string>{high});
  CHECK(base64url_decode("-_-_") == std::optional<std::string>{high});
}

TEST_CASE("base64 round-trips random data and agrees with OpenSSL's encoder", "[crypto]") {
  for (std::size_t n = 0; n < 70; ++n) {
    auto data = random_bytes(n);
    REQUIRE(data);
    auto b64 = base64_encode(*data);
    CHECK(b64 == ossl_b64_encode(*data));
    CHECK(base64_decode(b64) == data);
    auto url = base64url_encode(*data);
    CHECK(url == ossl_b64url_encode(*data));
    CHECK(base64url_decode(url) == data);
  }
}

TEST_CASE("malformed base64 is refused", "[crypto]") {
  for (const char* bad : {"Zg", "Zg=", "Zm9", "Z===", "====", "Zm9v!", "Zm9v\n", " Zm9v",
                          "Zh==", "Zm9=", "=Zg=", "Zg==Zg==", "Zm9vYg=a", "-_-_", "Z"}) {
    CAPTURE(bad);
    CHECK_FALSE(base64_decode(bad));
  }
  for (const char* bad : {"Z", "Zm9vY", "Zg=", "Zg===", "+/+/", "Zh", "Zm9", "Zm9v.",
                          "Zm 9v", "=Zg"}) {
    CAPTURE(bad);
    CHECK_FALSE(base64url_decode(bad));
  }
}

TEST_CASE("hex_colon and sha256 give the known values", "[crypto]") {
  CHECK(hex_colon(std::string{"\x00\xab\x0f\xff", 4}) == "00:AB:0F:FF");
  CHECK(hex_colon("") == "");
  CHECK(hex_colon(sha256("abc"))
        == "BA:78:16:BF:8F:01:CF:EA:41:41:40:DE:5D:AE:22:23:"
           "B0:03:61:A3:96:17:7A:9C:B4:10:FF:61:F2:00:15:AD");
  CHECK(hex_colon(sha256(""))
        == "E3:B0:C4:42:98:FC:1C:14:9A:FB:F4:C8:99:6F:B9:24:"
           "27:AE:41:E4:64:9B:93:4C:A4:95:99:1B:78:52:B8:55");
}

TEST_CASE("random_bytes gives the length asked for and fresh bytes", "[crypto]") {
  CHECK(random_bytes(0) == std::optional<std::string>{""});
  auto a = random_bytes(32);
  auto b = random_bytes(32);
  REQUIRE((a && b));
  CHECK(a->size() == 32);
  CHECK(*a != *b);
}

TEST_CASE("P1363 signatures round-trip and reject tampering", "[crypto]") {
  struct curve_case {
    ec_curve curve;
    std::size_t sig_size;
  };
  for (auto c : {curve_case{ec_curve::p384, 96}, curve_case{ec_curve::p256, 64}}) {
    CAPTURE(c.sig_size);
    auto key = generate_ec_key(c.curve);
    auto other = generate_ec_key(c.curve);
    REQUIRE((key && other));
    CHECK(key_curve(*key) == c.curve);
    const std::string data = "the data we sign";
    auto sig = ecdsa_sign_p1363(*key, data);
    REQUIRE(sig);
    CHECK(sig->size() == c.sig_size);
    CHECK(ecdsa_verify_p1363(*key, data, *sig));
    // ECDSA is randomized (or at least not fixed across messages): a second signature of
    // the same data also verifies.
    auto again = ecdsa_sign_p1363(*key, data);
    REQUIRE(again);
    CHECK(ecdsa_verify_p1363(*key, data, *again));

    for (std::size_t byte : {std::size_t{0}, c.sig_size / 2, c.sig_size - 1}) {
      auto flipped = *sig;
      flipped[byte] = static_cast<char>(flipped[byte] ^ 0x01);
      CHECK_FALSE(ecdsa_verify_p1363(*key, data, flipped));
    }
    auto data_flipped = data;
    data_flipped[3] = static_cast<char>(data_flipped[3] ^ 0x20);
    CHECK_FALSE(ecdsa_verify_p1363(*key, data_flipped, *sig));
    CHECK_FALSE(ecdsa_verify_p1363(*other, data, *sig));
    CHECK_FALSE(ecdsa_verify_p1363(*key, data, sig->substr(1)));
    CHECK_FALSE(ecdsa_verify_p1363(*key, data, *sig + '\0'));
    CHECK_FALSE(ecdsa_verify_p1363(*key, data, ""));
    CHECK_FALSE(ecdsa_verify_p1363(*key, data, std::string(c.sig_size, '\0')));
  }
  // A P-256 key refuses a P-384-sized signature and vice versa.
  auto k256 = generate_ec_key(ec_curve::p256);
  auto k384 = generate_ec_key(ec_curve::p384);
  REQUIRE((k256 && k384));
  auto s384 = ecdsa_sign_p1363(*k384, "x");
  REQUIRE(s384);
  CHECK_FALSE(ecdsa_verify_p1363(*k256, "x", *s384));
}

TEST_CASE("public keys convert between DER, coordinates and keys", "[crypto]") {
  auto key = generate_ec_key(ec_curve::p384);
  REQUIRE(key);
  auto der = public_key_der(*key);
  REQUIRE(der);
  CHECK(der->size() == 120); // 23 bytes of SPKI header + 04 || x || y
  auto xy = ec_public_xy(*key);
  REQUIRE(xy);
  CHECK(xy->first.size() == 48);
  CHECK(xy->second.size() == 48);
  CHECK(der->substr(23) == std::string{"\x04"} + xy->first + xy->second);

  auto from_der = public_key_from_der(*der);
  auto from_xy = ec_public_from_xy(ec_curve::p384, xy->first, xy->second);
  REQUIRE((from_der && from_xy));
  CHECK(EVP_PKEY_eq(from_der.get(), key.get()) == 1);
  CHECK(EVP_PKEY_eq(from_xy.get(), key.get()) == 1);
  auto sig = ecdsa_sign_p1363(*key, "m");
  REQUIRE(sig);
  CHECK(ecdsa_verify_p1363(*from_xy, "m", *sig));

  CHECK_FALSE(public_key_from_der(*der + "x"));
  CHECK_FALSE(public_key_from_der(der->substr(0, 60)));
  CHECK_FALSE(public_key_from_der(""));
  auto off_curve = xy->second;
  off_curve[47] = static_cast<char>(off_curve[47] ^ 0x01);
  CHECK_FALSE(ec_public_from_xy(ec_curve::p384, xy->first, off_curve));
  CHECK_FALSE(ec_public_from_xy(ec_curve::p384, xy->first.substr(1), xy->second));
  CHECK_FALSE(ec_public_from_xy(ec_curve::p256, xy->first, xy->second));

  auto priv = private_key_der(*key);
  REQUIRE(priv);
  auto back = private_key_from_der(*priv);
  REQUIRE(back);
  CHECK(ecdsa_verify_p1363(*key, "n", ecdsa_sign_p1363(*back, "n").value_or("")));
  CHECK_FALSE(private_key_from_der(*priv + "x"));
  CHECK_FALSE(private_key_from_der("garbage"));
}

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
  CHECK(verify_identity_attribute(*attr, {id->fingerprint}, now).ok);
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

// -- identity.hpp: the a=identity attribute --

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
  CHECK(check.ok);
  CHECK(check.reason.empty());
  CHECK(verify_identity_attribute(*attr, digests, now + 60).ok);

  SECTION("a tampered digest fails") {
    auto tampered = id->fingerprint;
    tampered[0] = tampered[0] == 'A' ? 'B' : 'A';
    auto r = verify_identity_attribute(*attr, {tampered}, now);
    CHECK_FALSE(r.ok);
    CHECK(r.reason == "The fingerprints signature does not match the digests.");
    CHECK_FALSE(verify_identity_attribute(*attr, {id->fingerprint, id->fingerprint}, now).ok);
  }
  SECTION("an expired token fails") {
    auto r = verify_identity_attribute(*attr, digests, now + 61);
    CHECK_FALSE(r.ok);
    CHECK(r.reason == "The token has expired.");
  }
  SECTION("digests are covered in their order") {
    const std::vector<std::string> two{"AA:BB", "CC:DD"};
    auto a2 = make_identity_attribute(*id->identity_key, two, now);
    REQUIRE(a2);
    CHECK(verify_identity_attribute(*a2, two, now).ok);
    CHECK_FALSE(verify_identity_attribute(*a2, {"CC:DD", "AA:BB"}, now).ok);
    CHECK_FALSE(verify_identity_attribute(*a2, {"AA:BB"}, now).ok);
  }
  SECTION("a changed character anywhere in the value fails") {
    for (std::size_t i = 0; i < attr->size(); i += 37) {
      auto bad = *attr;
      bad[i] = bad[i] == 'A' ? 'B' : 'A';
      CAPTURE(i);
      CHECK_FALSE(verify_identity_attribute(bad, digests, now).ok);
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

TEST_CASE("the a=identity value has exactly the BDS self shape", "[identity]") {
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

  // Token payload: cpk JWK with 48-byte coordinates of the same key, exp = iat + 60.
  CHECK(keys(d.claims) == std::vector<std::string>{"cpk", "exp", "iat"});
  const auto& cpk = d.claims.at("cpk").as_object();
  CHECK(keys(cpk) == std::vector<std::string>{"crv", "kty", "x", "y"});
  CHECK(str(cpk.at("crv")) == "P-384");
  CHECK(str(cpk.at("kty")) == "EC");
  auto x = ossl_b64url_decode(str(cpk.at("x")));
  auto y = ossl_b64url_decode(str(cpk.at("y")));
  CHECK(x.size() == 48);
  CHECK(y.size() == 48);
  CHECK(str(cpk.at("x")).find('=') == std::string::npos);
  CHECK(spki->substr(23) == "\x04" + x + y); // the JWK and x5u name the same point
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

TEST_CASE("verify_identity_attribute accepts a cpk given as base64 DER", "[identity]") {
  auto key = generate_ec_key(ec_curve::p384);
  REQUIRE(key);
  const std::vector<std::string> digests{"12:34:56"};
  // The go-nethernet and Pumpkin shape: cpk is a standard-base64 DER SPKI string.
  json::object header{{"alg", "ES384"}, {"x5u", spki_b64(*key)}};
  json::object claims{{"cpk", spki_b64(*key)}, {"exp", now + 60}, {"iat", now}};
  auto value = encode_identity(make_token(*key, header, claims), make_fingerprints(*key, digests));
  auto r = verify_identity_attribute(value, digests, now);
  CHECK(r.ok);
  CHECK(r.reason.empty());
  CHECK_FALSE(verify_identity_attribute(value, {"12:34:57"}, now).ok);

  SECTION("without x5u and exp") {
    json::object h{{"alg", "ES384"}};
    json::object c{{"cpk", spki_b64(*key)}};
    auto v = encode_identity(make_token(*key, h, c), make_fingerprints(*key, digests));
    CHECK(verify_identity_attribute(v, digests, now + 1000000).ok);
  }
}

TEST_CASE("verify_identity_attribute names what is wrong", "[identity]") {
  auto key = generate_ec_key(ec_curve::p384);
  auto other = generate_ec_key(ec_curve::p384);
  auto p256 = generate_ec_key(ec_curve::p256);
  REQUIRE((key && other && p256));
  const std::vector<std::string> digests{"AB:CD"};
  auto fps = make_fingerprints(*key, digests);
  json::object header{{"alg", "ES384"}, {"x5u", spki_b64(*key)}};
  json::object claims{{"cpk", spki_b64(*key)}, {"exp", now + 60}, {"iat", now}};
  auto reason = [&](const std::string& value) {
    auto r = verify_identity_attribute(value, digests, now);
    CHECK_FALSE(r.ok);
    return r.reason;
  };

  CHECK(reason("not base64!") == "The identity is not valid base64.");
  CHECK(reason(base64_encode("[1,2]")) == "The identity is not a JSON object.");
  CHECK(reason(base64_encode(R"({"assertion":"{}"})")) == "The identity has no idp object.");
  CHECK(reason(base64_encode(R"({"assertion":"{}","idp":{"domain":"self","protocol":"x"}})"))
        == "The idp protocol is not \"default\".");
  CHECK(reason(base64_encode(R"({"assertion":{},"idp":{"domain":"self","protocol":"default"}})"))
        == "The assertion is not a string.");
  CHECK(reason(encode_identity("a.b", fps)) == "The token is not a compact JWS.");

  // Signed by a key other than the one in cpk.
  CHECK(reason(encode_identity(make_token(*other, header, claims), fps))
        == "The token signature does not verify with cpk.");
  // x5u naming another key.
  json::object h2{{"alg", "ES384"}, {"x5u", spki_b64(*other)}};
  CHECK(reason(encode_identity(make_token(*key, h2, claims), fps))
        == "The token x5u does not match cpk.");
  // A client token shape (RS256) is not ours to check.
  json::object h3{{"alg", "RS256"}};
  CHECK(reason(encode_identity(make_token(*key, h3, claims), fps))
        == "The token alg RS256 is not ES384.");
  // A P-256 cpk.
  json::object c2{{"cpk", spki_b64(*p256)}};
  CHECK(reason(encode_identity(make_token(*key, json::object{{"alg", "ES384"}}, c2), fps))
        == "The cpk key is not an EC P-384 key.");
  // No cpk at all.
  json::object c3{{"iat", now}};
  CHECK(reason(encode_identity(make_token(*key, json::object{{"alg", "ES384"}}, c3), fps))
        == "The token has no cpk claim.");
  // A JWK whose point is off the curve.
  auto xy = ec_public_xy(*key).value();
  xy.second[0] = static_cast<char>(xy.second[0] ^ 0x01);
  json::object bad_jwk{{"crv", "P-384"}, {"kty", "EC"}, {"x", base64url_encode(xy.first)},
                       {"y", base64url_encode(xy.second)}};
  json::object c4{{"cpk", bad_jwk}};
  CHECK(reason(encode_identity(make_token(*key, json::object{{"alg", "ES384"}}, c4), fps))
        == "The cpk JWK point is not on the P-384 curve.");
  // exp that is not a number.
  json::object c5{{"cpk", spki_b64(*key)}, {"exp", "soon"}};
  CHECK(reason(encode_identity(make_token(*key, json::object{{"alg", "ES384"}}, c5), fps))
        == "The token exp is not a number.");
  // Fingerprints not detached, or signed by another key.
  auto token = make_token(*key, header, claims);
  CHECK(reason(encode_identity(token, "eyJhbGciOiJFUzM4NCJ9.e30.AAAA"))
        == "The fingerprints value is not a detached JWS.");
  CHECK(reason(encode_identity(token, make_fingerprints(*other, digests)))
        == "The fingerprints signature does not match the digests.");
  CHECK(verify_identity_attribute(encode_identity(token, fps), digests, now).ok);
  CHECK(verify_identity_attribute(encode_identity(token, fps), {}, now).reason
        == "There are no fingerprint digests to check.");
}
