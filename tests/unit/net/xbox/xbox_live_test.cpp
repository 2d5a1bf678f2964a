// Tests for net/xbox/live: the Microsoft account requests and the answers of the device code
// flow and the refresh grant, in the shapes docs/XBOX.md §2 records.
#include <catch2/catch.hpp>

#include <string>

#include <boost/url/parse.hpp>

#include "net/xbox/live.hpp"
#include "support/xbox_answer.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using netherscope::test::answer;

namespace {

// The decoded value of a form field given exactly once, or "(absent)"/"(repeated)".
std::string form_field(const std::string& body, std::string_view name) {
  // The view refers to the text, so the text must outlive it.
  const std::string text = "?" + body;
  auto url = boost::urls::parse_uri_reference(text);
  REQUIRE(url);
  std::string found = "(absent)";
  for (auto p : url->params()) {
    if (p.key != name)
      continue;
    if (found != "(absent)")
      return "(repeated)";
    found = p.value;
  }
  return found;
}


constexpr const char* granted_body =
  R"({"token_type":"bearer","expires_in":86400,"scope":"service::user.auth.xboxlive.com::MBI_SSL",)"
  R"("access_token":"EwAIA+pvBAAU-access","refresh_token":"M.R3_BAY.new-refresh","user_id":"a1b2"})";

} // namespace

TEST_CASE("xbox live: the device code request is the Android title's", "[xbox]") {
  auto call = device_code_call(production);
  CHECK(call.method == "POST");
  CHECK(call.url == "https://login.live.com/oauth20_connect.srf");
  CHECK(call.content_type == "application/x-www-form-urlencoded");
  CHECK(call.header_value("accept") == "application/json");
  CHECK(form_field(call.body, "client_id") == "0000000048183522");
  CHECK(form_field(call.body, "scope") == "service::user.auth.xboxlive.com::MBI_SSL");
  CHECK(form_field(call.body, "response_type") == "device_code");
  // Colons are percent-encoded, as a form body must carry them safely.
  CHECK(call.body.find("service%3A%3Auser") != std::string::npos);
}

TEST_CASE("xbox live: a device code is read, with RFC 8628's defaults", "[xbox]") {
  chain_error error;
  auto code = read_device_code(
    answer(200, R"({"user_code":"ABCD1234","device_code":"DAQABAAEAAA-secret",)"
                R"("verification_uri":"https://www.microsoft.com/link","expires_in":900,)"
                R"("interval":5,"message":"To sign in, use a web browser"})"),
    error);
  REQUIRE(code);
  CHECK(code->user_code == "ABCD1234");
  CHECK(code->device_code == "DAQABAAEAAA-secret");
  CHECK(code->verification_uri == "https://www.microsoft.com/link");
  CHECK(code->expires_in_s == 900);
  CHECK(code->interval_s == 5);
  CHECK(code->direct_uri() == "https://www.microsoft.com/link?otc=ABCD1234");

  // The misspelt verification_url some servers send, and no interval (5 s by default).
  auto old = read_device_code(
    answer(200, R"({"user_code":"X","device_code":"Y","verification_url":"https://l.example/?a=1",)"
                R"("expires_in":60})"),
    error);
  REQUIRE(old);
  CHECK(old->interval_s == 5);
  CHECK(old->direct_uri() == "https://l.example/?a=1&otc=X");

  CHECK_FALSE(read_device_code(answer(200, R"({"user_code":"X","expires_in":60})"), error));
  CHECK(error.step == step::device_code);
  CHECK(error.fault == fault::bad_answer);
  CHECK_FALSE(
    read_device_code(answer(400, R"({"error":"invalid_client","error_description":"x"})"), error));
  CHECK(error.provider_code == "invalid_client");
  CHECK(error.message.find("HTTP 400, invalid_client") != std::string::npos);
}

