#include <catch2/catch.hpp>

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

#include "net/upstream/oauth.hpp"

using namespace netherscope;
using namespace netherscope::net;

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

} // namespace

TEST_CASE("oauth: states are signed, expire, and bind to our key", "[oauth]") {
  std::string key(32, 'k');
  const std::int64_t now = 1795348800;
  auto state = make_state(key, now);
  REQUIRE(state);
  CHECK(state->find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        == std::string::npos);
  CHECK(state_is_ours(key, *state, now));
  CHECK(state_is_ours(key, *state, now + 600));
  CHECK_FALSE(state_is_ours(key, *state, now + 601));
  CHECK_FALSE(state_is_ours(std::string(32, 'x'), *state, now));
  auto tampered = *state;
  tampered[5] = tampered[5] == 'A' ? 'B' : 'A';
  CHECK_FALSE(state_is_ours(key, tampered, now));
  CHECK_FALSE(state_is_ours(key, "made-up", now));
  CHECK_FALSE(state_is_ours(key, "", now));
  CHECK(*make_state(key, now) != *state);
}

TEST_CASE("oauth: the authorize redirect asks for read:user only", "[oauth]") {
  oauth_settings s;
  s.client_id = "id+1";
  s.public_base_url = "https://netherscope.example/";
  auto text = authorize_redirect(s, "st+ate");
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
  CHECK(served_over_https(s));
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
