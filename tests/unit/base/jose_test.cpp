// Tests for base/jose: compact JWS with ES256 and ES384, detached payloads, EC JWKs.
//
// Published vectors: RFC 7515 Appendix A.3 (ES256) is checked below as data. The RFCs carry no
// ES384 vector: RFC 7515 A.4 and RFC 7520 §4.3 are both ES512 (P-521), which we do not
// implement. ES384 is therefore tested by round trips with fresh keys and by every refusal
// (tampered signature, wrong curve, wrong length, alg "none", alg mismatch), and the ES384
// tokens of a=identity are also verified by the openssl command-line tool in identity_test.
#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

#include <boost/json.hpp>
#include <openssl/evp.h>

#include "base/crypto.hpp"
#include "base/jose.hpp"
#include "support/jwk.hpp"
#include "support/rooms.hpp"

namespace json = boost::json;
using namespace netherscope::test;

namespace {

// -- RFC 7515 Appendix A.3: "Example JWS Using ECDSA P-256 SHA-256" --

/// The public half of the A.3.1 JWK (its "d" is left out here; see the test that adds it).
constexpr const char* rfc7515_a3_x = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU";
constexpr const char* rfc7515_a3_y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0";
constexpr const char* rfc7515_a3_d = "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI";

/// The complete JWS of A.3.1, its line breaks (for display only in the RFC) removed.
constexpr const char* rfc7515_a3_jws =
  "eyJhbGciOiJFUzI1NiJ9"
  "."
  "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
  "."
  "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q";

/// The JWS Payload of A.3.1 (the same as A.1's), CR LF and spaces included.
constexpr const char* rfc7515_a3_payload =
  "{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}";

json::object rfc7515_a3_jwk() {
  return {{"kty", "EC"}, {"crv", "P-256"}, {"x", rfc7515_a3_x}, {"y", rfc7515_a3_y}};
}

// A compact JWS over header and payload signed with key's P1363 signature, whatever the header
// says: how a stranger (or an attacker) could write one.
std::string raw_jws(EVP_PKEY& key, const std::string& header, const std::string& payload) {
  auto input = base64url_encode(header) + "." + base64url_encode(payload);
  auto sig = ecdsa_sign_p1363(key, input);
  REQUIRE(sig);
  return input + "." + base64url_encode(*sig);
}

jose_error decode_error(std::string_view compact) {
  jose_error error = jose_error::none;
  CHECK_FALSE(decode_jws(compact, &error));
  return error;
}

// Decodes compact and verifies it with key, giving the first error.
jose_error check(std::string_view compact, EVP_PKEY& key) {
  jose_error error = jose_error::none;
  auto token = decode_jws(compact, &error);
  return token ? verify_jws(*token, key) : error;
}

} // namespace

