// Tests for net/xbox/playfab and net/xbox/services: LoginWithXbox, discovery, session start,
// multiplayer session start and the GameServerToken's claims, in the shapes docs/XBOX.md §4–§5
// records (the discovery answer follows the SynapseAPI capture).
#include <catch2/catch.hpp>

#include <string>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "base/crypto.hpp"
#include "base/jose.hpp"
#include "net/xbox/playfab.hpp"
#include "net/xbox/services.hpp"
#include "support/xbox_answer.hpp"
#include "support/jwk.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using netherscope::test::answer;
namespace json = boost::json;

namespace {


// The captured discovery answer, shortened to the environments the chain reads and one other.
std::string discovery_body(std::string_view title_key = "playfabTitleId",
                           std::string_view service = "https://authorization.franchise.minecraft-services.net") {
  return R"({"result":{"serviceEnvironments":{"auth":{"prod":{"serviceUri":")" + std::string{service}
         + R"(","issuer":"https://authorization.franchise.minecraft-services.net",")"
         + std::string{title_key}
         + R"(":"20CA2","eduPlayFabTitleId":"6955F"}},"signaling":{"prod":{"serviceUri":)"
           R"("wss://signal-eastus.franchise.minecraft-services.net"}}},)"
           R"("supportedEnvironments":{"1.0.0.0":["prod"]}}})";
}

auth_environment environment() {
  chain_error error;
  auto env = read_discovery(answer(200, discovery_body()), error);
  REQUIRE(env);
  return *env;
}

// A JWT with an RS256 header and the given claims; the signature part is not a signature,
// which readers of claims never look at.
std::string jwt(const json::object& claims) {
  json::object header{{"alg", "RS256"}, {"kid", "B28879DE0C1F22D3"}, {"typ", "JWT"}};
  return base64url_encode(json::serialize(header)) + "." + base64url_encode(json::serialize(claims))
         + ".c2lnbmF0dXJl";
}

} // namespace

TEST_CASE("xbox playfab: LoginWithXbox sends the XBL3.0 token for title 20CA2", "[xbox]") {
  auto call = playfab_login_call(production, "XBL3.0 x=2535405290;eyJ-xsts");
  CHECK(call.url == "https://20ca2.playfabapi.com/Client/LoginWithXbox");
  CHECK(call.content_type == "application/json");
  CHECK(call.header_value("Signature").empty());
  auto body = body_of(call);
  CHECK(body.at("TitleId") == "20CA2");
  CHECK(body.at("CreateAccount") == true);
  CHECK(body.at("XboxToken") == "XBL3.0 x=2535405290;eyJ-xsts");
}

TEST_CASE("xbox playfab: the session ticket and PlayFab's errors", "[xbox]") {
  chain_error error;
  auto session = read_playfab_login(
    answer(200, R"({"code":200,"status":"OK","data":{"SessionTicket":"8F2A-ticket",)"
                R"("PlayFabId":"8F2A6C1E0B1D4D5E","NewlyCreated":false,)"
                R"("EntityToken":{"EntityToken":"NHxhc2Rm","TokenExpiration":"2020-12-08T19:52:08.446Z",)"
                R"("Entity":{"Id":"9A8B","Type":"title_player_account"}}}})"),
    received, error);
  REQUIRE(session);
  CHECK(session->session_ticket == "8F2A-ticket");
  CHECK(session->playfab_id == "8F2A6C1E0B1D4D5E");
  CHECK(session->times.expires_ms == received + 24LL * 3600 * 1000);

  auto no_expiry = read_playfab_login(
    answer(200, R"({"code":200,"data":{"SessionTicket":"t","PlayFabId":"p"}})"), received, error);
  REQUIRE(no_expiry);
  CHECK(no_expiry->times.expires_ms - no_expiry->times.issued_ms == 24LL * 3600 * 1000);

  CHECK_FALSE(read_playfab_login(
    answer(400, R"({"code":400,"status":"BadRequest","error":"InvalidXboxLiveToken",)"
                R"("errorCode":1188,"errorMessage":"Invalid Xbox Live token eyJ-xsts"})"),
    received, error));
  CHECK(error.step == step::playfab);
  CHECK(error.fault == fault::playfab_refused);
  CHECK(error.provider_code == "InvalidXboxLiveToken");
  CHECK(error.message.find("InvalidXboxLiveToken (1188)") != std::string::npos);
  // PlayFab's own message may echo what it was sent; it never reaches ours.
  CHECK(error.message.find("eyJ-xsts") == std::string::npos);

  CHECK_FALSE(read_playfab_login(
    answer(400, R"({"code":400,"error":"XboxRejectedXSTSExchangeRequest","errorCode":1343})"),
    received, error));
  CHECK(error.message.find("relying party") != std::string::npos);

  CHECK_FALSE(read_playfab_login(answer(502, "<html>Bad gateway</html>"), received, error));
  CHECK(error.fault == fault::bad_answer);
  CHECK(error.message.find("HTTP 502") != std::string::npos);
}

