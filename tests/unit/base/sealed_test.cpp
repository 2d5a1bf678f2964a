// Tests for base/sealed: AES-256-GCM secrets at rest (round trip, a value another tool
// sealed, tampering, another key, another record's associated data) and the operator's key file.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "base/sealed.hpp"
#include "base/text.hpp"
#include "support/process.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

// Bytes 0x00 to 0x1F: the key of the known-answer vector below.
std::string counting_key() {
  std::string out;
  for (int i = 0; i < 32; ++i)
    out += static_cast<char>(i);
  return out;
}

secrets_key key_of(std::string bytes) {
  auto key = secrets_key::from_bytes(bytes);
  REQUIRE(key);
  return std::move(*key);
}

std::string from_hex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(std::string{hex.substr(i, 2)}, nullptr, 16));
  return out;
}

// Sealed by Python's `cryptography` (AESGCM) under counting_key(), label "xbox-link", nonce
// A0..AB, plaintext "refresh-token-M.R3_example", with the layout and associated data
// sealed.hpp documents: an encoder that shares nothing with ours.
constexpr std::string_view python_sealed =
  "018ec656b777aca3e4a0a1a2a3a4a5a6a7a8a9aaab947d1a5f20b86a92160aecb669578df0229f0675ead62f1c"
  "f06b861321b176d9d98b38351fe923c96093";

void write_file(const std::string& path, const std::string& text, mode_t mode) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  REQUIRE(::chmod(path.c_str(), mode) == 0);
}

} // namespace

TEST_CASE("sealed: the key id is a labelled digest of the key", "[sealed]") {
  auto key = key_of(counting_key());
  // hashlib.sha256(b"netherscope secrets key id v1" + bytes(range(32))).hexdigest()[:16]
  CHECK(key.id() == "8ec656b777aca3e4");
  CHECK(key.id_bytes().size() == 8);
  CHECK_FALSE(secrets_key::from_bytes(std::string(31, 'k')));
  CHECK_FALSE(secrets_key::from_bytes(std::string(33, 'k')));
}

TEST_CASE("sealed: a value seals and opens under its key and label", "[sealed]") {
  auto key = key_of(std::string(32, 'k'));
  const std::string secret = "M.R3_BAY.refresh-token-with-some-length";
  auto sealed = seal(key, "xbox-link", secret);
  REQUIRE(sealed);
  CHECK(sealed->size() == 1 + 8 + 12 + secret.size() + 16);
  CHECK((*sealed)[0] == '\x01');
  CHECK(sealed->substr(1, 8) == key.id_bytes());
  CHECK(sealed->find(secret) == std::string::npos);
  CHECK(sealed_key_id(*sealed) == key.id());

  open_error why = open_error::corrupt;
  auto opened = open_sealed(key, "xbox-link", *sealed, &why);
  REQUIRE(opened);
  CHECK(*opened == secret);
  CHECK(why == open_error::none);

  // A fresh nonce every time: the same secret never seals to the same bytes.
  auto again = seal(key, "xbox-link", secret);
  REQUIRE(again);
  CHECK(again->substr(9, 12) != sealed->substr(9, 12));
  CHECK(*again != *sealed);

  auto empty = seal(key, "xbox-link", "");
  REQUIRE(empty);
  CHECK(open_sealed(key, "xbox-link", *empty) == std::string{});
}

TEST_CASE("sealed: a value sealed by another implementation opens", "[sealed]") {
  auto key = key_of(counting_key());
  open_error why = open_error::none;
  auto opened = open_sealed(key, "xbox-link", from_hex(python_sealed), &why);
  INFO(describe(why));
  REQUIRE(opened);
  CHECK(*opened == "refresh-token-M.R3_example");
}