TEST_CASE("RFC 7515 A.3: the published ES256 JWS verifies with the published JWK", "[jose]") {
  jose_error error = jose_error::bad_signature;
  auto key = key_from_jwk(rfc7515_a3_jwk(), &error);
  REQUIRE(key);
  CHECK(error == jose_error::none);
  CHECK(jws_alg_for(*key) == jws_alg::es256);

  auto token = decode_jws(rfc7515_a3_jws, &error);
  REQUIRE(token);
  CHECK(error == jose_error::none);
  CHECK(token->alg == jws_alg::es256);
  CHECK(json::serialize(token->header) == R"({"alg":"ES256"})");
  CHECK(token->payload == rfc7515_a3_payload);
  CHECK(token->signature.size() == 64);
  const std::string compact = rfc7515_a3_jws;
  CHECK(token->signing_input == compact.substr(0, compact.rfind('.')));
  CHECK(verify_jws(*token, *key) == jose_error::none);

  // The JWK we write for that key is the published one, member for member.
  auto jwk = ec_public_jwk(*key);
  REQUIRE(jwk);
  CHECK(json::serialize(*jwk)
        == std::string{R"({"crv":"P-256","kty":"EC","x":")"} + rfc7515_a3_x + R"(","y":")"
             + rfc7515_a3_y + R"("})");

  SECTION("any change to the signature or the signed parts fails") {
    auto last = compact;
    last.back() = 'A'; // the final byte of s, low bits changed
    CHECK(check(last, *key) == jose_error::bad_signature);
    auto first_sig = compact;
    auto at = compact.rfind('.') + 1;
    first_sig[at] = first_sig[at] == 'D' ? 'E' : 'D';
    CHECK(check(first_sig, *key) == jose_error::bad_signature);
    auto payload = compact;
    payload[30] = payload[30] == 'a' ? 'b' : 'a';
    CHECK(check(payload, *key) == jose_error::bad_signature);
  }
  SECTION("the same JWS does not verify with another key or curve") {
    auto other = generate_ec_key(ec_curve::p256);
    auto p384 = generate_ec_key(ec_curve::p384);
    REQUIRE((other && p384));
    CHECK(verify_jws(*token, *other) == jose_error::bad_signature);
    CHECK(verify_jws(*token, *p384) == jose_error::alg_mismatch);
  }
  SECTION("a JWK with its private d still gives only the public key") {
    auto with_d = rfc7515_a3_jwk();
    with_d["d"] = rfc7515_a3_d;
    auto k = key_from_jwk(with_d);
    REQUIRE(k);
    CHECK(EVP_PKEY_eq(k.get(), key.get()) == 1);
    CHECK_FALSE(private_key_der(*k)); // nothing private to export
  }
}

TEST_CASE("ES256 and ES384 JWS round-trip, attached and detached", "[jose]") {
  struct curve_case {
    ec_curve curve;
    jws_alg alg;
    const char* name;
    std::size_t sig_size;
  };
  for (auto c : {curve_case{ec_curve::p256, jws_alg::es256, "ES256", 64},
                 curve_case{ec_curve::p384, jws_alg::es384, "ES384", 96}}) {
    CAPTURE(c.name);
    auto key = generate_ec_key(c.curve);
    auto other = generate_ec_key(c.curve);
    REQUIRE((key && other));
    CHECK(jws_alg_for(*key) == c.alg);
    CHECK(jws_alg_name(c.alg) == c.name);
    CHECK(jws_alg_from_name(c.name) == c.alg);

    // The header keeps its member order; the payload may be any bytes.
    const json::object header{{"kid", "k1"}, {"alg", c.name}};
    const std::string payload{"\x00\xff payload \x01", 12};
    auto compact = sign_jws(*key, header, payload);
    REQUIRE(compact);
    CHECK(compact->rfind(base64url_encode(R"({"kid":"k1","alg":")" + std::string{c.name} + "\"}")
                         + ".", 0)
          == 0);
    CHECK(compact->find('=') == std::string::npos);
    auto token = decode_jws(*compact);
    REQUIRE(token);
    CHECK(token->alg == c.alg);
    CHECK(token->header == header);
    CHECK(token->payload == payload);
    CHECK(token->signature.size() == c.sig_size);
    CHECK(verify_jws(*token, *key) == jose_error::none);
    CHECK(verify_jws(*token, *other) == jose_error::bad_signature);

    // Detached: "header..signature", verified against the payload the receiver knows.
    auto detached = sign_jws_detached(*key, header, payload);
    REQUIRE(detached);
    CHECK(detached->find("..") == detached->find('.'));
    auto d = decode_jws_detached(*detached, payload);
    REQUIRE(d);
    CHECK(d->payload == payload);
    CHECK(verify_jws(*d, *key) == jose_error::none);
    auto wrong = decode_jws_detached(*detached, payload + "x");
    REQUIRE(wrong);
    CHECK(verify_jws(*wrong, *key) == jose_error::bad_signature);
    // Read as attached, a detached JWS has an empty payload, which it does not sign.
    CHECK(check(*detached, *key) == jose_error::bad_signature);
    // An attached JWS is not a detached one.
    jose_error error = jose_error::none;
    CHECK_FALSE(decode_jws_detached(*compact, payload, &error));
    CHECK(error == jose_error::malformed);

    // An empty payload is a payload like any other.
    auto empty = sign_jws(*key, header, "");
    REQUIRE(empty);
    CHECK(check(*empty, *key) == jose_error::none);
  }
}

