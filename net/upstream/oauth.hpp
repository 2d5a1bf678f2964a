// The GitHub OAuth web flow as pure functions: URLs to build, requests to send, answers to
// read. The provider's URLs are settings, so tests point them at a fake provider.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/failure.hpp"
#include "core/signin_times.hpp"
#include "net/upstream/http_client.hpp"

namespace netherscope::net::upstream {

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

/// The public base URL in canonical form: scheme and host lower-cased (RFC 3986 §6.2.2.1
/// makes both case-insensitive), trailing slashes dropped, everything else as given. Text
/// that is no absolute URL comes back without its trailing slashes only.
std::string canonical_base_url(std::string_view base);

/// The callback URL registered with the provider, below the canonical base URL.
std::string callback_url(const oauth_settings& s);

/// The provider's authorize URL with client_id, redirect_uri, scope read:user, state, and the
/// PKCE challenge (RFC 7636 §4.3, method S256).
std::string authorize_redirect(const oauth_settings& s, std::string_view state,
                               std::string_view code_challenge);

/// Whether the public base URL is HTTPS, in any letter case; it decides the cookies' Secure
/// attribute and their __Host- names.
bool served_over_https(const oauth_settings& s);

/// A fetch_request for an absolute http(s) URL; nullopt when the URL is not one.
std::optional<fetch_request> request_for(std::string_view url, std::string method,
                                         std::chrono::milliseconds timeout);

/// The code-for-token exchange (POST, form body, Accept JSON), with the PKCE verifier.
std::optional<fetch_request> token_request(const oauth_settings& s, std::string_view code,
                                           std::string_view code_verifier);

/// Reads the access token; GitHub reports errors as HTTP 200 with an "error" field.
std::optional<std::string> read_token(const fetch_result& r, core::failure& error);

/// GET {api}/user with the token.
std::optional<fetch_request> user_request(const oauth_settings& s, std::string_view token);

/// The user's numeric id and login, and nothing else.
struct provider_user {
  std::uint64_t id = 0;
  std::string login;
};

/// Reads the user; a missing or non-numeric id is an error.
std::optional<provider_user> read_user(const fetch_result& r, core::failure& error);

// -- the state and the browser binding -------------------------------------------

/// How long a sign-in may take from start to callback.
constexpr std::int64_t state_lifetime_seconds = core::signin_state_lifetime_seconds;

/// How far a state's time may lie ahead of our clock (replicas' clocks differ a little).
constexpr std::int64_t state_clock_skew_seconds = 60;

/// One sign-in attempt as it starts (RFC 6749 §10.12, RFC 7636, RFC 9700 §4.7).
///
/// The browser gets binding in an HttpOnly cookie: 64 random bytes, the first half a secret
/// that ties the attempt to this browser, the second half the PKCE code verifier. The URL
/// carries only state: the time and an HMAC under our key over the time and the whole
/// binding. So a state proves we issued it, for which browser and when, and someone who sees
/// only a callback URL (a log, a history, a screenshot) cannot make the cookie that redeems it.
struct signin_attempt {
  /// The cookie value: base64url of the 64 bytes, without padding.
  std::string binding;
  /// The URL's state: base64url of the 8-byte time and a 16-byte MAC, without padding.
  std::string state;
  /// The PKCE code_verifier (base64url of the second 32 bytes: 43 characters).
  std::string verifier;
  /// Its S256 challenge: base64url(SHA-256(verifier)).
  std::string challenge;
};

/// Starts an attempt under our state key; nullopt when the key is empty or OpenSSL fails.
std::optional<signin_attempt> start_attempt(std::string_view key, std::int64_t now_unix);

/// A callback's state that checked out against its browser's binding.
struct checked_state {
  /// The decoded state bytes, the one canonical form used to record the state as used.
  std::string canonical;
  /// When the state stops being accepted anyway, so its used record may go after that.
  std::int64_t expires_unix = 0;
  /// The PKCE code_verifier to send with the code.
  std::string verifier;
};

/// Checks a callback's state and the browser's binding cookie: both in canonical base64url
/// (no padding, no stray bits, the exact length), the MAC ours over this binding, the time
/// within state_lifetime_seconds. Otherwise error says why (invalid_input) and it is nullopt.
std::optional<checked_state> check_state(std::string_view key, std::string_view state,
                                         std::string_view binding, std::int64_t now_unix,
                                         core::failure& error);

/// The S256 code challenge of a verifier (RFC 7636 §4.2).
std::string pkce_challenge(std::string_view verifier);

/// Decodes base64url only in its one canonical form: the URL-safe alphabet, no padding, and
/// no set bits past the data (RFC 4648 §3.5), so one value has exactly one spelling; nullopt
/// otherwise, or when the result is not exactly `bytes` long.
std::optional<std::string> decode_canonical_base64url(std::string_view text, std::size_t bytes);

} // namespace netherscope::net::upstream
