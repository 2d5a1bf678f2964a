// Tests for net/xbox/xbl and net/xbox/xerr: the device token, SISU and XSTS requests and
// answers in the shapes docs/XBOX.md §3 records, and the XErr table.
#include <catch2/catch.hpp>

#include <string>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "base/crypto.hpp"
#include "net/xbox/signing.hpp"
#include "net/xbox/xbl.hpp"
#include "net/xbox/xerr.hpp"
#include "support/xbox_answer.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using netherscope::test::answer;
namespace json = boost::json;

namespace {

const json::object proof{{"kty", "EC"}, {"alg", "ES256"}, {"crv", "P-256"},
                         {"use", "sig"}, {"x", "xx"},     {"y", "yy"}};


// A device token answer as wiki.vg's sample shapes it (times with 7 fraction digits).
constexpr const char* device_body =
  R"({"IssueInstant":"2020-12-07T19:52:08.4463796Z","NotAfter":"2020-12-21T19:52:08.4463796Z",)"
  R"("Token":"eyJlbmMiOiJBMTI4Q0JD-device","DisplayClaims":{"xdi":{"did":"F700D2B1","dcs":"0"}}})";

constexpr const char* sisu_body = R"({
  "DeviceToken":"eyJ-device",
  "TitleToken":{"DisplayClaims":{"xti":{"tid":"1739947436"}},
                "IssueInstant":"2020-12-07T19:52:08.0000000Z",
                "NotAfter":"2020-12-21T19:52:08.0000000Z","Token":"eyJ-title"},
  "UserToken":{"DisplayClaims":{"xui":[{"uhs":"2535405290"}]},
               "IssueInstant":"2020-12-07T19:52:08.0000000Z",
               "NotAfter":"2020-12-21T19:52:08.0000000Z","Token":"eyJ-user"},
  "AuthorizationToken":{"DisplayClaims":{"xui":[{"gtg":"Steve Probe","xid":"2535405290123456",
                        "uhs":"2535405290","agg":"Adult","usr":"234","prv":"185 186"}]},
               "IssueInstant":"2020-12-07T19:52:08.0000000Z",
               "NotAfter":"2020-12-08T11:52:08.0000000Z","Token":"eyJ-authorization"},
  "WebPage":"https://sisu.xboxlive.com/client/v33/default/view/index.html",
  "Sandbox":"RETAIL","UseModernGamertag":true})";

} // namespace

TEST_CASE("xbox xbl: the device token request is the Android title's", "[xbox]") {
  auto call = device_token_call(production, "8f2a6c1e-0b1d-4d5e-9f00-1234567890ab", proof);
  CHECK(call.url == "https://device.auth.xboxlive.com/device/authenticate");
  CHECK(call.content_type == "application/json");
  CHECK(call.header_value("x-xbl-contract-version") == "1");
  CHECK(call.header_value("User-Agent") == xal_user_agent);
  CHECK(call.header_value("Signature").empty()); // the runner signs it
  auto body = body_of(call);
  CHECK(body.at("RelyingParty") == "http://auth.xboxlive.com");
  CHECK(body.at("TokenType") == "JWT");
  const auto& p = body.at("Properties").as_object();
  CHECK(p.at("AuthMethod") == "ProofOfPossession");
  CHECK(p.at("Id") == "{8f2a6c1e-0b1d-4d5e-9f00-1234567890ab}");
  CHECK(p.at("DeviceType") == "Android");
  CHECK(p.at("Version") == "13");
  CHECK(p.at("ProofKey") == proof);
}

TEST_CASE("xbox xbl: a device token's lifetime is counted on our clock", "[xbox]") {
  chain_error error;
  auto token = read_device_token(answer(200, device_body), received + 5000, error);
  REQUIRE(token);
  CHECK(token->token == "eyJlbmMiOiJBMTI4Q0JD-device");
  CHECK(token->times.issued_ms == received + 5000);
  // 14 days, whatever the skew between Xbox's clock and ours.
  CHECK(token->times.expires_ms == received + 5000 + 14LL * 24 * 3600 * 1000);

  CHECK_FALSE(read_device_token(answer(200, R"({"Token":"x"})"), received, error));
  CHECK(error.fault == fault::bad_answer);
  CHECK_FALSE(read_device_token(answer(400, ""), received, error));
  CHECK(error.message.find("HTTP 400 without an XErr") != std::string::npos);
}

