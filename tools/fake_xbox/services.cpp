// PlayFab and Minecraft services as the public clients meet them (docs/XBOX.md §4, §5):
// LoginWithXbox for title 20CA2, discovery (which names this fake as the authorization
// service and issuer), session start (the MCToken), multiplayer session start (the
// GameServerToken, RS256, its cpk the key posted), and the issuer's OpenID configuration and
// JWKS, so a server can verify the tokens as real servers do.
#include "router.hpp"

#include <boost/json/serialize.hpp>

#include <cctype>

namespace fake_xbox {

namespace json = boost::json;

namespace {

constexpr std::string_view audience = "api://auth-minecraft-services/multiplayer";

// PlayFab's relying parties for Minecraft's XSTS token (docs/XBOX.md §3.4).
bool playfab_relying_party(const std::string& rp) {
  return rp == "https://b980a380.minecraft.playfabapi.com/" || rp == "http://playfab.xboxlive.com/";
}

// The error numbers of the LoginWithXbox errors the fake can be told to answer.
std::int64_t playfab_error_code(const std::string& name) {
  if (name == "InvalidXboxLiveToken") return 1188;
  if (name == "ExpiredXboxLiveToken") return 1189;
  if (name == "XboxInaccessible") return 1339;
  if (name == "XboxRejectedXSTSExchangeRequest") return 1343;
  return 1000;
}

response playfab_error(const request& req, state& st, const std::string& name, std::string_view message) {
  count(st, "playfab_refused");
  return json_reply(req, http::status::bad_request,
                    {{"code", 400},
                     {"status", "BadRequest"},
                     {"error", name},
                     {"errorCode", playfab_error_code(name)},
                     {"errorMessage", message}});
}

response services_error(const request& req, state& st, int status, std::string_view code, std::string_view message) {
  count(st, "services_refused");
  return json_reply(req, static_cast<http::status>(status),
                    {{"namespace", "Authorization"}, {"code", code}, {"message", message}, {"customData", nullptr}});
}

response login_with_xbox(const request& req, state& st) {
  count(st, "playfab");
  auto body = json_body(req);
  if (!body) return playfab_error(req, st, "InvalidParams", "Invalid input parameters");
  std::string title = member(*body, "TitleId");
  for (auto& c : title) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (title != "20CA2") return playfab_error(req, st, "InvalidTitleId", "Invalid title id");
  // "XBL3.0 x=<uhs>;<token>"
  const auto value = member(*body, "XboxToken");
  const std::string prefix = "XBL3.0 x=" + st.user_hash + ";";
  if (value.rfind(prefix, 0) != 0) return playfab_error(req, st, "InvalidXboxLiveToken", "Invalid Xbox Live token");
  const auto it = st.xsts_tokens.find(value.substr(prefix.size()));
  if (it == st.xsts_tokens.end()) return playfab_error(req, st, "InvalidXboxLiveToken", "Invalid Xbox Live token");
  if (!playfab_relying_party(it->second.relying_party))
    return playfab_error(req, st, "XboxRejectedXSTSExchangeRequest", "The XSTS token is not for PlayFab");
  const auto now = st.now_ms();
  if (it->second.expires_ms <= now) return playfab_error(req, st, "ExpiredXboxLiveToken", "Expired Xbox Live token");
  if (!st.fault.playfab_error.empty()) return playfab_error(req, st, st.fault.playfab_error, "Switched on by the test");
  const auto ticket = upper_hex(random_bytes(8)) + "-" + random_token("", 48);
  st.tickets[ticket] = {now + st.cfg.playfab_s * 1000};
  const auto expires = xbox_time(now + st.cfg.playfab_s * 1000);
  return json_reply(
      req, http::status::ok,
      {{"code", 200},
       {"status", "OK"},
       {"data",
        {{"SessionTicket", ticket},
         {"PlayFabId", st.playfab_id},
         {"NewlyCreated", false},
         {"SettingsForUser", {{"NeedsAttribution", false}, {"GatherDeviceInfo", true}, {"GatherFocusInfo", true}}},
         {"LastLoginTime", xbox_time(now - 3600 * 1000)},
         {"EntityToken",
          {{"EntityToken", random_token("NHx", 48)},
           {"TokenExpiration", expires},
           {"Entity", {{"Id", "9A8B7C6D5E4F3A2B"}, {"Type", "title_player_account"}, {"TypeString", "title_player_account"}}}}},
         {"TreatmentAssignment", {{"Variants", json::array{}}, {"Variables", json::array{}}}}}}});
}

response discovery(const request& req, state& st) {
  count(st, "discovery");
  // The captured shape (SynapseAPI discovery.json), the auth environment pointing here.
  json::object auth{{"serviceUri", st.base_url}, {"issuer", st.base_url}, {"playfabTitleId", "20CA2"},
                    {"eduPlayFabTitleId", "6955F"}};
  json::object signaling{{"serviceUri", "wss://signal.invalid"}, {"stunUri", "stun:stun.invalid:3478"},
                         {"turnUri", "turn:turn.invalid:3478"}};
  return json_reply(req, http::status::ok,
                    {{"result",
                      {{"serviceEnvironments", {{"auth", {{"prod", auth}}}, {"signaling", {{"prod", signaling}}}}},
                       {"supportedEnvironments", {{"1.0.0.0", json::array{"prod"}}}}}}});
}

response session_start(const request& req, state& st) {
  count(st, "session_start");
  if (st.fault.session_status != 0)
    return services_error(req, st, st.fault.session_status, "Unauthorized", "Switched on by the test");
  auto body = json_body(req);
  const auto* user = body && body->if_contains("user") ? body->at("user").if_object() : nullptr;
  const auto* device = body && body->if_contains("device") ? body->at("device").if_object() : nullptr;
  if (user == nullptr || device == nullptr || member(*user, "tokenType") != "PlayFab" || member(*device, "id").empty())
    return services_error(req, st, 400, "BadRequest", "device and a PlayFab user are required");
  const auto now = st.now_ms();
  const auto it = st.tickets.find(member(*user, "token"));
  if (it == st.tickets.end() || it->second.expires_ms <= now)
    return services_error(req, st, 401, "InvalidPlayFabTicket", "The PlayFab session ticket is not valid");
  const auto expires = now + st.cfg.mc_s * 1000;
  const auto jwt = issuer_jwt(st, {{"iss", st.base_url + "/"},
                                   {"aud", "api://auth-minecraft-services"},
                                   {"iat", now / 1000},
                                   {"exp", expires / 1000},
                                   {"ipt", "PlayFab"},
                                   {"tid", "20CA2"},
                                   {"mid", st.playfab_id},
                                   {"pmid", upper_hex(random_bytes(8))},
                                   {"xid", st.cfg.xuid},
                                   {"xname", st.cfg.gamertag}});
  st.mc_tokens[jwt] = {expires};
  return json_reply(req, http::status::ok,
                    {{"result",
                      {{"authorizationHeader", "MCToken " + jwt},
                       {"validUntil", xbox_time(expires)},
                       {"treatments", json::array{"mc-fake-treatment"}},
                       {"configurations", {{"minecraft", {{"id", "Minecraft"}, {"parameters", json::object{}}}}}},
                       {"treatmentContext", ""}}}});
}

response multiplayer_start(const request& req, state& st) {
  count(st, "multiplayer_start");
  if (st.fault.multiplayer_status != 0)
    return services_error(req, st, st.fault.multiplayer_status, "Forbidden", "Switched on by the test");
  const auto now = st.now_ms();
  const auto header = req.find(http::field::authorization);
  const std::string value = header == req.end() ? std::string() : std::string(header->value());
  const std::string prefix = "MCToken ";
  const auto it = value.rfind(prefix, 0) == 0 ? st.mc_tokens.find(value.substr(prefix.size())) : st.mc_tokens.end();
  if (it == st.mc_tokens.end() || it->second.expires_ms <= now)
    return services_error(req, st, 401, "InvalidMCToken", "The MCToken is missing, unknown or expired");
  auto body = json_body(req);
  auto public_key = body ? member(*body, "publicKey") : std::string();
  const auto der = from_base64(public_key);
  if (!der || ec_curve_of_spki(*der) != "secp384r1")
    return services_error(req, st, 400, "InvalidPublicKey", "publicKey must be a base64 DER P-384 key");
  if (st.fault.wrong_cpk) public_key = to_base64(random_bytes(120), false);
  const auto expires = now + st.cfg.gst_s * 1000;
  const auto jwt = issuer_jwt(st, {{"iss", st.base_url + "/"},
                                   {"aud", audience},
                                   {"sub", st.playfab_id},
                                   {"iat", now / 1000},
                                   {"nbf", now / 1000},
                                   {"exp", expires / 1000},
                                   {"ipt", "PlayFab"},
                                   {"tid", "20CA2"},
                                   {"mid", st.playfab_id},
                                   {"pfcd", now / 1000},
                                   {"xid", st.cfg.xuid},
                                   {"xname", st.cfg.gamertag},
                                   {"cpk", public_key}});
  count(st, "game_server_tokens");
  return json_reply(req, http::status::ok,
                    {{"result", {{"signedToken", jwt}, {"validUntil", xbox_time(expires)}, {"issuedAt", xbox_time(now)}}}});
}

response openid_configuration(const request& req, state& st) {
  count(st, "openid_configuration");
  json::array claims;
  for (auto c : {"sub", "iss", "aud", "exp", "iat", "nbf", "ipt", "tid", "mid", "pfcd", "xid", "xname", "cpk", "pmid"})
    claims.emplace_back(c);
  return json_reply(req, http::status::ok,
                    {{"issuer", st.base_url + "/"},
                     {"jwks_uri", st.base_url + "/.well-known/keys"},
                     {"token_endpoint", st.base_url + "/api/v1.0/session/start"},
                     {"response_types_supported", json::array{"token id_token"}},
                     {"subject_types_supported", json::array{"pairwise"}},
                     {"id_token_signing_alg_values_supported", json::array{"RS256"}},
                     {"token_endpoint_auth_methods_supported", json::array{"private_key_jwt"}},
                     {"claims_supported", std::move(claims)}});
}

response jwks(const request& req, state& st) {
  count(st, "jwks");
  // As captured: no "alg", kid and x5t both the hex SHA-1 thumbprint.
  json::object key{{"kty", "RSA"}, {"use", "sig"},       {"kid", st.issuer.kid},
                   {"x5t", st.issuer.kid}, {"n", st.issuer.n}, {"e", st.issuer.e}};
  return json_reply(req, http::status::ok, {{"keys", json::array{key}}});
}

}  // namespace

response handle_services(const request& req, std::string_view path, state& st) {
  const bool get = req.method() == http::verb::get;
  const bool post = req.method() == http::verb::post;
  if (path == "/Client/LoginWithXbox" && post) return login_with_xbox(req, st);
  if (path.rfind("/api/v1.0/discovery/", 0) == 0 && get) return discovery(req, st);
  if (path == "/api/v1.0/session/start" && post) return session_start(req, st);
  if (path == "/api/v1.0/multiplayer/session/start" && post) return multiplayer_start(req, st);
  if (path == "/.well-known/openid-configuration" && get) return openid_configuration(req, st);
  if (path == "/.well-known/keys" && get) return jwks(req, st);
  return text_reply(req, http::status::not_found, "no such endpoint on the fake Xbox chain\n");
}

}  // namespace fake_xbox
