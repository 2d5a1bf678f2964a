// The Xbox Live hosts as the public clients meet them (docs/XBOX.md §3): the device token for
// a proof key (the Signature checked with the body's ProofKey), SISU (signed with the same
// key, which the device token must be bound to), the separate user and title tokens of
// prismarine-auth's flow, and XSTS, which MinecraftAuth sends unsigned: a Signature there is
// checked against the device token's key when present. Refusals carry the XErr as Xbox sends
// it: SISU in the X-Err header (with X-SessionId), XSTS in the header and in the body.
#include "router.hpp"

namespace fake_xbox {

namespace json = boost::json;

namespace {

// The XErrs of refused input tokens (xsapi_utils): expired and invalid device, user tokens.
constexpr std::uint32_t expired_device = 2148916256u;
constexpr std::uint32_t expired_user = 2148916258u;
constexpr std::uint32_t invalid_device = 2148916259u;
constexpr std::uint32_t invalid_user = 2148916261u;

// Where an XErr sends a person (the Redirect and WebPage members).
std::string redirect_of(std::uint32_t xerr) {
  if (xerr == 2148916233u) return "https://start.ui.xboxlive.com/CreateAccount";
  if (xerr == 2148916238u) return "https://start.ui.xboxlive.com/AddChildToFamily";
  return "https://www.xbox.com/errorhelp/" + std::to_string(xerr);
}

response sisu_refusal(const request& req, std::uint32_t xerr) {
  auto res = json_reply(req, http::status::unauthorized, {{"WebPage", redirect_of(xerr)}});
  res.set("X-Err", std::to_string(xerr));
  res.set("X-SessionId", to_base64(random_bytes(12), true));
  res.set(http::field::www_authenticate, "XASU error=" + std::to_string(xerr));
  return res;
}

response xsts_refusal(const request& req, std::uint32_t xerr) {
  auto res = json_reply(req, http::status::unauthorized,
                        {{"Identity", "0"}, {"XErr", xerr}, {"Message", ""}, {"Redirect", redirect_of(xerr)}});
  res.set("X-Err", std::to_string(xerr));
  return res;
}

response bad_request(const request& req, state& st, const std::string& why) {
  count(st, "requests_refused");
  return text_reply(req, http::status::bad_request, why + "\n");
}

response unauthorized(const request& req, state& st, const std::string& why) {
  count(st, "signatures_rejected");
  auto res = text_reply(req, http::status::unauthorized, why + "\n");
  res.set(http::field::www_authenticate, "XASD error=signature");
  return res;
}

bool has_contract_version(const request& req) {
  const auto it = req.find("x-xbl-contract-version");
  return it != req.end() && !it->value().empty();
}

json::object token_answer(const std::string& token, std::int64_t now, std::int64_t lifetime_s,
                          json::object display_claims) {
  return {{"IssueInstant", xbox_time(now)},
          {"NotAfter", xbox_time(now + lifetime_s * 1000)},
          {"Token", token},
          {"DisplayClaims", std::move(display_claims)}};
}

json::object user_claims(const state& st, bool with_identity) {
  json::object xui{{"uhs", st.user_hash}};
  if (with_identity) {
    xui["gtg"] = st.cfg.gamertag;
    xui["mgt"] = st.cfg.gamertag;
    xui["xid"] = st.cfg.xuid;
    xui["agg"] = "Adult";
    xui["usr"] = "195 189";
    xui["utr"] = "190";
    xui["prv"] = "184 185 186 187 188 191 192 193 196 198 199 200 201 203 204 205 206 208 211 217 220 224 227 "
                 "228 235 238 245 247 249 252 254 255";
  }
  return {{"xui", json::array{xui}}};
}

// The proof key of a body's Properties.ProofKey (device, title) or ProofKey (SISU).
pkey proof_key_of(const json::object* key_object, std::string* x = nullptr, std::string* y = nullptr) {
  if (key_object == nullptr || member(*key_object, "kty") != "EC" || member(*key_object, "crv") != "P-256")
    return nullptr;
  if (x) *x = member(*key_object, "x");
  if (y) *y = member(*key_object, "y");
  return p256_from_jwk(member(*key_object, "x"), member(*key_object, "y"));
}

response device_authenticate(const request& req, state& st) {
  count(st, "device_token");
  auto body = json_body(req);
  if (!body || !has_contract_version(req)) return bad_request(req, st, "a JSON body and x-xbl-contract-version are required");
  const auto* props = body->if_contains("Properties") ? body->at("Properties").if_object() : nullptr;
  if (member(*body, "RelyingParty") != "http://auth.xboxlive.com" || member(*body, "TokenType") != "JWT" ||
      props == nullptr || member(*props, "AuthMethod") != "ProofOfPossession" || member(*props, "Id").empty() ||
      member(*props, "DeviceType").empty())
    return bad_request(req, st, "the body is not a device authentication request");
  std::string x, y;
  const auto* key_value = props->if_contains("ProofKey");
  auto key = proof_key_of(key_value ? key_value->if_object() : nullptr, &x, &y);
  if (!key) return bad_request(req, st, "Properties.ProofKey is not a P-256 JWK");
  if (auto why = check_signature(req, key.get(), st); !why.empty()) return unauthorized(req, st, why);
  count(st, "signatures_verified");
  const auto now = st.now_ms();
  const auto token = random_token("eyJlbmMiOiJBMTI4Q0JDK0hTMjU2IiwiYWxnIjoiUlNBLU9BRVAifQ.device.", 48);
  st.device_tokens[token] = {now + st.cfg.device_s * 1000, x, y};
  return json_reply(req, http::status::ok,
                    token_answer(token, now, st.cfg.device_s,
                                 {{"xdi", {{"did", "F700D2B1" + upper_hex(random_bytes(4))}, {"dcs", "0"}}}}));
}

// Checks a device token from a body: known, unexpired and, when key material is given, bound
// to it. 0 when good, else the XErr to refuse with.
std::uint32_t check_device_token(const state& st, const std::string& token, const std::string* x,
                                 const std::string* y) {
  const auto it = st.device_tokens.find(token);
  if (it == st.device_tokens.end() || (x && (it->second.x != *x || it->second.y != *y))) return invalid_device;
  if (it->second.expires_ms <= st.now_ms()) return expired_device;
  return 0;
}

std::uint32_t check_plain(const std::map<std::string, plain_token>& tokens, const std::string& token,
                          std::int64_t now) {
  const auto it = tokens.find(token);
  if (it == tokens.end()) return invalid_user;
  if (it->second.expires_ms <= now) return expired_user;
  return 0;
}

// The MSA access token of "t=<token>" (or "d=" for Azure tokens), or "".
std::string rps_ticket(const std::string& value) {
  if (value.size() > 2 && (value.rfind("t=", 0) == 0 || value.rfind("d=", 0) == 0)) return value.substr(2);
  return {};
}

std::pair<std::string, json::object> issue_user_token(state& st, std::int64_t now, bool with_identity) {
  auto token = random_token("eyJ.user.", 48);
  st.user_tokens[token] = {now + st.cfg.user_s * 1000};
  return {token, token_answer(token, now, st.cfg.user_s, user_claims(st, with_identity))};
}

std::pair<std::string, json::object> issue_title_token(state& st, std::int64_t now) {
  auto token = random_token("eyJ.title.", 48);
  st.title_tokens[token] = {now + st.cfg.user_s * 1000};
  return {token, token_answer(token, now, st.cfg.user_s, {{"xti", {{"tid", "1739947436"}}}})};
}

std::pair<std::string, json::object> issue_xsts(state& st, std::int64_t now, const std::string& relying_party) {
  auto token = random_token("eyJ.xsts.", 48);
  st.xsts_tokens[token] = {now + st.cfg.xsts_s * 1000, relying_party};
  return {token, token_answer(token, now, st.cfg.xsts_s, user_claims(st, relying_party == "http://xboxlive.com"))};
}

response sisu_authorize(const request& req, state& st) {
  count(st, "sisu");
  auto body = json_body(req);
  if (!body) return bad_request(req, st, "a JSON body is required");
  std::string x, y;
  const auto* key_value = body->if_contains("ProofKey");
  auto key = proof_key_of(key_value ? key_value->if_object() : nullptr, &x, &y);
  if (!key) return bad_request(req, st, "ProofKey is not a P-256 JWK");
  if (auto why = check_signature(req, key.get(), st); !why.empty()) return unauthorized(req, st, why);
  count(st, "signatures_verified");
  if (member(*body, "AppId").empty() || member(*body, "RelyingParty").empty() || member(*body, "Sandbox") != "RETAIL")
    return bad_request(req, st, "AppId, RelyingParty and Sandbox RETAIL are required");
  if (auto xerr = check_device_token(st, member(*body, "DeviceToken"), &x, &y)) return sisu_refusal(req, xerr);
  if (auto xerr = check_plain(st.access_tokens, rps_ticket(member(*body, "AccessToken")), st.now_ms()))
    return sisu_refusal(req, xerr);
  if (st.fault.sisu_xerr != 0) return sisu_refusal(req, st.fault.sisu_xerr);
  const auto now = st.now_ms();
  auto user_json = issue_user_token(st, now, false).second;
  auto title_json = issue_title_token(st, now).second;
  auto authorization_json = issue_xsts(st, now, member(*body, "RelyingParty")).second;
  return json_reply(req, http::status::ok,
                    {{"DeviceToken", member(*body, "DeviceToken")},
                     {"TitleToken", std::move(title_json)},
                     {"UserToken", std::move(user_json)},
                     {"AuthorizationToken", std::move(authorization_json)},
                     {"WebPage", "https://sisu.xboxlive.com/client/v33/default/view/index.html"},
                     {"Sandbox", "RETAIL"},
                     {"UseModernGamertag", true}});
}

response user_authenticate(const request& req, state& st) {
  count(st, "user_token");
  auto body = json_body(req);
  const auto* props = body && body->if_contains("Properties") ? body->at("Properties").if_object() : nullptr;
  if (!body || props == nullptr || member(*props, "AuthMethod") != "RPS")
    return bad_request(req, st, "the body is not a user authentication request");
  if (auto xerr = check_plain(st.access_tokens, rps_ticket(member(*props, "RpsTicket")), st.now_ms()))
    return sisu_refusal(req, xerr);
  if (st.fault.sisu_xerr != 0) return sisu_refusal(req, st.fault.sisu_xerr);
  return json_reply(req, http::status::ok, issue_user_token(st, st.now_ms(), false).second);
}

response title_authenticate(const request& req, state& st) {
  count(st, "title_token");
  auto body = json_body(req);
  const auto* props = body && body->if_contains("Properties") ? body->at("Properties").if_object() : nullptr;
  if (!body || props == nullptr) return bad_request(req, st, "the body is not a title authentication request");
  std::string x, y;
  const auto* key_value = props->if_contains("ProofKey");
  auto key = proof_key_of(key_value ? key_value->if_object() : nullptr, &x, &y);
  if (key) {
    if (auto why = check_signature(req, key.get(), st); !why.empty()) return unauthorized(req, st, why);
    count(st, "signatures_verified");
  }
  if (auto xerr = check_device_token(st, member(*props, "DeviceToken"), key ? &x : nullptr, key ? &y : nullptr))
    return sisu_refusal(req, xerr);
  return json_reply(req, http::status::ok, issue_title_token(st, st.now_ms()).second);
}

response xsts_authorize(const request& req, state& st) {
  count(st, "xsts");
  auto body = json_body(req);
  const auto* props = body && body->if_contains("Properties") ? body->at("Properties").if_object() : nullptr;
  if (!body || props == nullptr || member(*body, "RelyingParty").empty() || member(*body, "TokenType") != "JWT")
    return bad_request(req, st, "the body is not an XSTS request");
  const auto device = member(*props, "DeviceToken");
  // Signed by go-xsapi and prismarine-auth, unsigned by MinecraftAuth: a signature that is
  // there must verify with the device token's key.
  if (req.find("Signature") != req.end()) {
    const auto it = st.device_tokens.find(device);
    pkey key = it == st.device_tokens.end() ? nullptr : p256_from_jwk(it->second.x, it->second.y);
    if (!key) return unauthorized(req, st, "a signed XSTS request needs a known DeviceToken");
    if (auto why = check_signature(req, key.get(), st); !why.empty()) return unauthorized(req, st, why);
    count(st, "signatures_verified");
  } else {
    count(st, "xsts_unsigned");
  }
  const auto* users = props->if_contains("UserTokens") ? props->at("UserTokens").if_array() : nullptr;
  if (users == nullptr || users->empty() || !users->front().is_string())
    return bad_request(req, st, "Properties.UserTokens is required");
  const auto now = st.now_ms();
  if (auto xerr = check_plain(st.user_tokens, std::string(users->front().get_string()), now))
    return xsts_refusal(req, xerr);
  if (!device.empty())
    if (auto xerr = check_device_token(st, device, nullptr, nullptr)) return xsts_refusal(req, xerr);
  const auto title = member(*props, "TitleToken");
  if (!title.empty())
    if (check_plain(st.title_tokens, title, now) != 0) return xsts_refusal(req, 2148916260u);
  if (st.fault.xsts_xerr != 0) return xsts_refusal(req, st.fault.xsts_xerr);
  return json_reply(req, http::status::ok, issue_xsts(st, now, member(*body, "RelyingParty")).second);
}

}  // namespace

response handle_xbl(const request& req, std::string_view path, state& st) {
  if (req.method() != http::verb::post) return text_reply(req, http::status::method_not_allowed, "POST only\n");
  if (path == "/device/authenticate") return device_authenticate(req, st);
  if (path == "/authorize") return sisu_authorize(req, st);
  if (path == "/user/authenticate") return user_authenticate(req, st);
  if (path == "/title/authenticate") return title_authenticate(req, st);
  return xsts_authorize(req, st);
}

}  // namespace fake_xbox