TEST_CASE("xbox xbl: SISU asks for Xbox services' token with the proof key", "[xbox]") {
  auto call = sisu_call(production, "EwA-access", "eyJ-device", proof);
  CHECK(call.url == "https://sisu.xboxlive.com/authorize");
  auto body = body_of(call);
  CHECK(body.at("AccessToken") == "t=EwA-access");
  CHECK(body.at("AppId") == "0000000048183522");
  CHECK(body.at("DeviceToken") == "eyJ-device");
  CHECK(body.at("Sandbox") == "RETAIL");
  CHECK(body.at("UseModernGamertag") == true);
  CHECK(body.at("SiteName") == "user.auth.xboxlive.com");
  CHECK(body.at("RelyingParty") == "http://xboxlive.com");
  CHECK(body.at("ProofKey") == proof);
}

TEST_CASE("xbox xbl: SISU's answer names the account", "[xbox]") {
  chain_error error;
  auto tokens = read_sisu(answer(200, sisu_body), received, error);
  REQUIRE(tokens);
  CHECK(tokens->user.token == "eyJ-user");
  CHECK(tokens->title.token == "eyJ-title");
  CHECK(tokens->authorization.token == "eyJ-authorization");
  CHECK(tokens->user_hash == "2535405290");
  CHECK(tokens->xuid == "2535405290123456");
  CHECK(tokens->gamertag == "Steve Probe");
  CHECK(tokens->authorization.times.expires_ms - tokens->authorization.times.issued_ms
        == 16LL * 3600 * 1000);

  auto no_claims = json::parse(sisu_body).as_object();
  no_claims["AuthorizationToken"].as_object()["DisplayClaims"] = json::object{};
  CHECK_FALSE(read_sisu(answer(200, json::serialize(no_claims)), received, error));
  CHECK(error.message.find("does not name the account") != std::string::npos);
}

TEST_CASE("xbox xbl: SISU's X-Err header becomes the operator's words", "[xbox]") {
  chain_error error;
  CHECK_FALSE(read_sisu(answer(401, R"({"WebPage":"https://start.ui.xboxlive.com/CreateAccount"})",
                               {{"X-Err", "2148916233"}, {"X-SessionId", "abc"}}),
                        received, error));
  CHECK(error.step == step::sisu);
  CHECK(error.fault == fault::xbox_refused);
  CHECK(error.xerr == 2148916233u);
  CHECK(error.status == 401);
  CHECK(error.message
        == "Xbox sign-in (SISU): the Xbox account has no profile: sign in once at xbox.com to "
           "create one, then link again (XErr 2148916233, XO_E_ACCOUNT_CREATION_REQUIRED)");
  CHECK_FALSE(error.needs_relink());

  // A hex X-Err reads the same.
  CHECK_FALSE(read_sisu(answer(403, "", {{"x-err", "0x8015DC0A"}}), received, error));
  CHECK(error.xerr == 2148916234u);
  CHECK(error.message.find("has not accepted the Xbox terms of use") != std::string::npos);
}

TEST_CASE("xbox xbl: XSTS asks for PlayFab's relying party", "[xbox]") {
  auto call = xsts_call(production, playfab_relying_party, "eyJ-device", "eyJ-title", "eyJ-user");
  CHECK(call.url == "https://xsts.auth.xboxlive.com/xsts/authorize");
  CHECK(call.header_value("x-xbl-contract-version") == "1");
  auto body = body_of(call);
  CHECK(body.at("RelyingParty") == "https://b980a380.minecraft.playfabapi.com/");
  CHECK(body.at("TokenType") == "JWT");
  const auto& p = body.at("Properties").as_object();
  CHECK(p.at("SandboxId") == "RETAIL");
  CHECK(p.at("DeviceToken") == "eyJ-device");
  CHECK(p.at("TitleToken") == "eyJ-title");
  CHECK(p.at("UserTokens") == json::array{"eyJ-user"});
}

