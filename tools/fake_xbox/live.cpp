// login.live.com as the public clients meet it (docs/XBOX.md §2): the device code flow with
// authorization_pending, slow_down (also for polling faster than the interval), approval,
// refusal and expiry through POST /_fake/control; and the refresh grant, which rotates the
// refresh token every time and, in strict rotation, refuses a used one with invalid_grant.
#include "router.hpp"

#include <algorithm>
#include <array>

namespace fake_xbox {

namespace json = boost::json;

namespace {

constexpr std::string_view scope = "service::user.auth.xboxlive.com::MBI_SSL";

// The Minecraft titles' Microsoft account client ids (Android, iOS, Nintendo, Win32,
// PlayStation; docs/XBOX.md §1).
constexpr std::array<std::string_view, 5> client_ids = {"0000000048183522", "000000004c17c01a", "00000000441cc96b",
                                                       "0000000040159362", "000000004827c78e"};

bool known_client(const std::string& id) {
  return std::find(client_ids.begin(), client_ids.end(), id) != client_ids.end();
}

// An OAuth error as login.live.com sends it: HTTP 400 with error and error_description.
response oauth_error(const request& req, std::string_view error, std::string_view description) {
  return json_reply(req, http::status::bad_request,
                    {{"error", error},
                     {"error_description", description},
                     {"error_uri", "https://login.live.com/err.srf?lc=1033"}});
}

response grant(const request& req, state& st, const std::string& client_id) {
  const auto access = random_token("EwA", 48);
  const auto refresh = random_token("M.R3_BAY.", 48);
  st.access_tokens[access] = {st.now_ms() + st.cfg.msa_s * 1000};
  st.refresh_tokens[refresh] = {client_id, false};
  count(st, "msa_tokens_issued");
  return json_reply(req, http::status::ok,
                    {{"token_type", "bearer"},
                     {"expires_in", st.cfg.msa_s},
                     {"scope", scope},
                     {"access_token", access},
                     {"refresh_token", refresh},
                     {"user_id", "a1b2c3d4e5f60718"},
                     {"foci", "1"}});
}

response start_device_code(const request& req, state& st) {
  count(st, "device_code");
  const auto client_id = form_field(req.body(), "client_id").value_or("");
  if (!known_client(client_id))
    return oauth_error(req, "invalid_client", "The client does not exist or is not enabled for consumers.");
  if (form_field(req.body(), "scope").value_or("") != scope)
    return oauth_error(req, "invalid_scope", "The provided value for the input parameter 'scope' is not valid.");
  if (form_field(req.body(), "response_type").value_or("") != "device_code")
    return oauth_error(req, "unsupported_response_type", "The response type is not supported.");
  const auto device_code = random_token("DAQABAAEAAA", 32);
  const auto user_code = upper_hex(random_bytes(4));
  device_grant g;
  g.client_id = client_id;
  g.user_code = user_code;
  g.expires_ms = st.now_ms() + st.cfg.device_code_s * 1000;
  g.interval_ms = st.cfg.interval_s * 1000;
  st.device_codes[device_code] = g;
  return json_reply(req, http::status::ok,
                    {{"user_code", user_code},
                     {"device_code", device_code},
                     {"verification_uri", "https://www.microsoft.com/link"},
                     {"expires_in", st.cfg.device_code_s},
                     {"interval", st.cfg.interval_s},
                     {"message", "To sign in, use a web browser to open the page "
                                 "https://www.microsoft.com/link and enter the code " +
                                     user_code + " to authenticate."}});
}

response poll_device_code(const request& req, state& st, const std::string& client_id) {
  count(st, "device_poll");
  const auto code = form_field(req.body(), "device_code").value_or("");
  auto it = st.device_codes.find(code);
  if (it == st.device_codes.end() || it->second.client_id != client_id || it->second.state == "used")
    return oauth_error(req, "invalid_grant", "The provided value for the input parameter 'device_code' is not valid.");
  auto& g = it->second;
  const auto now = st.now_ms();
  // A poll sooner than the interval is slow_down, and the interval grows 5 s (RFC 8628 §3.5);
  // a quarter second of slack covers the client's timer.
  const bool too_soon = g.last_poll_ms != 0 && now - g.last_poll_ms < g.interval_ms - 250;
  g.last_poll_ms = now;
  if (g.slow_down_next || too_soon) {
    g.slow_down_next = false;
    g.interval_ms += 5000;
    count(st, "slow_down");
    return oauth_error(req, "slow_down", "The client is polling too quickly and should back off.");
  }
  if (g.state == "expired" || now >= g.expires_ms)
    return oauth_error(req, "expired_token",
                       "The provided value for the input parameter 'device_code' is not valid. This device code "
                       "has expired.");
  if (g.state == "denied")
    return oauth_error(req, "access_denied", "The user has denied access to the scopes requested by the client.");
  if (g.state == "pending")
    return oauth_error(req, "authorization_pending", "The user has not yet authorized the device.");
  g.state = "used";
  return grant(req, st, client_id);
}

response refresh(const request& req, state& st, const std::string& client_id) {
  count(st, "refresh");
  const auto token = form_field(req.body(), "refresh_token").value_or("");
  auto it = st.refresh_tokens.find(token);
  const bool refused = it == st.refresh_tokens.end() || st.fault.revoked || it->second.client_id != client_id ||
                       (it->second.rotated && st.cfg.rotation == rotation_mode::strict);
  if (refused) {
    count(st, "refresh_refused");
    return oauth_error(req, "invalid_grant",
                       "The user could not be authenticated or user interaction is required. The refresh token "
                       "was revoked, expired or already used.");
  }
  if (form_field(req.body(), "scope").value_or("") != scope)
    return oauth_error(req, "invalid_scope", "The provided value for the input parameter 'scope' is not valid.");
  it->second.rotated = true;
  count(st, "refresh_rotations");
  return grant(req, st, client_id);
}

}  // namespace

response handle_live(const request& req, std::string_view path, state& st) {
  if (req.method() != http::verb::post) return text_reply(req, http::status::method_not_allowed, "POST only\n");
  if (path == "/oauth20_connect.srf") return start_device_code(req, st);
  const auto grant_type = form_field(req.body(), "grant_type").value_or("");
  const auto client_id = form_field(req.body(), "client_id").value_or("");
  if (!known_client(client_id))
    return oauth_error(req, "invalid_client", "The client does not exist or is not enabled for consumers.");
  // RFC 8628's URN (oauth2, prismarine-auth) and the bare name MinecraftAuth sends.
  if (grant_type == "urn:ietf:params:oauth:grant-type:device_code" || grant_type == "device_code")
    return poll_device_code(req, st, client_id);
  if (grant_type == "refresh_token") return refresh(req, st, client_id);
  return oauth_error(req, "unsupported_grant_type", "The provided value for the input parameter 'grant_type' is not valid.");
}

}  // namespace fake_xbox