TEST_CASE("xbox services: discovery names the authorization service and issuer", "[xbox]") {
  auto call = discovery_call(production);
  CHECK(call.method == "GET");
  CHECK(call.url
        == "https://client.discovery.minecraft-services.net/api/v1.0/discovery/MinecraftPE/"
           "builds/1.26.45");
  CHECK(call.body.empty());

  auto env = environment();
  CHECK(env.service_uri == "https://authorization.franchise.minecraft-services.net");
  CHECK(env.issuer == "https://authorization.franchise.minecraft-services.net");
  CHECK(env.idp_domain() == "https://authorization.franchise.minecraft-services.net/");
  CHECK(env.playfab_title_id == "20CA2");

  chain_error error;
  // gophertunnel's spelling of the key reads the same.
  CHECK(read_discovery(answer(200, discovery_body("playFabTitleId")), error));
  // A loopback fake may serve it over plain HTTP; nothing else may.
  auto fake = read_discovery(answer(200, discovery_body("playfabTitleId", "http://127.0.0.1:4000/")),
                             error);
  REQUIRE(fake);
  CHECK(fake->service_uri == "http://127.0.0.1:4000");
  CHECK_FALSE(read_discovery(answer(200, discovery_body("playfabTitleId", "http://203.0.113.9")),
                             error));
  CHECK(error.message.find("not loopback") != std::string::npos);
  CHECK_FALSE(read_discovery(answer(200, discovery_body("titleId")), error));
  CHECK(error.fault == fault::bad_answer);
  CHECK_FALSE(read_discovery(answer(503, R"({"code":"ServiceUnavailable","message":"x"})"), error));
  CHECK(error.fault == fault::services_refused);
  CHECK(error.provider_code == "ServiceUnavailable");
}

TEST_CASE("xbox services: session start trades the PlayFab ticket for an MCToken", "[xbox]") {
  auto call = session_start_call(environment(), "8F2A-ticket", "8f2a6c1e-0b1d-4d5e-9f00-1234567890ab");
  CHECK(call.url
        == "https://authorization.franchise.minecraft-services.net/api/v1.0/session/start");
  CHECK(call.header_value("Authorization").empty());
  auto body = body_of(call);
  const auto& device = body.at("device").as_object();
  CHECK(device.at("applicationType") == "MinecraftPE");
  CHECK(device.at("id") == "8f2a6c1e0b1d4d5e9f001234567890ab");
  CHECK(device.at("playFabTitleId") == "20CA2");
  CHECK(device.at("platform") == "Windows10");
  const auto& user = body.at("user").as_object();
  CHECK(user.at("token") == "8F2A-ticket");
  CHECK(user.at("tokenType") == "PlayFab");

  chain_error error;
  auto token = read_session_start(
    answer(200, R"({"result":{"authorizationHeader":"MCToken eyJhbGciOi.mc",)"
                R"("validUntil":"2020-12-07T20:52:08.446Z","treatments":["mc-a"],)"
                R"("configurations":{"minecraft":{"id":"Minecraft","parameters":{}}},)"
                R"("treatmentContext":"x"}})"),
    received, error);
  REQUIRE(token);
  CHECK(token->authorization == "MCToken eyJhbGciOi.mc");
  CHECK(token->times.expires_ms == received + 3600 * 1000);

  CHECK_FALSE(read_session_start(
    answer(401, R"({"namespace":"Authorization","code":"InvalidPlayFabTicket","message":"no"})"),
    received, error));
  CHECK(error.step == step::session_start);
  CHECK(error.fault == fault::services_refused);
  CHECK(error.provider_code == "InvalidPlayFabTicket");
  CHECK_FALSE(read_session_start(
    answer(200, R"({"result":{"authorizationHeader":"Bearer x","validUntil":"2020-12-07T20:52:08Z"}})"),
    received, error));
  CHECK(error.fault == fault::bad_answer);
}

