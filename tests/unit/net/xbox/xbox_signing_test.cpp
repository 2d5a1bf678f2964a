// Tests for net/xbox/signing: the Xbox request Signature header (docs/XBOX.md §3.1), the proof
// key JWK and device ids.
#include <catch2/catch.hpp>

#include <string>

#include "base/crypto.hpp"
#include "net/xbox/signing.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

std::string bytes_of(std::initializer_list<int> values) {
  std::string out;
  for (int v : values)
    out += static_cast<char>(v);
  return out;
}

std::int64_t read_be64(std::string_view s) {
  std::uint64_t v = 0;
  for (char c : s.substr(0, 8))
    v = (v << 8) | static_cast<unsigned char>(c);
  return static_cast<std::int64_t>(v);
}

} // namespace

TEST_CASE("xbox signing: FILETIME counts 100 ns from 1601", "[xbox]") {
  CHECK(windows_filetime(0) == 116444736000000000);
  CHECK(windows_filetime(1000) == 116444736010000000);
  // 2020-12-07T19:52:08.446Z.
  CHECK(windows_filetime(1607370728446) == 132518443284460000);
}

TEST_CASE("xbox signing: the signed bytes are the documented layout", "[xbox]") {
  auto in = signature_input(0x0102030405060708, "POST", "/device/authenticate", "", "{}");
  std::string expected = bytes_of({0, 0, 0, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0});
  expected += "POST";
  expected += '\0';
  expected += "/device/authenticate";
  expected += '\0';
  expected += '\0'; // the empty Authorization
  expected += "{}";
  expected += '\0';
  CHECK(in == expected);
}

TEST_CASE("xbox signing: the header is version, time and an r||s that verifies", "[xbox]") {
  auto key = generate_ec_key(ec_curve::p256);
  REQUIRE(key);
  const std::int64_t filetime = windows_filetime(1607370728000);
  auto header = net::xbox::signature_header(*key, filetime, "POST", "/authorize", "", R"({"a":1})");
  REQUIRE(header);
  CHECK(header->rfind("AAAAAQ", 0) == 0);
  auto raw = base64_decode(*header);
  REQUIRE(raw);
  REQUIRE(raw->size() == 76);
  CHECK(raw->substr(0, 4) == bytes_of({0, 0, 0, 1}));
  CHECK(read_be64(raw->substr(4, 8)) == filetime);
  auto input = signature_input(filetime, "POST", "/authorize", "", R"({"a":1})");
  CHECK(ecdsa_verify_p1363(*key, input, raw->substr(12)));
  // Any other body, path or time does not verify.
  CHECK_FALSE(ecdsa_verify_p1363(
    *key, signature_input(filetime, "POST", "/authorize", "", R"({"a":2})"), raw->substr(12)));
  CHECK_FALSE(ecdsa_verify_p1363(
    *key, signature_input(filetime, "POST", "/xsts/authorize", "", R"({"a":1})"),
    raw->substr(12)));
  CHECK_FALSE(ecdsa_verify_p1363(
    *key, signature_input(filetime + 1, "POST", "/authorize", "", R"({"a":1})"),
    raw->substr(12)));

  auto p384 = generate_ec_key(ec_curve::p384);
  REQUIRE(p384);
  CHECK_FALSE(net::xbox::signature_header(*p384, filetime, "POST", "/authorize", "", "{}"));
}

TEST_CASE("xbox signing: sign_call covers the URL's path and query and the Authorization",
          "[xbox]") {
  auto key = generate_ec_key(ec_curve::p256);
  REQUIRE(key);
  http_call call;
  call.url = "http://127.0.0.1:4000/prefix/xsts/authorize?x=1";
  call.body = R"({"RelyingParty":"rp"})";
  call.headers = {{"authorization", "XBL3.0 x=1;t"}};
  REQUIRE(sign_call(call, *key, 1607370728446));
  auto raw = base64_decode(call.header_value("Signature"));
  REQUIRE(raw);
  REQUIRE(raw->size() == 76);
  CHECK(read_be64(raw->substr(4, 8)) == windows_filetime(1607370728446));
  CHECK(ecdsa_verify_p1363(*key,
                           signature_input(windows_filetime(1607370728446), "POST",
                                           "/prefix/xsts/authorize?x=1", "XBL3.0 x=1;t",
                                           call.body),
                           raw->substr(12)));

  http_call bad;
  bad.url = "not a url";
  CHECK_FALSE(sign_call(bad, *key, 0));
}

TEST_CASE("xbox signing: the proof key is the P-256 JWK Xbox reads", "[xbox]") {
  auto key = generate_ec_key(ec_curve::p256);
  REQUIRE(key);
  auto jwk = proof_key(*key);
  REQUIRE(jwk);
  CHECK(jwk->size() == 6);
  CHECK(jwk->at("kty") == "EC");
  CHECK(jwk->at("alg") == "ES256");
  CHECK(jwk->at("crv") == "P-256");
  CHECK(jwk->at("use") == "sig");
  auto xy = ec_public_xy(*key);
  REQUIRE(xy);
  CHECK(jwk->at("x") == base64url_encode(xy->first).c_str());
  CHECK(jwk->at("y").as_string().size() == 43);

  auto p384 = generate_ec_key(ec_curve::p384);
  REQUIRE(p384);
  CHECK_FALSE(proof_key(*p384));
}

TEST_CASE("xbox signing: device ids are version 4 UUIDs", "[xbox]") {
  auto a = make_device_id();
  auto b = make_device_id();
  CHECK(a != b);
  REQUIRE(a.size() == 36);
  CHECK(a[8] == '-');
  CHECK(a[13] == '-');
  CHECK(a[14] == '4');
  CHECK(std::string{"89ab"}.find(a[19]) != std::string::npos);
  CHECK(a.find_first_not_of("0123456789abcdef-") == std::string::npos);
}