TEST_CASE("JWS with the wrong curve, length, alg or signature are refused", "[jose]") {
  auto p256 = generate_ec_key(ec_curve::p256);
  auto p384 = generate_ec_key(ec_curve::p384);
  REQUIRE((p256 && p384));
  const std::string payload = R"({"cpk":"x"})";
  auto good = sign_jws(*p384, {{"alg", "ES384"}}, payload).value();
  REQUIRE(check(good, *p384) == jose_error::none);
  const auto dot = good.rfind('.');
  const auto input = good.substr(0, dot);
  const auto sig = base64url_decode(good.substr(dot + 1)).value();

  SECTION("a tampered signature") {
    for (std::size_t i : {std::size_t{0}, std::size_t{47}, std::size_t{48}, std::size_t{95}}) {
      auto bad = sig;
      bad[i] = static_cast<char>(bad[i] ^ 0x01);
      CAPTURE(i);
      CHECK(check(input + "." + base64url_encode(bad), *p384) == jose_error::bad_signature);
    }
  }
  SECTION("a signature of the wrong length") {
    CHECK(check(input + "." + base64url_encode(sig.substr(1)), *p384)
          == jose_error::bad_signature);
    CHECK(check(input + "." + base64url_encode(sig + '\0'), *p384) == jose_error::bad_signature);
    CHECK(check(input + "." + base64url_encode(sig.substr(0, 64)), *p384)
          == jose_error::bad_signature);
    // r = s = 0 has the right length but is never a valid signature.
    CHECK(check(input + "." + base64url_encode(std::string(96, '\0')), *p384)
          == jose_error::bad_signature);
  }
  SECTION("a key on the wrong curve") {
    CHECK(check(good, *p256) == jose_error::alg_mismatch);
    auto es256 = sign_jws(*p256, {{"alg", "ES256"}}, payload).value();
    CHECK(check(es256, *p384) == jose_error::alg_mismatch);
  }
  SECTION("an alg that does not go with the key that signed") {
    // Signed by the P-384 key but claiming ES256: the verifier goes by the key it trusts.
    auto lying = raw_jws(*p384, R"({"alg":"ES256"})", payload);
    CHECK(check(lying, *p384) == jose_error::alg_mismatch);
    CHECK(check(lying, *p256) == jose_error::bad_signature);
    // And sign_jws will not write such a token.
    CHECK_FALSE(sign_jws(*p384, {{"alg", "ES256"}}, payload));
    CHECK_FALSE(sign_jws(*p256, {{"alg", "ES384"}}, payload));
    CHECK_FALSE(sign_jws(*p384, {{"typ", "JWT"}}, payload));
    CHECK_FALSE(sign_jws_detached(*p384, {{"alg", "none"}}, payload));
  }
  SECTION("alg none and the algorithms we do not implement") {
    // An unsecured JWS (RFC 7515 §A.5) has an empty signature.
    auto unsecured = base64url_encode(R"({"alg":"none"})") + "." + base64url_encode(payload) + ".";
    CHECK(decode_error(unsecured) == jose_error::malformed);
    for (const char* header : {R"({"alg":"none"})", R"({"alg":"HS256"})", R"({"alg":"RS256"})",
                               R"({"alg":"ES512"})", R"({"alg":"es384"})", R"({"alg":""})"}) {
      CAPTURE(header);
      CHECK(decode_error(raw_jws(*p384, header, payload)) == jose_error::unsupported_alg);
    }
    CHECK(decode_error(raw_jws(*p384, R"({"alg":"ES384","crit":["b64"],"b64":false})", payload))
          == jose_error::unsupported_crit);
  }
  SECTION("malformed compact serializations") {
    const auto h = base64url_encode(R"({"alg":"ES384"})");
    const auto p = base64url_encode(payload);
    const auto s = base64url_encode(sig);
    for (const auto& bad :
         {std::string{}, std::string{"."}, std::string{".."}, h + "." + p, h + "." + p + "." + s + ".",
          "." + p + "." + s, h + "." + p + ".", h + "." + p + ".@@@@", h + "." + p + ".AAAA=",
          h + ".not base64." + s, "e30." + p + "." + s, base64url_encode("[1]") + "." + p + "." + s,
          base64url_encode(R"({"alg":384})") + "." + p + "." + s,
          base64url_encode(R"({"alg":"ES384")") + "." + p + "." + s,
          base64url_encode("\xEF\xBB\xBF{}") + "." + p + "." + s}) {
      CAPTURE(bad);
      CHECK(decode_error(bad) == jose_error::malformed);
    }
  }
  SECTION("keys that sign no JWS we know") {
    pkey_ptr ed25519{EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519")};
    REQUIRE(ed25519);
    CHECK_FALSE(jws_alg_for(*ed25519));
    CHECK_FALSE(sign_jws(*ed25519, {{"alg", "ES256"}}, payload));
    auto token = decode_jws(good);
    REQUIRE(token);
    CHECK(verify_jws(*token, *ed25519) == jose_error::bad_key);
    CHECK_FALSE(ec_public_jwk(*ed25519));
  }
}

TEST_CASE("EC public keys convert to and from JWKs", "[jose]") {
  for (auto [curve, crv, width] : {std::tuple{ec_curve::p256, "P-256", std::size_t{32}},
                                   std::tuple{ec_curve::p384, "P-384", std::size_t{48}}}) {
    CAPTURE(crv);
    auto key = generate_ec_key(curve);
    REQUIRE(key);
    auto jwk = ec_public_jwk(*key);
    REQUIRE(jwk);
    std::vector<std::string> members;
    for (const auto& kv : *jwk)
      members.emplace_back(kv.key());
    CHECK(members == std::vector<std::string>{"crv", "kty", "x", "y"});
    CHECK(jwk->at("crv").as_string() == crv);
    CHECK(jwk->at("kty").as_string() == "EC");
    auto xy = ec_public_xy(*key).value();
    CHECK(jwk->at("x").as_string() == base64url_encode(xy.first));
    CHECK(jwk->at("y").as_string() == base64url_encode(xy.second));
    CHECK(xy.first.size() == width);

    auto back = key_from_jwk(*jwk);
    REQUIRE(back);
    CHECK(EVP_PKEY_eq(back.get(), key.get()) == 1);

    auto refused = [](json::object j) {
      jose_error error = jose_error::none;
      CHECK_FALSE(key_from_jwk(j, &error));
      return error;
    };
    auto changed = [&](const char* name, const auto& v) {
      auto j = *jwk;
      j[name] = v;
      return refused(j);
    };
    auto without = [&](const char* name) {
      auto j = *jwk;
      j.erase(name);
      return refused(j);
    };
    CHECK(changed("kty", "RSA") == jose_error::bad_key);
    CHECK(changed("kty", "ec") == jose_error::bad_key);
    CHECK(changed("crv", "P-521") == jose_error::bad_key);
    CHECK(changed("crv", curve == ec_curve::p256 ? "P-384" : "P-256") == jose_error::bad_key);
    CHECK(changed("x", base64url_encode(xy.first.substr(1))) == jose_error::bad_key);
    CHECK(changed("x", base64url_encode(xy.first + '\0')) == jose_error::bad_key);
    CHECK(changed("x", "not base64url!") == jose_error::bad_key);
    CHECK(changed("x", 7) == jose_error::bad_key);
    auto off = xy.second;
    off.back() = static_cast<char>(off.back() ^ 0x01);
    CHECK(changed("y", base64url_encode(off)) == jose_error::bad_key);
    for (const char* name : {"kty", "crv", "x", "y"}) {
      CAPTURE(name);
      CHECK(without(name) == jose_error::bad_key);
    }
  }
}

TEST_CASE("every jose_error has a sentence", "[jose]") {
  for (auto e : {jose_error::none, jose_error::malformed, jose_error::unsupported_alg,
                 jose_error::unsupported_crit, jose_error::alg_mismatch, jose_error::bad_key,
                 jose_error::bad_signature}) {
    auto text = describe(e);
    CHECK_FALSE(text.empty());
    CHECK(text.back() == '.');
  }
}