TEST_CASE("xbox services: the GameServerToken is minted for our key, and its claims read",
          "[xbox]") {
  auto key = generate_ec_key(ec_curve::p384);
  REQUIRE(key);
  auto spki = public_key_der(*key);
  REQUIRE(spki);
  mc_token mc{"MCToken eyJ.mc", {}};
  auto call = multiplayer_start_call(environment(), mc, *spki);
  CHECK(call.url
        == "https://authorization.franchise.minecraft-services.net/api/v1.0/multiplayer/session/"
           "start");
  CHECK(call.header_value("Authorization") == "MCToken eyJ.mc");
  CHECK(body_of(call).at("publicKey") == base64_encode(*spki).c_str());

  json::object claims{{"iss", "https://authorization.franchise.minecraft-services.net/"},
                      {"aud", "api://auth-minecraft-services/multiplayer"},
                      {"sub", "8F2A"},
                      {"iat", 1607370728},
                      {"exp", 1607374328},
                      {"ipt", "PlayFab"},
                      {"tid", "20CA2"},
                      {"xid", "2535405290123456"},
                      {"xname", "Steve Probe"},
                      {"cpk", base64_encode(*spki)}};
  auto token = jwt(claims);
  auto body = R"({"result":{"signedToken":")" + token
              + R"(","validUntil":"2020-12-07T20:52:08Z","issuedAt":"2020-12-07T19:52:08Z"}})";
  chain_error error;
  auto gst = read_multiplayer_start(answer(200, body), *spki, received + 2000, error);
  REQUIRE(gst);
  CHECK(gst->token == token);
  CHECK(gst->claims.alg == "RS256");
  CHECK(gst->claims.kid == "B28879DE0C1F22D3");
  CHECK(gst->claims.xid == "2535405290123456");
  CHECK(gst->claims.xname == "Steve Probe");
  CHECK(gst->claims.aud == game_server_audience);
  CHECK(gst->claims.exp == 1607374328);
  CHECK(gst->times.issued_ms == received + 2000);
  CHECK(gst->times.expires_ms == received + 2000 + 3600 * 1000);

  // A token for another key is refused before anyone could sign an offer with it.
  auto other = generate_ec_key(ec_curve::p384);
  REQUIRE(other);
  auto other_spki = public_key_der(*other);
  REQUIRE(other_spki);
  CHECK_FALSE(read_multiplayer_start(answer(200, body), *other_spki, received, error));
  CHECK(error.fault == fault::wrong_key);
  CHECK(error.message.find(token) == std::string::npos);

  // Some tokens write cpk as a JWK object; it must name the same key.
  auto jwk = ec_public_jwk(*key);
  REQUIRE(jwk);
  claims["cpk"] = *jwk;
  auto jwk_claims = read_game_server_claims(jwt(claims));
  REQUIRE(jwk_claims);
  CHECK(jwk_claims->cpk_is_jwk);
  CHECK(cpk_matches(*jwk_claims, *spki));
  CHECK_FALSE(cpk_matches(*jwk_claims, *other_spki));

  CHECK_FALSE(read_game_server_claims("not.a-jwt"));
  CHECK_FALSE(read_game_server_claims("a.b.c.d"));
  claims.erase("exp");
  CHECK_FALSE(read_game_server_claims(jwt(claims)));
  CHECK_FALSE(read_multiplayer_start(
    answer(403, R"({"innerError":{"code":"Forbidden"},"message":"x"})"), *spki, received, error));
  CHECK(error.fault == fault::services_refused);
  CHECK(error.provider_code == "Forbidden");
}