TEST_CASE("sealed: every changed byte is corrupt", "[sealed]") {
  auto key = key_of(counting_key());
  auto sealed = from_hex(python_sealed);
  // Byte 0 is the version and bytes 1 to 8 the key id, which fail before the tag is checked;
  // every later byte (nonce, ciphertext, tag) is covered by the tag.
  for (std::size_t i = 9; i < sealed.size(); ++i) {
    auto changed = sealed;
    changed[i] = static_cast<char>(changed[i] ^ 0x01);
    open_error why = open_error::none;
    INFO("byte " << i);
    CHECK_FALSE(open_sealed(key, "xbox-link", changed, &why));
    CHECK(why == open_error::corrupt);
  }
  open_error why = open_error::none;
  CHECK_FALSE(open_sealed(key, "xbox-link", sealed.substr(0, sealed.size() - 1), &why));
  CHECK(why == open_error::corrupt);
  CHECK_FALSE(open_sealed(key, "xbox-link", sealed + "x", &why));
  CHECK(why == open_error::corrupt);
}

TEST_CASE("sealed: another key says so instead of corrupt", "[sealed]") {
  auto key = key_of(counting_key());
  auto other = key_of(std::string(32, 'z'));
  open_error why = open_error::none;
  CHECK_FALSE(open_sealed(other, "xbox-link", from_hex(python_sealed), &why));
  CHECK(why == open_error::other_key);
  CHECK(describe(why).find("another secrets key") != std::string_view::npos);

  // A key id forged to match still fails: the tag is the key's, not the id's.
  auto forged = from_hex(python_sealed);
  forged.replace(1, 8, other.id_bytes());
  CHECK_FALSE(open_sealed(other, "xbox-link", forged, &why));
  CHECK(why == open_error::corrupt);
}

TEST_CASE("sealed: a value moved to another record does not open", "[sealed]") {
  auto key = key_of(counting_key());
  open_error why = open_error::none;
  CHECK_FALSE(open_sealed(key, "xbox-tokens", from_hex(python_sealed), &why));
  CHECK(why == open_error::corrupt);
  CHECK_FALSE(open_sealed(key, "", from_hex(python_sealed), &why));
  CHECK(why == open_error::corrupt);
}

TEST_CASE("sealed: short or unknown versions are malformed", "[sealed]") {
  auto key = key_of(counting_key());
  open_error why = open_error::none;
  CHECK_FALSE(open_sealed(key, "xbox-link", "", &why));
  CHECK(why == open_error::malformed);
  CHECK_FALSE(open_sealed(key, "xbox-link", std::string(36, '\x01'), &why));
  CHECK(why == open_error::malformed);
  auto v2 = from_hex(python_sealed);
  v2[0] = '\x02';
  CHECK_FALSE(open_sealed(key, "xbox-link", v2, &why));
  CHECK(why == open_error::malformed);
  CHECK_FALSE(sealed_key_id(v2));
}

TEST_CASE("sealed: the key file's text is base64 of 32 bytes", "[sealed]") {
  auto r = parse_secrets_key("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n");
  REQUIRE(r.key);
  CHECK(r.key->id() == "8ec656b777aca3e4");
  CHECK(r.error.empty());

  auto short_key = parse_secrets_key("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg==");
  CHECK_FALSE(short_key.key);
  CHECK(short_key.error.find("holds 31 bytes, not 32") != std::string::npos);

  auto not_b64 = parse_secrets_key("this is not base64 at all!");
  CHECK_FALSE(not_b64.key);
  CHECK(not_b64.error.find("does not hold standard base64") != std::string::npos);
  // The error never quotes what the file holds.
  CHECK(not_b64.error.find("not base64 at all") == std::string::npos);

  auto empty = parse_secrets_key(" \n");
  CHECK_FALSE(empty.key);
  CHECK(empty.error.find("is empty") != std::string::npos);
}