TEST_CASE("xbox xbl: XSTS tokens and refusals", "[xbox]") {
  chain_error error;
  auto token = read_xsts(
    answer(200, R"({"IssueInstant":"2020-12-07T19:52:08.4463796Z",)"
                R"("NotAfter":"2020-12-08T11:52:08.4463796Z","Token":"eyJ-xsts",)"
                R"("DisplayClaims":{"xui":[{"uhs":"2535405290"}]}})"),
    received, error);
  REQUIRE(token);
  CHECK(token->xsts.token == "eyJ-xsts");
  CHECK(token->user_hash == "2535405290");
  CHECK(xbl3_authorization(token->user_hash, token->xsts.token)
        == "XBL3.0 x=2535405290;eyJ-xsts");

  // The body form of a refusal, as PojavLauncher's reports quote it.
  CHECK_FALSE(read_xsts(answer(401, R"({"Identity":"0","XErr":2148916238,"Message":"",)"
                                    R"("Redirect":"https://start.ui.xboxlive.com/AddChildToFamily"})"),
                        received, error));
  CHECK(error.step == step::xsts);
  CHECK(error.xerr == 2148916238u);
  CHECK(error.message.find("under 18") != std::string::npos);
  CHECK(error.message.find("XO_E_ACCOUNT_CHILD_NOT_IN_FAMILY") != std::string::npos);

  // The header wins when both are there.
  CHECK_FALSE(read_xsts(answer(401, R"({"XErr":2148916238})", {{"X-Err", "2148916227"}}),
                        received, error));
  CHECK(error.xerr == 2148916227u);
  CHECK(error.message.find("banned") != std::string::npos);

  CHECK_FALSE(read_xsts(answer(401, R"({"XErr":"2148916999"})"), received, error));
  CHECK(error.xerr == 2148916999u);
  CHECK(error.message.find("does not know (XErr 2148916999)") != std::string::npos);

  CHECK_FALSE(read_xsts(answer(200, R"({"Token":"eyJ-xsts","NotAfter":"2020-12-08T11:52:08Z"})"),
                        received, error));
  CHECK(error.fault == fault::bad_answer);
}

TEST_CASE("xbox xerr: the table is sorted, complete where the issue asks, and worded",
          "[xbox]") {
  const auto& table = xerr_table();
  for (std::size_t i = 1; i < table.size(); ++i)
    CHECK(table[i - 1].code < table[i].code);
  for (std::uint32_t code : {2148916227u, 2148916229u, 2148916233u, 2148916234u, 2148916235u,
                             2148916236u, 2148916237u, 2148916238u}) {
    INFO(code);
    const auto* info = find_xerr(code);
    REQUIRE(info);
    CHECK_FALSE(info->summary.empty());
    CHECK_FALSE(info->fix.empty());
    CHECK(info->name.rfind("XO_E_", 0) == 0);
  }
  CHECK(find_xerr(2148916233u)->name == "XO_E_ACCOUNT_CREATION_REQUIRED");
  CHECK(find_xerr(2148916234u)->name == "XO_E_ACCOUNT_TERMS_OF_USE_NOT_ACCEPTED");
  CHECK(find_xerr(2148916238u)->name == "XO_E_ACCOUNT_CHILD_NOT_IN_FAMILY");
  CHECK(find_xerr(2148916227u)->name == "XO_E_ENFORCEMENT_BAN");
  CHECK(find_xerr(1) == nullptr);

  CHECK(parse_xerr("2148916233") == 2148916233u);
  CHECK(parse_xerr(" 0x8015DC09 ") == 0x8015DC09u);
  CHECK(parse_xerr("0x8015dc09") == 2148916233u);
  CHECK(parse_xerr("") == 0);
  CHECK(parse_xerr("-1") == 0);
  CHECK(parse_xerr("99999999999") == 0);
  CHECK(parse_xerr("0x1FFFFFFFF") == 0);
}
