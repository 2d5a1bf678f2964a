#include <catch2/catch.hpp>

#include <ctime>

#include "base/crypto.hpp"
#include "app/identity.hpp"
#include "net/nethernet/identity.hpp"
#include "support/process.hpp"
#include "support/store.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

std::string public_der(const EVP_PKEY& key) {
  auto der = base::public_key_der(key);
  REQUIRE(der);
  return *der;
}

} // namespace

TEST_CASE("identity store: created once, the same after reopening", "[storage]") {
  test::temp_dir dir;
  std::string fingerprint;
  std::string identity_key;
  {
    auto store = test::open_lmdb(dir.path()).store;
    auto id = load_or_create_identity(*store, std::time(nullptr));
    REQUIRE(id);
    fingerprint = (*id)->fingerprint;
    identity_key = public_der(*(*id)->identity_key);
  }
  auto store = test::open_lmdb(dir.path()).store;
  auto again = load_or_create_identity(*store, std::time(nullptr));
  REQUIRE(again);
  CHECK((*again)->fingerprint == fingerprint);
  CHECK(public_der(*(*again)->identity_key) == identity_key);
}

TEST_CASE("identity store: an expiring certificate is renewed, the key kept", "[storage]") {
  test::temp_dir dir;
  auto store = test::open_lmdb(dir.path()).store;
  auto now = std::time(nullptr);
  auto first = load_or_create_identity(*store, now);
  REQUIRE(first);
  // Eleven months later the one-year certificate is within 30 days of expiry.
  auto later = load_or_create_identity(*store, now + 340 * 24 * 3600);
  REQUIRE(later);
  CHECK((*later)->fingerprint != (*first)->fingerprint);
  CHECK(public_der(*(*later)->identity_key) == public_der(*(*first)->identity_key));
  // And the renewal was stored. (The new certificate's validity starts from the real clock,
  // so it is read back at the real time.)
  auto stored = load_or_create_identity(*store, now);
  REQUIRE(stored);
  CHECK((*stored)->fingerprint == (*later)->fingerprint);
}

TEST_CASE("identity store: a damaged record is an error, never replaced", "[storage]") {
  test::temp_dir dir;
  auto store = test::open_lmdb(dir.path()).store;
  const std::string damaged("\x01garbage", 8);
  auto written = store->load_or_replace_record(
    "identity", [&](std::optional<std::string_view>) -> caf::expected<std::optional<std::string>> {
      return std::optional<std::string>{damaged};
    });
  REQUIRE(written);
  CHECK_FALSE(load_or_create_identity(*store, std::time(nullptr)));
  // Still the damaged bytes: nothing replaced them.
  auto kept = store->load_or_replace_record(
    "identity", [](std::optional<std::string_view>) -> caf::expected<std::optional<std::string>> {
      return std::optional<std::string>{};
    });
  REQUIRE(kept);
  CHECK(*kept == damaged);
}

TEST_CASE("identity store: record encoding round trip and truncation", "[storage]") {
  net::nethernet::identity_blob blob{"key", std::string("cert\0der", 8), "identity"};
  auto record = net::nethernet::encode_identity(blob);
  auto back = net::nethernet::decode_identity(record);
  REQUIRE(back);
  CHECK(back->dtls_key_der == "key");
  CHECK(back->dtls_cert_der == std::string("cert\0der", 8));
  CHECK(back->identity_key_der == "identity");
  for (std::size_t n = 0; n < record.size(); ++n)
    CHECK_FALSE(net::nethernet::decode_identity(record.substr(0, n)));
  CHECK_FALSE(net::nethernet::decode_identity(record + "x"));
  auto wrong_version = record;
  wrong_version[0] = 2;
  CHECK_FALSE(net::nethernet::decode_identity(wrong_version));
}
