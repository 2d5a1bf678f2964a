#include <catch2/catch.hpp>

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

#include "base/crypto.hpp"
#include "net/upstream/oauth.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

// The still-encoded value of a query parameter given exactly once; "(absent)" or
// "(repeated)" otherwise, so a failed check shows which.
std::string encoded_param(const boost::urls::url_view& url, std::string_view key) {
  std::string found = "(absent)";
  for (auto param : url.encoded_params()) {
    if (param.key != key)
      continue;
    if (found != "(absent)")
      return "(repeated)";
    found = std::string{param.value};
  }
  return found;
}

constexpr std::int64_t signin_now = 1795348800;
const std::string key(32, 'k');

bool url_safe(const std::string& text) {
  return text.find_first_not_of(
           "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
         == std::string::npos;
}

// The machine code a refused state carries, or "ok".
std::string refusal(std::string_view state, std::string_view binding, std::int64_t at = signin_now,
                    std::string_view with_key = key) {
  failure error;
  auto checked = check_state(with_key, state, binding, at, error);
  if (checked)
    return "ok";
  CHECK(error.code == error_code::invalid_input);
  return "invalid_input";
}

} // namespace

TEST_CASE("oauth: the PKCE challenge is RFC 7636's S256", "[oauth]") {
  // RFC 7636 Appendix B.
  CHECK(pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
}

TEST_CASE("oauth: an attempt's state checks out only with its own browser binding", "[oauth]") {
  auto attempt = start_attempt(key, signin_now);
  REQUIRE(attempt);
  CHECK(attempt->binding.size() == 86);
  CHECK(attempt->state.size() == 32);
  CHECK(attempt->verifier.size() == 43);
  CHECK(url_safe(attempt->binding));
  CHECK(url_safe(attempt->state));
  CHECK(url_safe(attempt->verifier));
  CHECK(attempt->challenge == pkce_challenge(attempt->verifier));
  // The URL's state is not the cookie, and does not contain it.
  CHECK(attempt->binding.find(attempt->state) == std::string::npos);
  failure error;
  auto checked = check_state(key, attempt->state, attempt->binding, signin_now, error);
  REQUIRE(checked);
  CHECK(checked->verifier == attempt->verifier);
  CHECK(checked->canonical.size() == 24);
  CHECK(checked->expires_unix == signin_now + state_lifetime_seconds);
  // Attempts differ in everything.
  auto other = start_attempt(key, signin_now);
  REQUIRE(other);
  CHECK(other->binding != attempt->binding);
  CHECK(other->state != attempt->state);
  CHECK(other->verifier != attempt->verifier);
  // Another attempt's cookie, a cookie made from the URL's state, none, or another key.
  CHECK(refusal(attempt->state, other->binding) == "invalid_input");
  CHECK(refusal(attempt->state, attempt->state) == "invalid_input");
  CHECK(refusal(attempt->state, "") == "invalid_input");
  CHECK(refusal(attempt->state, attempt->binding, signin_now, std::string(32, 'x')) == "invalid_input");
  CHECK(refusal("made-up", attempt->binding) == "invalid_input");
  CHECK(refusal("", attempt->binding) == "invalid_input");
  CHECK_FALSE(start_attempt("", signin_now));
}

TEST_CASE("oauth: states expire after 10 minutes", "[oauth]") {
  auto attempt = start_attempt(key, signin_now);
  REQUIRE(attempt);
  CHECK(refusal(attempt->state, attempt->binding, signin_now + 600) == "ok");
  CHECK(refusal(attempt->state, attempt->binding, signin_now + 601) == "invalid_input");
  // A replica's clock may run a little behind, not far.
  CHECK(refusal(attempt->state, attempt->binding, signin_now - 60) == "ok");
  CHECK(refusal(attempt->state, attempt->binding, signin_now - 61) == "invalid_input");
}

TEST_CASE("oauth: a state or binding counts only in its one canonical spelling", "[oauth]") {
  auto attempt = start_attempt(key, signin_now);
  REQUIRE(attempt);
  CHECK(refusal(attempt->state, attempt->binding) == "ok");
  // Padding, in the URL or in the cookie.
  CHECK(refusal(attempt->state + "==", attempt->binding) == "invalid_input");
  CHECK(refusal(attempt->state + "=", attempt->binding) == "invalid_input");
  CHECK(refusal(attempt->state, attempt->binding + "==") == "invalid_input");
  // The other alphabet (the same bytes spelt with + and /), and whitespace. A state has a
  // '-' or '_' more often than not; draw until one does.
  auto spelt = *attempt;
  for (int i = 0; i < 200 && spelt.state.find_first_of("-_") == std::string::npos; ++i)
    spelt = *start_attempt(key, signin_now);
  REQUIRE(spelt.state.find_first_of("-_") != std::string::npos);
  auto standard = spelt.state;
  for (auto& c : standard)
    c = c == '-' ? '+' : (c == '_' ? '/' : c);
  CHECK(refusal(spelt.state, spelt.binding) == "ok");
  CHECK(refusal(standard, spelt.binding) == "invalid_input");
  CHECK(refusal(" " + attempt->state, attempt->binding) == "invalid_input");
  // 64 bytes are 86 characters with 4 bits to spare; with one of them set the text is
  // another spelling, which is refused.
  auto binding = attempt->binding;
  const std::string alphabet
    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  binding.back() = alphabet[alphabet.find(binding.back()) | 1];
  CHECK(refusal(attempt->state, binding) == "invalid_input");
  // Two bytes are three characters with two bits to spare, which must be zero.
  CHECK(decode_canonical_base64url("AAE", 2) == std::string{'\0', '\x01'});
  CHECK(decode_canonical_base64url("AAA", 2) == std::string(2, '\0'));
  CHECK_FALSE(decode_canonical_base64url("AAB", 2));
  CHECK_FALSE(decode_canonical_base64url("AAA=", 2));
  CHECK_FALSE(decode_canonical_base64url("AAAA", 2));
  CHECK(decode_canonical_base64url("AAAA", 3) == std::string(3, '\0'));
}

TEST_CASE("oauth: the authorize redirect asks for read:user only, with PKCE", "[oauth]") {
  oauth_settings s;
  s.client_id = "id+1";
  s.public_base_url = "https://netherscope.example/";
  auto text = authorize_redirect(s, "st+ate", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  auto url = boost::urls::parse_uri(text);
  INFO(text);
  REQUIRE(url);
  CHECK(url->scheme() == "https");
  CHECK(url->encoded_host() == "github.com");
  CHECK(url->encoded_path() == "/login/oauth/authorize");
  // Each parameter once, with exactly this value: a "+" left raw would read as a space.
  CHECK(encoded_param(*url, "client_id") == "id%2B1");
  CHECK(encoded_param(*url, "scope") == "read%3Auser");
  CHECK(encoded_param(*url, "state") == "st%2Bate");
  CHECK(encoded_param(*url, "redirect_uri")
        == "https%3A%2F%2Fnetherscope.example%2Fauth%2Fgithub%2Fcallback");
  CHECK(encoded_param(*url, "code_challenge") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  CHECK(encoded_param(*url, "code_challenge_method") == "S256");
  CHECK(served_over_https(s));
}

TEST_CASE("oauth: scheme and host letter case never matter", "[oauth]") {
  oauth_settings s;
  s.public_base_url = "HTTPS://NetherScope.Example:8443/";
  CHECK(served_over_https(s));
  CHECK(canonical_base_url(s.public_base_url) == "https://netherscope.example:8443");
  CHECK(callback_url(s) == "https://netherscope.example:8443/auth/github/callback");
  s.public_base_url = "Http://127.0.0.1:8080";
  CHECK_FALSE(served_over_https(s));
  CHECK(callback_url(s) == "http://127.0.0.1:8080/auth/github/callback");
  auto req = request_for("HTTPS://API.GitHub.com/user", "GET", std::chrono::seconds(1));
  REQUIRE(req);
  CHECK(req->where.tls == tls_mode::on);
  CHECK(req->where.port == 443);
}

TEST_CASE("oauth: the token request carries the PKCE verifier", "[oauth]") {
  oauth_settings s;
  s.client_id = "id";
  s.client_secret = "secret";
  auto req = token_request(s, "the-code", "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
  REQUIRE(req);
  CHECK(req->body.find("code=the-code") != std::string::npos);
  CHECK(req->body.find("code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        != std::string::npos);
}

TEST_CASE("oauth: provider answers are read strictly", "[oauth]") {
  fetch_result r;
  r.status = 200;
  failure error;
  r.body = R"({"access_token":"gho_x","token_type":"bearer"})";
  CHECK(read_token(r, error) == std::optional<std::string>{"gho_x"});
  r.body = R"({"error":"bad_verification_code","error_description":"The code passed is incorrect"})";
  CHECK_FALSE(read_token(r, error));
  CHECK(error.code == error_code::upstream_failure);
  // The provider's own description is passed on: the test looks for that data, not for
  // our wording around it.
  CHECK(error.message.find("The code passed is incorrect") != std::string::npos);
  r.body = R"({"id":4242,"login":"octocat","email":"x@y"})";
  auto user = read_user(r, error);
  REQUIRE(user);
  CHECK(user->id == 4242);
  CHECK(user->login == "octocat");
  for (auto bad : {R"({"login":"octocat"})", R"({"id":"4242","login":"octocat"})",
                   R"({"id":0,"login":"octocat"})", R"({"id":1,"login":"<script>"})",
                   R"({"id":1,"login":""})", "[]", "nope"}) {
    r.body = bad;
    error = failure{};
    INFO(bad);
    CHECK_FALSE(read_user(r, error));
    CHECK(error.code == error_code::upstream_failure);
  }
  r.status = 401;
  r.body = R"({"id":4242,"login":"octocat"})";
  error = failure{};
  CHECK_FALSE(read_user(r, error));
  CHECK(error.code == error_code::upstream_failure);
}
