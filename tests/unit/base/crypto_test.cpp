// Tests for base/crypto: base64 and base64url (RFC 4648 vectors and the strictness our
// decoders promise on top of OpenSSL's lenient block decoder), hex, SHA-256, randomness, the
// error-queue guard, key conversions and ECDSA signatures in the P1363 form.
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include <openssl/err.h>
#include <openssl/evp.h>

#include "base/crypto.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

// Bytes 0x00 to 0xFF in order: every base64 character appears in their encoding.
std::string all_bytes() {
  std::string out;
  for (int i = 0; i < 256; ++i)
    out += static_cast<char>(i);
  return out;
}

// base64 of all_bytes(), from Python's base64 module (an encoder independent of OpenSSL).
constexpr const char* all_bytes_b64 =
  "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+P0BBQkNE"
  "RUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn+AgYKDhIWGh4iJ"
  "iouMjY6PkJGSk5SVlpeYmZqbnJ2en6ChoqOkpaanqKmqq6ytrq+wsbKztLW2t7i5uru8vb6/wMHCw8TFxsfIycrLzM3O"
  "z9DR0tPU1dbX2Nna29zd3t/g4eLj5OXm5+jp6uvs7e7v8PHy8/T19vf4+fr7/P3+/w==";

// The same in base64url without padding (urlsafe_b64encode, "=" stripped).
constexpr const char* all_bytes_b64url =
  "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0-P0BBQkNE"
  "RUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn-AgYKDhIWGh4iJ"
  "iouMjY6PkJGSk5SVlpeYmZqbnJ2en6ChoqOkpaanqKmqq6ytrq-wsbKztLW2t7i5uru8vb6_wMHCw8TFxsfIycrLzM3O"
  "z9DR0tPU1dbX2Nna29zd3t_g4eLj5OXm5-jp6uvs7e7v8PHy8_T19vf4-fr7_P3-_w";

} // namespace

// -- base64 and base64url --

TEST_CASE("base64 and base64url match the RFC 4648 section 10 vectors both ways", "[crypto]") {
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

TEST_CASE("every byte value encodes as an independent encoder writes it", "[crypto]") {
  const auto raw = all_bytes();
  CHECK(base64_encode(raw) == all_bytes_b64);
  CHECK(base64_decode(all_bytes_b64) == std::optional<std::string>{raw});
  CHECK(base64url_encode(raw) == all_bytes_b64url);
  CHECK(base64url_decode(all_bytes_b64url) == std::optional<std::string>{raw});
}

TEST_CASE("base64 round-trips data of every length and across OpenSSL slices", "[crypto]") {
  for (std::size_t n = 0; n < 70; ++n) {
    auto data = random_bytes(n);
    REQUIRE(data);
    CAPTURE(n);
    auto b64 = base64_encode(*data);
    CHECK(b64.size() == (n + 2) / 3 * 4);
    CHECK(base64_decode(b64) == data);
    auto url = base64url_encode(*data);
    CHECK(url.find_first_of("+/=") == std::string::npos);
    CHECK(base64url_decode(url) == data);
  }
  // Past the 3 MiB slices the encoder hands OpenSSL (4 Mi characters for the decoder), with
  // padding at the end.
  auto big = random_bytes(3 * (std::size_t{1} << 20) + 3001);
  REQUIRE(big);
  auto text = base64_encode(*big);
  CHECK(text.size() == (big->size() + 2) / 3 * 4);
  CHECK(text.substr(text.size() - 2) == "==");
  CHECK(base64_decode(text) == big);
  CHECK(base64url_decode(base64url_encode(*big)) == big);
  // A bad character in the second slice is still found.
  text[text.size() - 10] = '*';
  CHECK_FALSE(base64_decode(text));
}

TEST_CASE("malformed base64 is refused", "[crypto]") {
  using namespace std::string_literals;
  // Bad lengths, characters, padding, non-zero trailing bits ("Zh==", "Zm9="), whitespace
  // anywhere, "=" in the middle, NUL and high bytes: all of which OpenSSL's EVP_DecodeBlock
  // alone would let through or read differently.
  for (const auto& bad : {"Zg"s, "Zg="s, "Zm9"s, "Z==="s, "===="s, "Zm9v!"s, "Zm9v\n"s, " Zm9v"s,
                          "Zm9v "s, "Zm 9v"s, "Zm9v\r\n"s, "\tZm9v"s, "Zh=="s, "Zm9="s, "=Zg="s,
                          "Zg==Zg=="s, "Zm9vYg=a"s, "Zg=a"s, "-_-_"s, "Z"s, "Zm9v-"s,
                          "Zm9\0"s, "Zm9\xC3"s, "Zm=v"s,
                          // Whitespace that keeps the length a multiple of four.
                          "  Zm9v  "s, "Zm9v    "s, "Zm9v\r\n\r\n"s, "\n\n\n\nZm9v"s}) {
    CAPTURE(bad);
    CHECK_FALSE(base64_decode(bad));
  }
  for (const auto& bad : {"Z"s, "Zm9vY"s, "Zg="s, "Zg==="s, "+/+/"s, "Zh"s, "Zm9"s, "Zm9v."s,
                          "Zm 9v"s, "=Zg"s, "Zm9v\n"s, " Zm9v"s, "Zm=v"s, "Z-=="s, "Zm\0v"s}) {
    CAPTURE(bad);
    CHECK_FALSE(base64url_decode(bad));
  }
}

// -- hex, digests, randomness --

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

// -- the error queue --

TEST_CASE("failed OpenSSL calls leave nothing on the thread's error queue", "[crypto]") {
  ERR_clear_error();
  CHECK_FALSE(public_key_from_der("not DER"));
  CHECK_FALSE(private_key_from_der("not DER either"));
  CHECK_FALSE(ec_public_from_xy(ec_curve::p256, std::string(32, '\x01'), std::string(32, '\x02')));
  CHECK(ERR_peek_error() == 0);

  // The guard drops what is pushed while it lives, and only that.
  ERR_raise(ERR_LIB_EVP, ERR_R_PASSED_NULL_PARAMETER);
  {
    error_queue_mark mark;
    ERR_raise(ERR_LIB_X509, ERR_R_PASSED_NULL_PARAMETER);
  }
  CHECK(ERR_GET_LIB(ERR_get_error()) == ERR_LIB_EVP);
  CHECK(ERR_peek_error() == 0);
}
