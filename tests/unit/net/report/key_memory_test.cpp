// Whether an answer's identity key changed since the last verified one.
#include <catch2/catch.hpp>

#include <ctime>

#include <boost/json.hpp>

#include "net/nethernet/identity.hpp"
#include "net/nethernet/identity_check.hpp"
#include "net/nethernet/sdp_offer.hpp"
#include "net/report/key_memory.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

const std::string key_a(64, 'a');
const std::string key_b(64, 'b');

identity_check verified(const std::string& key) {
  identity_check id;
  id.present = true;
  id.verified = true;
  id.key_sha256 = key;
  return id;
}

// A real SDP signed by a fresh identity, as a server's answer carries one.
std::string signed_sdp(const local_identity& id, std::int64_t now) {
  auto params = make_offer_parameters(id, now);
  REQUIRE(params);
  return build_offer(*params);
}

} // namespace

TEST_CASE("key memory: first sight, same key, changed key", "[key_memory]") {
  auto first = compare_identity_key(verified(key_a), "");
  CHECK_FALSE(first.key_changed);
  CHECK(first.key_to_store == key_a);

  auto same = compare_identity_key(verified(key_a), key_a);
  REQUIRE(same.key_changed);
  CHECK_FALSE(*same.key_changed);
  // Nothing to write when nothing changed.
  CHECK(same.key_to_store.empty());

  auto changed = compare_identity_key(verified(key_b), key_a);
  REQUIRE(changed.key_changed);
  CHECK(*changed.key_changed);
  CHECK(changed.previous_key == key_a);
  CHECK(changed.key_to_store == key_b);
}

TEST_CASE("key memory: an unverified identity is neither compared nor remembered",
          "[key_memory]") {
  auto unverified = verified(key_b);
  unverified.verified = false;
  unverified.code = identity_error::expired;
  auto result = compare_identity_key(unverified, key_a);
  CHECK_FALSE(result.key_changed);
  CHECK(result.key_to_store.empty());
  auto absent = compare_identity_key(identity_check{}, key_a);
  CHECK_FALSE(absent.key_changed);
  CHECK(absent.key_to_store.empty());
}

TEST_CASE("key memory: real identities, verified, compared across a key change",
          "[key_memory]") {
  auto now = static_cast<std::int64_t>(std::time(nullptr));
  auto server = make_local_identity();
  auto rotated = make_local_identity();
  REQUIRE(server);
  REQUIRE(rotated);
  auto before = verify_sdp_identity(signed_sdp(*server, now), now);
  REQUIRE(before.verified);
  auto again = verify_sdp_identity(signed_sdp(*server, now), now);
  auto after = verify_sdp_identity(signed_sdp(*rotated, now), now);
  REQUIRE(after.verified);

  auto first = compare_identity_key(before, "");
  CHECK(first.key_to_store == before.key_sha256);
  CHECK(*compare_identity_key(again, first.key_to_store).key_changed == false);
  auto change = compare_identity_key(after, first.key_to_store);
  CHECK(*change.key_changed);
  CHECK(change.previous_key == before.key_sha256);
}
