#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <boost/json/parse.hpp>

#include "net/report/replies.hpp"
#include "net/api/api_json.hpp"

using namespace netherscope;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream file{std::string{FIXTURES_DIR} + "/" + name, std::ios::binary};
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

net::fetch_result answered(std::uint16_t status, std::string body, bool tls = false) {
  net::fetch_result r;
  r.status = status;
  r.body = std::move(body);
  r.tls = tls;
  return r;
}

} // namespace

TEST_CASE("offer replies: a libwebrtc answer becomes SPEC 2.2", "[replies]") {
  auto reply = make_offer_reply(answered(200, fixture("libwebrtc-m106-answer.sdp"), true), "42");
  REQUIRE(reply.error.ok());
  auto body = boost::json::parse(reply.body).as_object();
  CHECK(body.at("ok") == true);
  CHECK(body.at("answer").as_string().find("v=0\r\n") == 0);
  CHECK(body.at("candidates").as_array().size() == 4);
  CHECK(body.at("exhausted") == false);
  CHECK(body.at("iceUfrag") == "bOZZ");
  CHECK(body.at("answerFingerprint").as_string().find("sha-256 01:E3:E3:29") == 0);
  CHECK(body.at("networkId") == "42");
  CHECK(body.at("tls") == true);
  auto first = body.at("candidates").as_array()[0].as_object();
  CHECK(first.at("raw")
        == "candidate:559267639 1 udp 2122267903 ::1 44206 typ host generation 0 network-id 2");
  CHECK(first.at("foundation") == "559267639");
  CHECK(first.at("component") == 1);
  CHECK(first.at("transport") == "udp");
  CHECK(first.at("priority") == 2122267903);
  CHECK(first.at("address") == "::1");
  CHECK(first.at("port") == 44206);
  CHECK(first.at("type") == "host");
  CHECK_FALSE(first.contains("relatedAddress"));
  // Loopback candidates are flagged: the commonest reason players cannot join.
  CHECK(first.at("publicAddress") == false);
  CHECK(body.at("warnings").as_array().size() == 4);
}

TEST_CASE("offer replies: zero candidates is exhausted", "[replies]") {
  auto reply = make_offer_reply(answered(200, fixture("libwebrtc-m106-answer-no-candidates.sdp")),
                                "1");
  REQUIRE(reply.error.ok());
  auto body = boost::json::parse(reply.body).as_object();
  CHECK(body.at("candidates").as_array().empty());
  CHECK(body.at("exhausted") == true);
}

TEST_CASE("offer replies: public, srflx and malformed candidates", "[replies]") {
  std::string sdp =
    "v=0\r\na=ice-ufrag:abcd\r\na=fingerprint:sha-256 AA:BB\r\n"
    "a=candidate:1 1 udp 2122260223 203.0.113.10 19140 typ host\r\n"
    "a=candidate:2 1 udp 1686052607 8.8.8.8 40000 typ srflx raddr 10.0.0.2 rport 40001\r\n"
    "a=candidate:broken\r\n";
  auto reply = make_offer_reply(answered(200, sdp), "1");
  REQUIRE(reply.error.ok());
  auto body = boost::json::parse(reply.body).as_object();
  auto& candidates = body.at("candidates").as_array();
  REQUIRE(candidates.size() == 2);
  // 203.0.113.0/24 is a documentation range, so not public.
  CHECK(candidates[0].at("publicAddress") == false);
  CHECK(candidates[1].at("publicAddress") == true);
  CHECK(candidates[1].at("relatedAddress") == "10.0.0.2");
  CHECK(candidates[1].at("relatedPort") == 40001);
  auto& warnings = body.at("warnings").as_array();
  REQUIRE(warnings.size() == 2);
  // A warning is text for the server's owner, and which line it points at is its content.
  CHECK(warnings[0].as_string().find("line 6") != boost::json::string::npos);
  CHECK(body.at("exhausted") == false);
}

TEST_CASE("offer replies: NetherNet error codes are named", "[replies]") {
  auto bare = make_offer_reply(answered(200, "37"), "1");
  CHECK(bare.error.code == error_code::upstream_status);
  CHECK(bare.error.http_status == 200);
  CHECK(bare.error.nethernet_error == 37);
  CHECK(bare.error.reason == "IdentityVerificationFailed");
  auto go = make_offer_reply(answered(400, "Negotiation failed with error code: 13\n"), "1");
  CHECK(go.error.code == error_code::upstream_status);
  CHECK(go.error.http_status == 400);
  CHECK(go.error.nethernet_error == 13);
  CHECK(go.error.reason == "FailedToSetRemoteDescription");
}

TEST_CASE("offer replies: other failures", "[replies]") {
  auto pumpkin = make_offer_reply(answered(400, "SDP offer is missing its identity assertion"),
                                  "1");
  CHECK(pumpkin.error.code == error_code::upstream_status);
  CHECK(pumpkin.error.nethernet_error == -1);
  CHECK(pumpkin.error.body == "SDP offer is missing its identity assertion");
  auto garbage = make_offer_reply(answered(200, "hello"), "1");
  CHECK(garbage.error.code == error_code::upstream_failure);
  // PRODUCT.md: such a 2xx is "a 502 string quoting its start"; the quote is the target's
  // data, which the message is the only place for.
  CHECK(garbage.error.message.find("hello") != std::string::npos);
  auto sdp_with_error_status = make_offer_reply(answered(500, "v=0\r\n"), "1");
  CHECK(sdp_with_error_status.error.code == error_code::upstream_status);
  net::fetch_result unreachable;
  unreachable.error = make_failure(error_code::upstream_failure, "connect: refused");
  CHECK(make_offer_reply(std::move(unreachable), "1").error.message == "connect: refused");
}

TEST_CASE("offer bodies: cache flags are appended", "[replies]") {
  std::string body = R"({"ok":true,"exhausted":false})";
  CHECK(net::with_cache_flags(body, false, false) == body);
  auto cached = boost::json::parse(net::with_cache_flags(body, true, false)).as_object();
  CHECK(cached.at("cached") == true);
  CHECK_FALSE(cached.contains("stale"));
  auto stale = boost::json::parse(net::with_cache_flags(body, true, true)).as_object();
  CHECK(stale.at("cached") == true);
  CHECK(stale.at("stale") == true);
}

TEST_CASE("offer bodies: invalid UTF-8 in an answer stays valid JSON", "[replies]") {
  std::string sdp = "v=0\r\na=ice-ufrag:ab\xff\xfe\r\na=fingerprint:sha-256 \xc3\r\ns=\xe2\x82\r\n";
  auto reply = make_offer_reply(answered(200, sdp), "1");
  REQUIRE(reply.error.ok());
  boost::system::error_code ec;
  auto body = boost::json::parse(reply.body, ec);
  REQUIRE_FALSE(ec);
  CHECK(body.at("iceUfrag").as_string().find("\xEF\xBF\xBD") != boost::json::string::npos);
}
