// Fuzzes the check of a target's a=identity (PROTOCOL.md §2.3), layer by layer. The value is
// base64 of JSON holding JSON holding two JWS, so mutating the SDP alone would rarely get
// past the first decode; the first input byte picks the layer the rest of the input is:
//
//   0: a whole SDP answer, as a probe checks it (verify_sdp_identity);
//   1: "<digest> <digest>...\n" then the decoded a=identity JSON, which the harness encodes;
//   2: the token's claims, signed here with a P-384 key of the harness, so that the checks
//      after the signature (iat, exp, the fingerprints JWS) are reached as well. "$CPK" in the
//      claims becomes that key's base64 DER in quotes, as a NetherNet server writes its cpk,
//      and "$JWK" its public JWK, as some WebRTC stacks write it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "base/crypto.hpp"
#include "base/jose.hpp"
#include "base/text.hpp"
#include "net/nethernet/identity.hpp"
#include "net/nethernet/identity_check.hpp"
#include "tests/fuzz/fuzz_check.hpp"
#include "support/jwk.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using netherscope::fuzz::require;

namespace {

/// A moment inside the recorded fixtures' identities' minute (tests/fixtures), so that their
/// tokens are checked all the way through.
constexpr std::int64_t now_unix = 1795444130;

/// The properties every check holds, whatever it found.
void check(const identity_check& c) {
  require(c.verified == (c.code == identity_error::none), "verified exactly when no error");
  require(c.verified == c.error.empty(), "an error is described, and only an error");
  require(!c.verified || !c.key_sha256.empty(), "a verified identity names its key");
  require(c.key_sha256.empty() || c.key_sha256.size() == 64, "the key pin is SHA-256 in hex");
  require(c.key_sha256.size() == 64 || (!c.issued_at && !c.expires_at),
          "times are read only from a token whose signature verified");
  require(!to_string(c.code).empty(), "every code has a name");
}

/// Layer 1: digests on the first line, the JSON after it.
void check_json_layer(std::string_view rest) {
  auto newline = rest.find('\n');
  if (newline == std::string_view::npos)
    return;
  std::vector<std::string> digests;
  for (auto digest : split_tokens(rest.substr(0, newline), " "))
    digests.emplace_back(digest);
  auto value = base64_encode(rest.substr(newline + 1));
  auto c = verify_identity_attribute(value, digests, now_unix);
  require(c.present, "a value checked is present");
  check(c);
}

/// The harness's identity: its key, its cpk text and the fingerprints JWS over one digest.
struct signer {
  pkey_ptr key = generate_ec_key(ec_curve::p384);
  std::string cpk = '"' + base64_encode(public_key_der(*key).value()) + '"';
  std::string jwk = boost::json::serialize(ec_public_jwk(*key).value());
  std::vector<std::string> digests{"AB:CD:EF"};
  std::string fingerprints
    = sign_jws_detached(*key, {{"alg", "ES384"}}, canonical_fingerprint_payload(digests)).value();
};

/// Layer 2: the claims, signed by the harness.
void check_claims_layer(std::string_view rest) {
  static const signer self;
  std::string claims{rest};
  for (auto [name, text] : {std::pair{"$CPK", &self.cpk}, std::pair{"$JWK", &self.jwk}})
    for (auto at = claims.find(name); at != std::string::npos; at = claims.find(name, at + text->size()))
      claims.replace(at, 4, *text);
  auto token = sign_jws(*self.key, {{"alg", "ES384"}}, claims);
  require(token.has_value(), "the harness signs any claims");
  boost::json::object assertion{{"fingerprints", self.fingerprints}, {"token", *token}};
  boost::json::object outer{{"assertion", boost::json::serialize(assertion)},
                            {"idp", {{"domain", "self"}, {"protocol", "default"}}}};
  auto c = verify_identity_attribute(base64_encode(boost::json::serialize(outer)), self.digests,
                                     now_unix);
  check(c);
  require(c.code != identity_error::token_signature
            && c.code != identity_error::fingerprint_signature
            && c.code != identity_error::bad_fingerprints,
          "what the key in cpk signed verifies");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0)
    return 0;
  std::string_view rest{reinterpret_cast<const char*>(data) + 1, size - 1};
  switch (data[0] % 3) {
    case 0: {
      auto c = verify_sdp_identity(rest, now_unix);
      check(c);
      break;
    }
    case 1:
      check_json_layer(rest);
      break;
    default:
      check_claims_layer(rest);
      break;
  }
  return 0;
}
