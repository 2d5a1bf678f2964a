#include "net/xbox/services.hpp"

#include <boost/json/serialize.hpp>

#include "base/crypto.hpp"
#include "base/jose.hpp"
#include "base/json_access.hpp"
#include "base/text.hpp"
#include "net/xbox/playfab.hpp"
#include "net/xbox/read.hpp"

namespace netherscope::net::xbox {

namespace json = boost::json;

namespace {

constexpr std::string_view services_user_agent = "libhttpclient/1.0.0.0";

http_call services_call(std::string method, std::string url) {
  http_call call;
  call.method = std::move(method);
  call.url = std::move(url);
  call.headers = {{"Accept", "application/json"},
                  {"User-Agent", std::string{services_user_agent}}};
  return call;
}

// The error object of a services answer: {"code","message"}, possibly nested in innerError.
std::string services_error_code(const json::object& body) {
  const json::object* at = &body;
  for (int depth = 0; depth < 4 && at != nullptr; ++depth) {
    if (auto code = text_at(*at, "code"))
      return *code;
    if (auto number = base::int64_at(*at, "code"))
      return std::to_string(*number);
    at = base::object_at(*at, "innerError");
  }
  return {};
}

chain_error services_refusal(step s, const http_answer& answer) {
  auto body = base::parse_object(answer.body);
  auto code = body ? services_error_code(*body) : std::string{};
  bool refused = answer.status == 401 || answer.status == 403 || !code.empty();
  std::string what = refused ? "Minecraft services refused it" : "Minecraft services answered";
  what += " (HTTP " + std::to_string(answer.status);
  if (!code.empty())
    what += ", " + shown(code);
  what += ")";
  if (refused)
    what += "; it retries on the next check, and if this repeats the linked account may not "
            "own Minecraft or may be restricted";
  auto e = make_error(s, refused ? fault::services_refused : fault::bad_answer, what,
                      answer.status);
  e.provider_code = shown(code);
  return e;
}

// The "result" object of a 200 answer; nullopt with error set to the services' refusal
// otherwise.
std::optional<json::object> result_of(step s, const http_answer& answer, chain_error& error) {
  auto body = answer.status == 200 ? base::parse_object(answer.body) : std::nullopt;
  const auto* result = body ? base::object_at(*body, "result") : nullptr;
  if (result == nullptr) {
    error = services_refusal(s, answer);
    return std::nullopt;
  }
  return *result;
}

std::optional<json::object> decode_json_part(std::string_view part) {
  auto raw = base::base64url_decode(part);
  if (!raw)
    return std::nullopt;
  return base::parse_object(*raw);
}

} // namespace

std::string auth_environment::idp_domain() const {
  std::string out = issuer;
  while (!out.empty() && out.back() == '/')
    out.pop_back();
  return out + "/";
}

http_call discovery_call(const endpoints& map) {
  return services_call("GET", url_for(map, hosts::discovery,
                                      "/api/v1.0/discovery/MinecraftPE/builds/"
                                        + std::string{game_version}));
}

std::optional<auth_environment> read_discovery(const http_answer& answer, chain_error& error) {
  auto result = result_of(step::discovery, answer, error);
  if (!result)
    return std::nullopt;
  const auto* envs = base::object_at(*result, "serviceEnvironments");
  const auto* auth = envs ? base::object_at(*envs, "auth") : nullptr;
  const auto* prod = auth ? base::object_at(*auth, "prod") : nullptr;
  auto service = prod ? text_at(*prod, "serviceUri") : std::nullopt;
  auto issuer = prod ? text_at(*prod, "issuer") : std::nullopt;
  // The live answer spells it playfabTitleId and gophertunnel's reader playFabTitleId.
  const auto* title = prod ? member_icase(*prod, "playfabTitleId") : nullptr;
  if (!service || !issuer || title == nullptr || !title->is_string()) {
    error = make_error(step::discovery, fault::bad_answer,
                       "discovery lacks auth.prod's serviceUri, issuer or playfabTitleId",
                       answer.status);
    return std::nullopt;
  }
  std::string why;
  if (!acceptable_base_url(*service, why)) {
    error = make_error(step::discovery, fault::bad_answer,
                       "discovery's authorization service URI " + why, answer.status);
    return std::nullopt;
  }
  auth_environment env;
  env.service_uri = std::move(*service);
  while (!env.service_uri.empty() && env.service_uri.back() == '/')
    env.service_uri.pop_back();
  env.issuer = std::move(*issuer);
  env.playfab_title_id = std::string{base::view(title->get_string())};
  if (!base::iequals(env.playfab_title_id, minecraft_title_id)) {
    error = make_error(step::discovery, fault::bad_answer,
                       "discovery names PlayFab title " + shown(env.playfab_title_id)
                         + ", not Minecraft's 20CA2",
                       answer.status);
    return std::nullopt;
  }
  return env;
}

http_call session_start_call(const auth_environment& env, std::string_view session_ticket,
                             std::string_view device_id) {
  std::string id;
  for (char c : device_id)
    if (c != '-')
      id += c;
  json::object device{{"applicationType", "MinecraftPE"},
                      {"capabilities", json::array{}},
                      {"gameVersion", game_version},
                      {"id", id},
                      {"memory", "17179869184"},
                      {"platform", "Windows10"},
                      {"playFabTitleId", env.playfab_title_id},
                      {"storePlatform", "uwp.store"},
                      {"type", "Windows10"}};
  json::object user{{"language", "en"},
                    {"languageCode", "en-US"},
                    {"regionCode", "US"},
                    {"token", session_ticket},
                    {"tokenType", "PlayFab"}};
  auto call = services_call("POST", join_url(env.service_uri, "/api/v1.0/session/start"));
  call.content_type = "application/json";
  call.body = json::serialize(json::object{{"device", std::move(device)}, {"user", std::move(user)}});
  return call;
}

std::optional<mc_token> read_session_start(const http_answer& answer, std::int64_t received_ms,
                                           chain_error& error) {
  auto result = result_of(step::session_start, answer, error);
  if (!result)
    return std::nullopt;
  auto header = text_at(*result, "authorizationHeader");
  auto until = text_at(*result, "validUntil");
  auto expires = until ? parse_timestamp_ms(*until) : std::nullopt;
  if (!header || !expires || !base::istarts_with(*header, "MCToken ")) {
    error = make_error(step::session_start, fault::bad_answer,
                       "the session answer lacks an MCToken authorizationHeader or validUntil",
                       answer.status);
    return std::nullopt;
  }
  return mc_token{std::move(*header), times_from_server(received_ms, std::nullopt, *expires)};
}

std::optional<game_server_claims> read_game_server_claims(std::string_view jwt) {
  auto first = jwt.find('.');
  auto second = first == std::string_view::npos ? first : jwt.find('.', first + 1);
  if (second == std::string_view::npos || jwt.find('.', second + 1) != std::string_view::npos)
    return std::nullopt;
  auto header = decode_json_part(jwt.substr(0, first));
  auto payload = decode_json_part(jwt.substr(first + 1, second - first - 1));
  if (!header || !payload)
    return std::nullopt;
  game_server_claims c;
  c.alg = text_at(*header, "alg").value_or("");
  c.kid = text_at(*header, "kid").value_or("");
  c.iss = text_at(*payload, "iss").value_or("");
  c.aud = text_at(*payload, "aud").value_or("");
  c.xid = text_at(*payload, "xid").value_or("");
  c.xname = text_at(*payload, "xname").value_or("");
  if (const auto* cpk = payload->if_contains("cpk")) {
    if (cpk->is_string()) {
      c.cpk = std::string{base::view(cpk->get_string())};
    } else if (cpk->is_object()) {
      c.cpk = json::serialize(*cpk);
      c.cpk_is_jwk = true;
    }
  }
  c.iat = base::int64_at(*payload, "iat").value_or(0);
  auto exp = base::int64_at(*payload, "exp");
  if (!exp)
    return std::nullopt;
  c.exp = *exp;
  return c;
}

bool cpk_matches(const game_server_claims& claims, std::string_view spki_der) {
  if (spki_der.empty() || claims.cpk.empty())
    return false;
  if (!claims.cpk_is_jwk)
    return claims.cpk == base::base64_encode(spki_der);
  auto jwk = base::parse_object(claims.cpk);
  auto key = jwk ? base::key_from_jwk(*jwk) : nullptr;
  auto der = key ? base::public_key_der(*key) : std::nullopt;
  return der && *der == spki_der;
}

http_call multiplayer_start_call(const auth_environment& env, const mc_token& token,
                                 std::string_view spki_der) {
  auto call =
    services_call("POST", join_url(env.service_uri, "/api/v1.0/multiplayer/session/start"));
  call.content_type = "application/json";
  call.body = json::serialize(json::object{{"publicKey", base::base64_encode(spki_der)}});
  call.headers.emplace_back("Authorization", token.authorization);
  return call;
}

std::optional<game_server_token> read_multiplayer_start(const http_answer& answer,
                                                        std::string_view spki_der,
                                                        std::int64_t received_ms,
                                                        chain_error& error) {
  auto result = result_of(step::multiplayer_start, answer, error);
  if (!result)
    return std::nullopt;
  auto token = text_at(*result, "signedToken");
  auto claims = token ? read_game_server_claims(*token) : std::nullopt;
  if (!claims) {
    error = make_error(step::multiplayer_start, fault::bad_answer,
                       "the answer lacks a signedToken that is a JWT with an exp claim",
                       answer.status);
    return std::nullopt;
  }
  if (!cpk_matches(*claims, spki_der)) {
    error = make_error(step::multiplayer_start, fault::wrong_key,
                       "the GameServerToken is not bound to netherscope's identity key (its "
                       "cpk differs); servers would refuse offers signed with it",
                       answer.status);
    return std::nullopt;
  }
  game_server_token out;
  out.times = times_from_server(received_ms,
                                claims->iat > 0 ? std::optional<std::int64_t>{claims->iat * 1000}
                                                : std::nullopt,
                                claims->exp * 1000);
  out.token = std::move(*token);
  out.claims = std::move(*claims);
  return out;
}

} // namespace netherscope::net::xbox
