// Minecraft services (docs/XBOX.md §5): discovery names the authorization service and its
// issuer; session start trades the PlayFab session ticket for an MCToken; multiplayer session
// start trades the MCToken and our P-384 identity public key for the GameServerToken, an RS256
// JWT whose `cpk` claim is that key. We are the client: the token's claims are read, not
// verified (the servers verify it against the issuer's JWKS).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "net/xbox/chain_error.hpp"
#include "net/xbox/endpoints.hpp"
#include "net/xbox/timing.hpp"
#include "net/xbox/wire.hpp"

namespace netherscope::net::xbox {

/// The game version discovery and session start name; services accept any recent one.
constexpr std::string_view game_version = "1.26.45";

/// The audience of a GameServerToken.
constexpr std::string_view game_server_audience = "api://auth-minecraft-services/multiplayer";

/// The authorization service as discovery names it.
struct auth_environment {
  /// The base URL of session start and multiplayer session start.
  std::string service_uri;
  /// The issuer of the tokens, as discovery writes it (without a trailing slash).
  std::string issuer;
  /// The PlayFab title it expects (20CA2).
  std::string playfab_title_id;

  /// The issuer with exactly one trailing "/": the tokens' `iss` and the `idp.domain` of the
  /// offer's a=identity (docs/XBOX.md §5.1).
  std::string idp_domain() const;
};

/// GET /api/v1.0/discovery/MinecraftPE/builds/<game_version>.
http_call discovery_call(const endpoints& map);

/// Reads result.serviceEnvironments.auth.prod (playfabTitleId matched without letter case).
/// The service URI must be an acceptable base URL (https, or http to loopback) and the title
/// 20CA2; nullopt with error set otherwise.
std::optional<auth_environment> read_discovery(const http_answer& answer, chain_error& error);

/// The MCToken: the Authorization value of multiplayer session start.
struct mc_token {
  /// "MCToken eyJ…", sent verbatim.
  std::string authorization;
  token_times times;
};

/// POST {service}/api/v1.0/session/start with the PlayFab ticket; device_id is the link's
/// device id (a UUID; sent without dashes).
http_call session_start_call(const auth_environment& env, std::string_view session_ticket,
                             std::string_view device_id);

/// Reads result.authorizationHeader and result.validUntil; a services error body
/// ({"code","message"}) is services_refused.
std::optional<mc_token> read_session_start(const http_answer& answer, std::int64_t received_ms,
                                           chain_error& error);

/// What a GameServerToken says, read without verifying it.
struct game_server_claims {
  /// The header's alg (RS256) and kid.
  std::string alg;
  std::string kid;
  std::string iss;
  std::string aud;
  /// The account's XUID and gamertag.
  std::string xid;
  std::string xname;
  /// The cpk claim: base64 DER SubjectPublicKeyInfo, or a JWK serialized as JSON when the
  /// token wrote an object.
  std::string cpk;
  bool cpk_is_jwk = false;
  /// Unix seconds; iat 0 when absent.
  std::int64_t iat = 0;
  std::int64_t exp = 0;
};

/// Takes a compact JWT apart and reads the claims above; nullopt when it is not a JWT with a
/// JSON header and payload, or lacks exp.
std::optional<game_server_claims> read_game_server_claims(std::string_view jwt);

/// Whether the claims' cpk names the key whose DER SubjectPublicKeyInfo is spki_der.
bool cpk_matches(const game_server_claims& claims, std::string_view spki_der);

/// A GameServerToken ready for the offer's a=identity.
struct game_server_token {
  /// The compact JWT; never logged.
  std::string token;
  game_server_claims claims;
  /// Its times on our clock, from iat and exp.
  token_times times;
};

/// POST {service}/api/v1.0/multiplayer/session/start with the MCToken and
/// {"publicKey": base64 of spki_der}.
http_call multiplayer_start_call(const auth_environment& env, const mc_token& token,
                                 std::string_view spki_der);

/// Reads result.signedToken; the token's cpk must be spki_der's key (wrong_key otherwise).
std::optional<game_server_token> read_multiplayer_start(const http_answer& answer,
                                                        std::string_view spki_der,
                                                        std::int64_t received_ms,
                                                        chain_error& error);

} // namespace netherscope::net::xbox
