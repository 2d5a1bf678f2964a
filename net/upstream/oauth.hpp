// The GitHub OAuth web flow as pure functions: URLs to build, requests to send, answers to
// read. The provider's URLs are settings, so tests point them at a fake provider.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "net/api/failure.hpp"
#include "net/upstream/http_client.hpp"

namespace netherscope::net {

/// Where the provider lives and who we are to it.
struct oauth_settings {
  std::string client_id;
  /// From the environment only (NETHERSCOPE_GITHUB_CLIENT_SECRET); never logged.
  std::string client_secret;
  std::string authorize_url = "https://github.com/login/oauth/authorize";
  std::string token_url = "https://github.com/login/oauth/access_token";
  std::string api_url = "https://api.github.com";
  /// Our public address, e.g. https://netherscope.example; the callback hangs below it.
  std::string public_base_url = "http://127.0.0.1:8080";
  std::chrono::milliseconds timeout{10000};

  bool configured() const {
    return !client_id.empty() && !client_secret.empty();
  }
};

/// The callback URL registered with the provider.
std::string callback_url(const oauth_settings& s);

/// The provider's authorize URL with client_id, redirect_uri, scope read:user and state.
std::string authorize_redirect(const oauth_settings& s, std::string_view state);

/// Whether the public base URL is HTTPS, which decides the cookie's Secure attribute.
bool served_over_https(const oauth_settings& s);

/// A fetch_request for an absolute http(s) URL; nullopt when the URL is not one.
std::optional<fetch_request> request_for(std::string_view url, std::string method,
                                         std::chrono::milliseconds timeout);

/// The code-for-token exchange (POST, form body, Accept JSON).
std::optional<fetch_request> token_request(const oauth_settings& s, std::string_view code);

/// Reads the access token; GitHub reports errors as HTTP 200 with an "error" field.
std::optional<std::string> read_token(const fetch_result& r, failure& error);

/// GET {api}/user with the token.
std::optional<fetch_request> user_request(const oauth_settings& s, std::string_view token);

/// The user's numeric id and login, and nothing else.
struct provider_user {
  std::uint64_t id = 0;
  std::string login;
};

/// Reads the user; a missing or non-numeric id is an error.
std::optional<provider_user> read_user(const fetch_result& r, failure& error);

/// How long a sign-in may take from start to callback.
constexpr std::int64_t state_lifetime_seconds = 600;

/// A sign-in state: a random nonce and the time, with an HMAC-SHA256 under our key, so the
/// callback can tell a state we issued from one a script made up before calling the provider.
std::optional<std::string> make_state(std::string_view key, std::int64_t now_unix);

/// Whether we issued state (under key) within the last state_lifetime_seconds.
bool state_is_ours(std::string_view key, std::string_view state, std::int64_t now_unix);

} // namespace netherscope::net
