// Test support: an in-process fake of GitHub's OAuth web flow (authorize, token, /user).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace netherscope::test {

/// How a fake_oauth_provider behaves; the defaults play a GitHub that lets octocat sign in.
struct fake_oauth_options {
  /// The numeric GitHub user id that /user reports (default 4242).
  std::uint64_t user_id = 4242;
  /// The login that /user reports (default "octocat").
  std::string login = "octocat";
  /// The only client_id the authorize and token endpoints accept (default "test-client").
  std::string client_id = "test-client";
  /// The only client_secret the token endpoint accepts (default "test-secret").
  std::string client_secret = "test-secret";
  /// The code the authorize endpoint hands out and the token endpoint accepts (one use).
  /// It is valid from the start; every consenting authorize request makes it valid once more.
  std::string code = "good-code";
  /// The token the token endpoint issues and /user accepts (default "gho_fake_token").
  std::string access_token = "gho_fake_token";

  /// What the authorize endpoint does with a valid request.
  enum class authorize_mode {
    consent, ///< 302 to redirect_uri with code and state.
    deny,    ///< 302 to redirect_uri with error=access_denied and state.
  };
  /// What the token endpoint answers.
  enum class token_mode {
    ok,         ///< Checks credentials and code like GitHub.
    error_json, ///< Always bad_verification_code at HTTP 200.
    http_500,   ///< 500 with an HTML body.
    not_json,   ///< 200 text/html garbage.
    slow,       ///< Waits `slow`, then answers like ok.
  };
  /// What the /user endpoint answers.
  enum class user_mode {
    ok,           ///< The user as JSON when the token is right.
    unauthorized, ///< Always 401 Bad credentials (after the User-Agent check).
    missing_id,   ///< Like ok, but the JSON has no "id".
    slow,         ///< Waits `slow`, then answers like ok.
  };

  /// Default consent.
  authorize_mode authorize = authorize_mode::consent;
  /// Default ok.
  token_mode token = token_mode::ok;
  /// Default ok.
  user_mode user = user_mode::ok;
  /// The delay of the slow modes (default 3 s).
  std::chrono::milliseconds slow{3000};
  /// PKCE (RFC 7636). An authorize request may carry code_challenge with method S256 (the
  /// only one GitHub accepts; others are 400); the token request for the code it granted
  /// must then carry the matching code_verifier. With require_pkce (the default, stricter
  /// than GitHub, which does not require it yet) an authorize request without a challenge
  /// is refused with 400, so tests prove the service sends one.
  bool require_pkce = true;
  /// Like GitHub, a code is exchanged once; with this set the token endpoint keeps accepting
  /// a code it exchanged already, so tests prove that the service itself refuses replays.
  bool accept_reused_code = false;
};

/// A fake GitHub OAuth server on 127.0.0.1 (OS-chosen port) with its own io thread.
class fake_oauth_provider {
public:
  /// Binds 127.0.0.1:0 and starts serving; throws std::runtime_error if it cannot listen.
  explicit fake_oauth_provider(fake_oauth_options options = {});
  /// Stops its thread and closes every socket, even with a slow response pending.
  ~fake_oauth_provider();

  fake_oauth_provider(const fake_oauth_provider&) = delete;
  fake_oauth_provider& operator=(const fake_oauth_provider&) = delete;

  /// The port it listens on.
  unsigned port() const;
  /// "http://127.0.0.1:PORT".
  std::string base_url() const;
  /// base_url() + "/login/oauth/authorize".
  std::string authorize_url() const;
  /// base_url() + "/login/oauth/access_token".
  std::string token_url() const;
  /// base_url(); the user endpoint is api_url() + "/user".
  std::string api_url() const;

  /// How many requests reached /login/oauth/authorize.
  int authorize_requests() const;
  /// How many requests reached /login/oauth/access_token.
  int token_requests() const;
  /// How many requests reached /user.
  int user_requests() const;
  /// How many token requests were answered with an access token.
  int tokens_issued() const;
  /// How many token requests were refused for a missing or wrong code_verifier.
  int pkce_failures() const;

  /// The form body of the last token request.
  std::string last_token_body() const;
  /// The Accept header of the last token request.
  std::string last_token_accept() const;
  /// The Authorization header of the last /user request.
  std::string last_user_authorization() const;
  /// The User-Agent header of the last /user request.
  std::string last_user_agent() const;
  /// The raw (still percent-encoded) query of the last authorize request.
  std::string last_authorize_query() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// Follows the browser part of the flow: GETs url (the provider's authorize URL with its
/// query), expects a 302, and returns the Location header (the service's callback URL with
/// code and state, or error). Empty on failure.
std::string follow_authorize(const std::string& url);

} // namespace netherscope::test