TEST_CASE("sealed: a new key file holds 32 fresh bytes, mode 0600, and never replaces a file",
          "[sealed]") {
  netherscope::test::temp_dir dir;
  auto path = dir.path() + "/secrets.key";
  auto other = dir.path() + "/other.key";
  // A umask that would leave a file readable by all does not reach the key.
  auto old_mask = ::umask(0);
  auto made = create_secrets_key_file(path);
  ::umask(old_mask);
  REQUIRE(made.empty());
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(st.st_size == 45);
  auto loaded = load_secrets_key(path);
  REQUIRE(loaded.key);
  CHECK(loaded.warning.empty());
  REQUIRE(create_secrets_key_file(other).empty());
  auto second = load_secrets_key(other);
  REQUIRE(second.key);
  CHECK(second.key->id() != loaded.key->id());
  // An existing file stays as it was, and no temporary is left behind.
  auto again = create_secrets_key_file(path);
  CHECK(again.find("cannot create " + path) != std::string::npos);
  CHECK(load_secrets_key(path).key->id() == loaded.key->id());
  CHECK(::access((path + ".new").c_str(), F_OK) != 0);
  // A directory that is not there: a clear error.
  CHECK(create_secrets_key_file(dir.path() + "/missing/secrets.key").find("cannot create")
        != std::string::npos);
}

TEST_CASE("sealed: the key file is read with clear errors, refused when every user may read "
          "it",
          "[sealed]") {
  netherscope::test::temp_dir dir;
  auto path = dir.path() + "/secrets.key";

  auto missing = load_secrets_key(path);
  CHECK_FALSE(missing.key);
  CHECK(missing.error.find(path + " does not exist") != std::string::npos);
  CHECK(missing.error.find("head -c 32 /dev/urandom") != std::string::npos);

  auto none = load_secrets_key("");
  CHECK_FALSE(none.key);
  CHECK(none.error.find("--secrets-key-file") != std::string::npos);

  write_file(path, "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n", 0600);
  auto good = load_secrets_key(path);
  REQUIRE(good.key);
  CHECK(good.key->id() == "8ec656b777aca3e4");
  CHECK(good.warning.empty());

  // Every user may read it: refused, naming the file and its mode.
  for (mode_t mode : {0644, 0604, 0602, 0444}) {
    CAPTURE(mode);
    REQUIRE(::chmod(path.c_str(), mode) == 0);
    auto open_to_all = load_secrets_key(path);
    CHECK_FALSE(open_to_all.key);
    CHECK(open_to_all.error.find(path) != std::string::npos);
    CHECK(open_to_all.error.find("every user") != std::string::npos);
    CHECK(open_to_all.error.find("chmod 600") != std::string::npos);
  }
  CHECK(load_secrets_key(path).error.find("mode 444") != std::string::npos);
  // Its group may read it, as a mounted Kubernetes Secret: used.
  for (mode_t mode : {0640, 0440}) {
    CAPTURE(mode);
    REQUIRE(::chmod(path.c_str(), mode) == 0);
    auto grouped = load_secrets_key(path);
    REQUIRE(grouped.key);
    CHECK(grouped.warning.empty());
  }
  // Its group may write it: used, with a warning.
  REQUIRE(::chmod(path.c_str(), 0660) == 0);
  auto loose = load_secrets_key(path);
  REQUIRE(loose.key);
  CHECK(loose.warning.find("mode 660") != std::string::npos);
  CHECK(loose.warning.find("chmod 640") != std::string::npos);

  write_file(path, "c2hvcnQ=\n", 0600);
  auto short_file = load_secrets_key(path);
  CHECK_FALSE(short_file.key);
  CHECK(short_file.error.find(path + " holds 5 bytes, not 32") != std::string::npos);

  write_file(path, std::string(5000, 'A'), 0600);
  auto large = load_secrets_key(path);
  CHECK_FALSE(large.key);
  CHECK(large.error.find("larger than 4 KiB") != std::string::npos);

  auto directory = load_secrets_key(dir.path());
  CHECK_FALSE(directory.key);
  CHECK(directory.error.find("not a regular file") != std::string::npos);
}