TEST_CASE("xbox live: polling uses the device code grant", "[xbox]") {
  auto call = device_poll_call(production, "DAQABAAEAAA-secret");
  CHECK(call.url == "https://login.live.com/oauth20_token.srf");
  CHECK(form_field(call.body, "grant_type") == "urn:ietf:params:oauth:grant-type:device_code");
  CHECK(form_field(call.body, "device_code") == "DAQABAAEAAA-secret");
  CHECK(form_field(call.body, "client_id") == "0000000048183522");
}

TEST_CASE("xbox live: each poll answer says where the flow stands", "[xbox]") {
  auto pending = read_device_poll(answer(
    400, R"({"error":"authorization_pending","error_description":"The user has not yet approved."})"));
  CHECK(pending.state == poll_state::pending);

  auto slow = read_device_poll(answer(400, R"({"error":"slow_down"})"));
  CHECK(slow.state == poll_state::slow_down);

  auto expired = read_device_poll(answer(
    400, R"({"error":"expired_token","error_description":"The provided value for the input )"
         R"(parameter 'device_code' is not valid. This device code has expired."})"));
  CHECK(expired.state == poll_state::failed);
  CHECK(expired.error.fault == fault::code_expired);
  CHECK(expired.error.needs_relink());
  CHECK(expired.error.provider_code == "expired_token");

  auto denied = read_device_poll(answer(400, R"({"error":"access_denied"})"));
  CHECK(denied.state == poll_state::failed);
  CHECK(denied.error.fault == fault::denied);
  CHECK(denied.error.message.find("declined") != std::string::npos);

  auto odd = read_device_poll(answer(400, R"({"error":"server_error"})"));
  CHECK(odd.state == poll_state::failed);
  CHECK(odd.error.fault == fault::bad_answer);
  CHECK(odd.error.provider_code == "server_error");

  auto granted = read_device_poll(answer(200, granted_body));
  REQUIRE(granted.state == poll_state::granted);
  CHECK(granted.tokens.access_token == "EwAIA+pvBAAU-access");
  CHECK(granted.tokens.refresh_token == "M.R3_BAY.new-refresh");
  CHECK(granted.tokens.expires_in_s == 86400);

  auto no_refresh =
    read_device_poll(answer(200, R"({"access_token":"EwA-access","expires_in":3600})"));
  CHECK(no_refresh.state == poll_state::failed);
  CHECK(no_refresh.error.message.find("without a refresh token") != std::string::npos);
}

TEST_CASE("xbox live: the refresh grant rotates, and invalid_grant means relink", "[xbox]") {
  auto call = refresh_call(production, "M.R3_BAY.old-refresh");
  CHECK(form_field(call.body, "grant_type") == "refresh_token");
  CHECK(form_field(call.body, "refresh_token") == "M.R3_BAY.old-refresh");
  CHECK(form_field(call.body, "scope") == "service::user.auth.xboxlive.com::MBI_SSL");

  chain_error error;
  auto tokens = read_refresh(answer(200, granted_body), error);
  REQUIRE(tokens);
  CHECK(tokens->refresh_token == "M.R3_BAY.new-refresh");
  CHECK(tokens->access_token == "EwAIA+pvBAAU-access");

  auto revoked = read_refresh(
    answer(400, R"({"error":"invalid_grant","error_description":"The user could not be )"
                R"(authenticated or user interaction is required. M.R3_BAY.old-refresh"})"),
    error);
  CHECK_FALSE(revoked);
  CHECK(error.step == step::refresh);
  CHECK(error.fault == fault::link_revoked);
  CHECK(error.needs_relink());
  CHECK(error.message.find("admin xbox-login") != std::string::npos);
  // Nothing the answer echoed, and no token, reaches the message.
  CHECK(error.message.find("M.R3_") == std::string::npos);

  CHECK_FALSE(read_refresh(answer(500, "<html>oops</html>"), error));
  CHECK(error.fault == fault::bad_answer);
  CHECK(error.status == 500);
  CHECK_FALSE(read_refresh(answer(200, R"({"refresh_token":"only"})"), error));
  CHECK(error.fault == fault::bad_answer);
}
