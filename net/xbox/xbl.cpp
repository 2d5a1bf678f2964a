#include "net/xbox/xbl.hpp"

#include <boost/json/serialize.hpp>

#include "base/json_access.hpp"
#include "net/xbox/live.hpp"
#include "net/xbox/read.hpp"
#include "net/xbox/xerr.hpp"

namespace netherscope::net::xbox {

namespace json = boost::json;

namespace {

constexpr std::string_view json_type = "application/json";

http_call json_call(const endpoints& map, std::string_view host, std::string_view path,
                    const json::object& body) {
  http_call call;
  call.method = "POST";
  call.url = url_for(map, host, path);
  call.content_type = std::string{json_type};
  call.body = json::serialize(body);
  call.headers = {{"x-xbl-contract-version", "1"},
                  {"Accept", "application/json"},
                  {"User-Agent", std::string{xal_user_agent}}};
  return call;
}

// The XErr of a refusal: the X-Err header first (SISU sends only that), else the body's
// XErr member (XSTS sends both); 0 when there is none.
std::uint32_t xerr_of(const http_answer& answer) {
  if (auto code = parse_xerr(answer.header_value("X-Err")); code != 0)
    return code;
  auto body = base::parse_object(answer.body);
  if (!body)
    return 0;
  if (auto number = base::int64_at(*body, "XErr"); number && *number > 0 && *number <= 0xFFFFFFFF)
    return static_cast<std::uint32_t>(*number);
  if (const auto* text = base::string_at(*body, "XErr"))
    return parse_xerr(base::view(*text));
  return 0;
}

// The error for an answer that is not a 200 with a token: xbox_refused with the XErr's words
// when it carries one, bad_answer otherwise.
chain_error refusal(step s, const http_answer& answer) {
  if (auto code = xerr_of(answer); code != 0) {
    auto e = make_error(s, fault::xbox_refused, describe_xerr(code), answer.status);
    e.xerr = code;
    return e;
  }
  if (answer.status == 200)
    return make_error(s, fault::bad_answer, "Xbox's answer lacks the token or its expiry",
                      answer.status);
  return make_error(s, fault::bad_answer,
                    "Xbox answered HTTP " + std::to_string(answer.status) + " without an XErr",
                    answer.status);
}

// Reads {"IssueInstant", "NotAfter", "Token"} of one token object.
std::optional<timed_token> read_token_object(const json::object& o, std::int64_t received_ms) {
  auto token = text_at(o, "Token");
  auto not_after = text_at(o, "NotAfter");
  if (!token || !not_after)
    return std::nullopt;
  auto expires = parse_timestamp_ms(*not_after);
  if (!expires)
    return std::nullopt;
  std::optional<std::int64_t> issued;
  if (auto instant = text_at(o, "IssueInstant"))
    issued = parse_timestamp_ms(*instant);
  return timed_token{std::move(*token), times_from_server(received_ms, issued, *expires)};
}

// The first entry of DisplayClaims.xui, or null.
const json::object* first_user_claims(const json::object& token) {
  const auto* claims = base::object_at(token, "DisplayClaims");
  const auto* xui = claims ? array_at(*claims, "xui") : nullptr;
  if (xui == nullptr || xui->empty())
    return nullptr;
  return xui->front().if_object();
}

} // namespace

http_call device_token_call(const endpoints& map, std::string_view device_id,
                            const json::object& proof_key) {
  json::object properties{{"AuthMethod", "ProofOfPossession"},
                          {"Id", "{" + std::string{device_id} + "}"},
                          {"DeviceType", device_type},
                          {"Version", "13"},
                          {"ProofKey", proof_key}};
  return json_call(map, hosts::device_auth, "/device/authenticate",
                   {{"RelyingParty", "http://auth.xboxlive.com"},
                    {"TokenType", "JWT"},
                    {"Properties", std::move(properties)}});
}

std::optional<timed_token> read_device_token(const http_answer& answer, std::int64_t received_ms,
                                            chain_error& error) {
  auto body = base::parse_object(answer.body);
  if (answer.status == 200 && body)
    if (auto token = read_token_object(*body, received_ms))
      return token;
  error = refusal(step::device_token, answer);
  return std::nullopt;
}

http_call sisu_call(const endpoints& map, std::string_view access_token,
                    std::string_view device_token, const json::object& proof_key) {
  return json_call(map, hosts::sisu, "/authorize",
                   {{"AccessToken", "t=" + std::string{access_token}},
                    {"AppId", live_client_id},
                    {"DeviceToken", device_token},
                    {"Sandbox", "RETAIL"},
                    {"UseModernGamertag", true},
                    {"SiteName", "user.auth.xboxlive.com"},
                    {"RelyingParty", xbox_relying_party},
                    {"ProofKey", proof_key}});
}

std::optional<sisu_tokens> read_sisu(const http_answer& answer, std::int64_t received_ms,
                                     chain_error& error) {
  auto body = base::parse_object(answer.body);
  if (answer.status != 200 || !body) {
    error = refusal(step::sisu, answer);
    return std::nullopt;
  }
  const auto* user = base::object_at(*body, "UserToken");
  const auto* title = base::object_at(*body, "TitleToken");
  const auto* authorization = base::object_at(*body, "AuthorizationToken");
  std::optional<timed_token> user_token, title_token, authorization_token;
  if (user)
    user_token = read_token_object(*user, received_ms);
  if (title)
    title_token = read_token_object(*title, received_ms);
  if (authorization)
    authorization_token = read_token_object(*authorization, received_ms);
  if (!user_token || !title_token || !authorization_token) {
    error = make_error(step::sisu, fault::bad_answer,
                       "Xbox's answer lacks the user, title or authorization token",
                       answer.status);
    return std::nullopt;
  }
  const auto* claims = first_user_claims(*authorization);
  std::optional<std::string> uhs, xid, gamertag;
  if (claims) {
    uhs = text_at(*claims, "uhs");
    xid = text_at(*claims, "xid");
    gamertag = text_at(*claims, "gtg");
    if (!gamertag)
      gamertag = text_at(*claims, "mgt");
  }
  if (!uhs || !xid || !gamertag) {
    error = make_error(step::sisu, fault::bad_answer,
                       "Xbox's authorization token does not name the account (uhs, xid, gtg)",
                       answer.status);
    return std::nullopt;
  }
  sisu_tokens out;
  out.user = std::move(*user_token);
  out.title = std::move(*title_token);
  out.authorization = std::move(*authorization_token);
  out.user_hash = std::move(*uhs);
  out.xuid = std::move(*xid);
  out.gamertag = std::move(*gamertag);
  return out;
}

http_call xsts_call(const endpoints& map, std::string_view relying_party,
                    std::string_view device_token, std::string_view title_token,
                    std::string_view user_token) {
  json::object properties{{"SandboxId", "RETAIL"},
                          {"DeviceToken", device_token},
                          {"TitleToken", title_token},
                          {"UserTokens", json::array{json::value(user_token)}}};
  return json_call(map, hosts::xsts, "/xsts/authorize",
                   {{"RelyingParty", relying_party},
                    {"TokenType", "JWT"},
                    {"Properties", std::move(properties)}});
}

std::optional<xsts_token> read_xsts(const http_answer& answer, std::int64_t received_ms,
                                    chain_error& error) {
  auto body = base::parse_object(answer.body);
  if (answer.status == 200 && body) {
    auto token = read_token_object(*body, received_ms);
    const auto* claims = first_user_claims(*body);
    auto uhs = claims ? text_at(*claims, "uhs") : std::nullopt;
    if (token && uhs)
      return xsts_token{std::move(*token), std::move(*uhs)};
  }
  error = refusal(step::xsts, answer);
  return std::nullopt;
}

std::string xbl3_authorization(std::string_view user_hash, std::string_view token) {
  return "XBL3.0 x=" + std::string{user_hash} + ";" + std::string{token};
}

} // namespace netherscope::net::xbox
