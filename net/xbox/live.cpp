#include "net/xbox/live.hpp"

#include <algorithm>

#include "base/json_access.hpp"
#include "net/xbox/read.hpp"

namespace netherscope::net::xbox {

namespace {

constexpr std::string_view connect_path = "/oauth20_connect.srf";
constexpr std::string_view token_path = "/oauth20_token.srf";
constexpr std::string_view form_type = "application/x-www-form-urlencoded";
constexpr std::string_view device_grant = "urn:ietf:params:oauth:grant-type:device_code";

// RFC 8628 §3.5: the default interval, and what slow_down adds.
constexpr std::int64_t default_interval_s = 5;
constexpr std::int64_t longest_interval_s = 60;

http_call form_call(const endpoints& map, std::string_view path, std::vector<header> form) {
  http_call call;
  call.method = "POST";
  call.url = url_for(map, hosts::login_live, path);
  call.content_type = std::string{form_type};
  call.body = form_encode(form);
  call.headers = {{"Accept", "application/json"}};
  return call;
}

// The OAuth error name of an answer ({"error": ...}), or "" when it has none.
std::string oauth_error(const http_answer& answer) {
  auto body = base::parse_object(answer.body);
  if (!body)
    return {};
  return text_at(*body, "error").value_or("");
}

// The tokens of a 200 answer; false when it lacks an access token.
bool read_tokens(const boost::json::object& body, msa_tokens& out) {
  auto access = text_at(body, "access_token");
  if (!access)
    return false;
  out.access_token = std::move(*access);
  out.refresh_token = text_at(body, "refresh_token").value_or("");
  out.expires_in_s = std::max<std::int64_t>(0, base::int64_at(body, "expires_in").value_or(0));
  return true;
}

chain_error unexpected(step s, const http_answer& answer, std::string_view what) {
  auto name = oauth_error(answer);
  std::string text{what};
  text += " (HTTP " + std::to_string(answer.status);
  if (!name.empty())
    text += ", " + shown(name);
  text += ")";
  auto e = make_error(s, fault::bad_answer, text, answer.status);
  e.provider_code = shown(name);
  return e;
}

} // namespace

std::string device_code::direct_uri() const {
  auto sep = verification_uri.find('?') == std::string::npos ? "?" : "&";
  return verification_uri + sep + "otc=" + form_encode({{"", user_code}}).substr(1);
}

http_call device_code_call(const endpoints& map) {
  return form_call(map, connect_path,
                   {{"client_id", std::string{live_client_id}},
                    {"scope", std::string{live_scope}},
                    {"response_type", "device_code"}});
}

std::optional<device_code> read_device_code(const http_answer& answer, chain_error& error) {
  auto body = base::parse_object(answer.body);
  if (answer.status != 200 || !body) {
    error = unexpected(step::device_code, answer, "Microsoft did not start a device sign-in");
    return std::nullopt;
  }
  device_code code;
  auto user_code = text_at(*body, "user_code");
  auto secret = text_at(*body, "device_code");
  // RFC 8628 spells it verification_uri; some servers wrote verification_url.
  auto uri = text_at(*body, "verification_uri");
  if (!uri)
    uri = text_at(*body, "verification_url");
  auto expires = base::int64_at(*body, "expires_in");
  if (!user_code || !secret || !uri || !expires || *expires <= 0) {
    error = make_error(step::device_code, fault::bad_answer,
                       "Microsoft's device code answer lacks user_code, device_code, "
                       "verification_uri or expires_in",
                       answer.status);
    return std::nullopt;
  }
  code.user_code = std::move(*user_code);
  code.device_code = std::move(*secret);
  code.verification_uri = std::move(*uri);
  code.expires_in_s = *expires;
  code.interval_s = std::clamp<std::int64_t>(
    base::int64_at(*body, "interval").value_or(default_interval_s), 1, longest_interval_s);
  return code;
}

http_call device_poll_call(const endpoints& map, std::string_view device_code) {
  return form_call(map, token_path,
                   {{"client_id", std::string{live_client_id}},
                    {"grant_type", std::string{device_grant}},
                    {"device_code", std::string{device_code}}});
}

poll_result read_device_poll(const http_answer& answer) {
  poll_result r;
  auto body = base::parse_object(answer.body);
  if (answer.status == 200 && body && read_tokens(*body, r.tokens)) {
    if (r.tokens.refresh_token.empty()) {
      r.state = poll_state::failed;
      r.error = make_error(step::device_poll, fault::bad_answer,
                           "Microsoft granted the sign-in without a refresh token, so the link "
                           "could not renew itself",
                           answer.status);
      return r;
    }
    r.state = poll_state::granted;
    return r;
  }
  auto name = oauth_error(answer);
  if (name == "authorization_pending") {
    r.state = poll_state::pending;
    return r;
  }
  if (name == "slow_down") {
    r.state = poll_state::slow_down;
    return r;
  }
  r.state = poll_state::failed;
  if (name == "expired_token" || name == "invalid_grant" || name == "bad_verification_code") {
    r.error = make_error(step::device_poll, fault::code_expired,
                         "the code expired before it was approved; run admin xbox-login again",
                         answer.status);
  } else if (name == "access_denied" || name == "authorization_declined") {
    r.error = make_error(step::device_poll, fault::denied,
                         "the sign-in was declined at Microsoft's page; run admin xbox-login "
                         "again and approve it",
                         answer.status);
  } else {
    r.error = unexpected(step::device_poll, answer, "Microsoft refused the device sign-in");
    return r;
  }
  r.error.provider_code = name;
  return r;
}

http_call refresh_call(const endpoints& map, std::string_view refresh_token) {
  return form_call(map, token_path,
                   {{"client_id", std::string{live_client_id}},
                    {"scope", std::string{live_scope}},
                    {"grant_type", "refresh_token"},
                    {"refresh_token", std::string{refresh_token}}});
}

std::optional<msa_tokens> read_refresh(const http_answer& answer, chain_error& error) {
  auto body = base::parse_object(answer.body);
  msa_tokens tokens;
  if (answer.status == 200 && body && read_tokens(*body, tokens))
    return tokens;
  auto name = oauth_error(answer);
  if (name == "invalid_grant") {
    error = make_error(step::refresh, fault::link_revoked,
                       "Microsoft refused the stored refresh token (invalid_grant): the link was "
                       "revoked, expired or replaced; link the account again with admin "
                       "xbox-login",
                       answer.status);
    error.provider_code = name;
    return std::nullopt;
  }
  error = unexpected(step::refresh, answer, "Microsoft did not renew the access token");
  return std::nullopt;
}

} // namespace netherscope::net::xbox
