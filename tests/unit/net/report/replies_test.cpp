#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <boost/json.hpp>

#include "core/api_json.hpp"
#include "base/crypto.hpp"
#include "net/report/replies.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
namespace json = boost::json;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream file{std::string{FIXTURES_DIR} + "/" + name, std::ios::binary};
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

net::upstream::fetch_result answered(std::uint16_t status, std::string body, bool tls = false) {
  net::upstream::fetch_result r;
  r.status = status;
  r.body = std::move(body);
  r.tls = tls;
  return r;
}

/// The recorded answers with identities: werift signs with cpk as base64 DER, libwebrtc (through
/// target.js --identity jwk) with cpk as a JWK. Their tokens were issued at these times and
/// live 60 s.
const std::string werift_string_cpk = "werift-0.24.4-answer-identity-string.sdp";
constexpr std::int64_t werift_iat = 1795444121;
const std::string libwebrtc_jwk_cpk = "libwebrtc-wrtc-0.10.0-answer-identity-jwk.sdp";
constexpr std::int64_t libwebrtc_iat = 1795444122;

net::report::offer_context context_at(std::int64_t now, std::string network_id = "1") {
  net::report::offer_context context;
  context.network_id = std::move(network_id);
  context.signalling_port = 19132;
  context.now_unix = now;
  return context;
}

offer_reply reply_to(std::string sdp, std::int64_t now = werift_iat + 5) {
  return make_offer_reply(answered(200, std::move(sdp)), context_at(now));
}

json::object body_of(const offer_reply& reply) {
  REQUIRE(reply.error.ok());
  return json::parse(reply.body).as_object();
}

std::vector<std::string> codes_of(const json::object& body) {
  std::vector<std::string> out;
  for (auto& code : body.at("warningCodes").as_array())
    out.emplace_back(code.as_string());
  // warnings and warningCodes go together, index by index.
  CHECK(body.at("warnings").as_array().size() == out.size());
  return out;
}

bool has(const std::vector<std::string>& codes, const std::string& code) {
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

/// A valid answer around the given media-level lines.
std::string answer_with(const std::string& lines) {
  return "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
         "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 0.0.0.0\r\n"
         + lines + "a=ice-ufrag:abcd\r\na=ice-pwd:0123456789abcdef012345\r\n"
                   "a=fingerprint:sha-256 AA:BB\r\n";
}

/// Replaces the first occurrence of from in text by to; the test fails if there is none.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

/// The SDP with its a=identity value replaced by what edit makes of the decoded assertion's
/// token (the JWT), re-encoded as the stack would.
template <class Edit>
std::string with_edited_token(const std::string& sdp, Edit edit) {
  auto begin = sdp.find("a=identity:") + std::string{"a=identity:"}.size();
  auto end = sdp.find("\r\n", begin);
  auto outer = json::parse(*base::base64_decode(sdp.substr(begin, end - begin))).as_object();
  auto assertion = json::parse(outer.at("assertion").as_string()).as_object();
  assertion["token"] = edit(std::string{assertion.at("token").as_string()});
  outer["assertion"] = json::serialize(assertion);
  auto value = base::base64_encode(json::serialize(outer));
  return sdp.substr(0, begin) + value + sdp.substr(end);
}

} // namespace

// -- the shape of a reply -------------------------------------------------------------------------

TEST_CASE("offer replies: a libwebrtc answer becomes SPEC 2.2", "[replies]") {
  auto reply = make_offer_reply(answered(200, fixture("libwebrtc-m106-answer.sdp"), true),
                                context_at(1, "42"));
  auto body = body_of(reply);
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
  CHECK(first.at("generation") == 0);
  CHECK(first.at("iceNetworkId") == 2);
  CHECK_FALSE(first.contains("relatedAddress"));
  CHECK_FALSE(first.contains("tcpType"));
  CHECK_FALSE(first.contains("extensions"));
  CHECK(first.at("scope") == "loopback");
  CHECK(first.at("usedByDataChannels") == true);
  CHECK(first.at("usableByPlayers") == false);
  CHECK(first.at("publicAddress") == false);
  auto tcp = body.at("candidates").as_array()[2].as_object();
  CHECK(tcp.at("transport") == "tcp");
  CHECK(tcp.at("tcpType") == "passive");
  CHECK(tcp.at("usableByPlayers") == false);
  // Loopback only: the commonest reason players cannot join, said once for the answer; and
  // this answer has no identity.
  CHECK(codes_of(body) == std::vector<std::string>{"udp_not_public", "identity_missing"});
}

TEST_CASE("offer replies: zero candidates is exhausted, and said in words", "[replies]") {
  auto body = body_of(reply_to(fixture("libwebrtc-m106-answer-no-candidates.sdp")));
  CHECK(body.at("candidates").as_array().empty());
  CHECK(body.at("exhausted") == true);
  CHECK(codes_of(body) == std::vector<std::string>{"no_candidates", "identity_missing"});
}

TEST_CASE("offer replies: candidate lines that are all malformed are not exhausted", "[replies]") {
  auto body = body_of(reply_to(answer_with("a=candidate:broken\r\na=candidate:1 1 udp x\r\n")));
  CHECK(body.at("candidates").as_array().empty());
  CHECK(body.at("exhausted") == false);
  auto codes = codes_of(body);
  CHECK(std::count(codes.begin(), codes.end(), "candidate_left_out") == 2);
  CHECK_FALSE(has(codes, "no_candidates"));
}

TEST_CASE("offer replies: public, srflx and malformed candidates", "[replies]") {
  auto sdp = answer_with(
    "a=candidate:1 1 UDP 2122260223 203.0.113.10 19140 typ HOST\r\n"
    "a=candidate:2 1 udp 1686052607 8.8.8.8 40000 typ srflx raddr 10.0.0.2 rport 40001\r\n"
    "a=candidate:broken\r\n");
  auto body = body_of(reply_to(sdp));
  auto& candidates = body.at("candidates").as_array();
  REQUIRE(candidates.size() == 2);
  CHECK(candidates[0].at("transport") == "udp");
  CHECK(candidates[0].at("type") == "host");
  CHECK(candidates[0].at("scope") == "documentation");
  CHECK(candidates[0].at("publicAddress") == false);
  CHECK(candidates[0].at("usableByPlayers") == false);
  CHECK(candidates[1].at("scope") == "public");
  CHECK(candidates[1].at("publicAddress") == true);
  CHECK(candidates[1].at("usableByPlayers") == true);
  CHECK(candidates[1].at("relatedAddress") == "10.0.0.2");
  CHECK(candidates[1].at("relatedPort") == 40001);
  // One public UDP candidate is enough: only the malformed line and the identity are reported.
  CHECK(codes_of(body) == std::vector<std::string>{"candidate_left_out", "identity_missing"});
  // Which line is left out is the warning's content: line 9 of this answer.
  CHECK(body.at("warnings").as_array()[0].as_string().find("line 9") != json::string::npos);
  CHECK(body.at("exhausted") == false);
}

TEST_CASE("offer replies: candidate extensions are kept", "[replies]") {
  auto sdp = answer_with(
    "a=candidate:candidate:1 1 udp 2130706431 8.8.4.4 19132 typ host generation 0 ufrag abcd "
    "network-id 3 network-cost 10 x-odd yes\r\n");
  auto body = body_of(reply_to(sdp));
  auto& c = body.at("candidates").as_array().at(0).as_object();
  CHECK(c.at("generation") == 0);
  CHECK(c.at("iceNetworkId") == 3);
  CHECK(c.at("iceNetworkCost") == 10);
  CHECK(c.at("extensions") == json::parse(R"({"ufrag":"abcd","x-odd":"yes"})"));
  // 19132 is also the signalling port of the context.
  CHECK(has(codes_of(body), "signalling_port_reused"));
}

TEST_CASE("offer replies: pion's component-2 duplicates are flagged", "[replies]") {
  // The shape pion writes: every candidate again as component 2 (PROTOCOL.md §2.2).
  auto sdp = answer_with(
    "a=candidate:1 1 udp 2130706431 8.8.4.4 40000 typ host\r\n"
    "a=candidate:1 2 udp 2130706430 8.8.4.4 40000 typ host\r\n");
  auto body = body_of(reply_to(sdp));
  auto& candidates = body.at("candidates").as_array();
  REQUIRE(candidates.size() == 2);
  CHECK(candidates[0].at("usedByDataChannels") == true);
  CHECK(candidates[0].at("usableByPlayers") == true);
  CHECK(candidates[1].at("usedByDataChannels") == false);
  CHECK(candidates[1].at("usableByPlayers") == false);
  CHECK(candidates[1].at("publicAddress") == true);
  CHECK(codes_of(body) == std::vector<std::string>{"component_not_used", "identity_missing"});
}

// -- what is not an answer ------------------------------------------------------------------------

TEST_CASE("offer replies: NetherNet error codes are named", "[replies]") {
  auto bare = reply_to("37");
  CHECK(bare.error.code == error_code::upstream_status);
  CHECK(bare.error.http_status == 200);
  CHECK(bare.error.nethernet_error == 37);
  CHECK(bare.error.reason == "IdentityVerificationFailed");
  auto go = make_offer_reply(answered(400, "Negotiation failed with error code: 13\n"),
                             context_at(1));
  CHECK(go.error.code == error_code::upstream_status);
  CHECK(go.error.http_status == 400);
  CHECK(go.error.nethernet_error == 13);
  CHECK(go.error.reason == "FailedToSetRemoteDescription");
}

TEST_CASE("offer replies: other failures", "[replies]") {
  auto pumpkin = make_offer_reply(answered(400, "SDP offer is missing its identity assertion"),
                                  context_at(1));
  CHECK(pumpkin.error.code == error_code::upstream_status);
  CHECK(pumpkin.error.nethernet_error == -1);
  CHECK(pumpkin.error.body == "SDP offer is missing its identity assertion");
  auto sdp_with_error_status = make_offer_reply(answered(500, "v=0\r\n"), context_at(1));
  CHECK(sdp_with_error_status.error.code == error_code::upstream_status);
  net::upstream::fetch_result unreachable;
  unreachable.error = make_failure(error_code::upstream_failure, "connect: refused");
  CHECK(make_offer_reply(std::move(unreachable), context_at(1)).error.message
        == "connect: refused");
}

TEST_CASE("offer replies: a 2xx that is no SDP answer is upstream_invalid_answer", "[replies]") {
  auto garbage = reply_to("hello");
  CHECK(garbage.error.code == error_code::upstream_invalid_answer);
  // The quote is the target's data, which the message is the only place for.
  CHECK(garbage.error.message.find("\"hello\"") != std::string::npos);
  for (auto empty : {"", " \r\n"}) {
    auto reply = reply_to(empty);
    CHECK(reply.error.code == error_code::upstream_invalid_answer);
    // No message ends in an empty quote or a dangling colon.
    CHECK(reply.error.message.find("\"\"") == std::string::npos);
    CHECK(reply.error.message.back() != ' ');
    CHECK(reply.error.message.back() != ':');
  }
  auto no_content = make_offer_reply(answered(204, ""), context_at(1));
  CHECK(no_content.error.code == error_code::upstream_invalid_answer);
}

TEST_CASE("offer replies: an SDP lacking a part is upstream_invalid_answer, never exhausted",
          "[replies]") {
  auto good = fixture("libwebrtc-m106-answer-no-candidates.sdp");
  REQUIRE(reply_to(good).error.ok());
  struct broken {
    std::string sdp;
    net::nethernet::answer_problem problem;
  };
  auto without = [&](const std::string& prefix) {
    auto at = good.find(prefix);
    REQUIRE(at != std::string::npos);
    return good.substr(0, at) + good.substr(good.find("\r\n", at) + 2);
  };
  auto c = GENERATE_COPY(values<broken>({
    {without("a=ice-ufrag:"), net::nethernet::answer_problem::no_ice_ufrag},
    {without("a=ice-pwd:"), net::nethernet::answer_problem::no_ice_pwd},
    {without("a=fingerprint:"), net::nethernet::answer_problem::no_fingerprint},
    {without("m=application"), net::nethernet::answer_problem::no_media},
    {replaced(good, "m=application 9", "m=application 0"), net::nethernet::answer_problem::rejected_media},
    {replaced(good, "m=application", "m=audio"), net::nethernet::answer_problem::not_application},
    {replaced(good, "a=mid:0\r\n", "a=mid:0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"),
     net::nethernet::answer_problem::several_media},
    {"v=0\r\n", net::nethernet::answer_problem::no_media},
    {replaced(good, "v=0", "v=1"), net::nethernet::answer_problem::no_version},
  }));
  INFO(c.sdp);
  CHECK(net::nethernet::parse_answer(c.sdp).problem_code == c.problem);
  auto reply = reply_to(c.sdp);
  CHECK(reply.error.code == error_code::upstream_invalid_answer);
  CHECK(reply.body.empty());
  // The message names what is missing; it is the problem sentence of parse_answer.
  CHECK(reply.error.message.find(net::nethernet::parse_answer(c.sdp).problem) != std::string::npos);
}

TEST_CASE("offer replies: CRLF, LF and CR-only answers read alike", "[replies]") {
  auto crlf = fixture(werift_string_cpk);
  auto with_ends = [&](const std::string& end) {
    std::string out;
    for (std::size_t i = 0; i < crlf.size(); ++i) {
      if (crlf.compare(i, 2, "\r\n") == 0) {
        out += end;
        ++i;
      } else {
        out += crlf[i];
      }
    }
    return out;
  };
  auto expected = body_of(reply_to(crlf));
  for (auto end : {"\n", "\r"}) {
    INFO("line end " << (end[0] == '\n' ? "LF" : "CR"));
    auto body = body_of(reply_to(with_ends(end)));
    CHECK(body.at("candidates") == expected.at("candidates"));
    CHECK(body.at("identity") == expected.at("identity"));
    CHECK(body.at("identity").at("verified") == true);
    CHECK(body.at("iceUfrag") == "3602");
    CHECK(body.at("exhausted") == false);
  }
}

TEST_CASE("offer replies: invalid UTF-8 in an answer stays valid JSON", "[replies]") {
  std::string sdp = "v=0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"
                    "a=ice-ufrag:ab\xff\xfe\r\na=ice-pwd:x\r\na=fingerprint:sha-256 \xc3\r\n"
                    "s=\xe2\x82\r\n";
  auto reply = reply_to(sdp);
  REQUIRE(reply.error.ok());
  boost::system::error_code ec;
  auto body = json::parse(reply.body, ec);
  REQUIRE_FALSE(ec);
  CHECK(body.at("iceUfrag").as_string().find("\xEF\xBF\xBD") != json::string::npos);
}

// -- the answer's identity ------------------------------------------------------------------------

TEST_CASE("offer replies: identities with cpk as a string and as a JWK verify", "[replies]") {
  struct recorded {
    std::string file;
    std::int64_t iat;
    const char* issued;
    const char* expires;
  };
  auto r = GENERATE_COPY(values<recorded>({
    {werift_string_cpk, werift_iat, "2026-11-23T14:28:41Z", "2026-11-23T14:29:41Z"},
    {libwebrtc_jwk_cpk, libwebrtc_iat, "2026-11-23T14:28:42Z", "2026-11-23T14:29:42Z"},
  }));
  INFO(r.file);
  auto body = body_of(reply_to(fixture(r.file), r.iat + 30));
  auto& identity = body.at("identity").as_object();
  CHECK(identity.at("present") == true);
  CHECK(identity.at("verified") == true);
  CHECK(identity.at("keySha256").as_string().size() == 64);
  CHECK(identity.at("issuedAt") == r.issued);
  CHECK(identity.at("expiresAt") == r.expires);
  CHECK(identity.at("error").is_null());
  CHECK(identity.at("errorCode").is_null());
  // No key memory was given, so nothing is said about a previous key.
  CHECK_FALSE(identity.contains("keyChanged"));
  CHECK_FALSE(identity.contains("previousKeySha256"));
  auto codes = codes_of(body);
  CHECK_FALSE(has(codes, "identity_missing"));
  CHECK_FALSE(has(codes, "identity_unverified"));
}

TEST_CASE("offer replies: an identity that fails stays ok with a warning", "[replies]") {
  auto sdp = fixture(werift_string_cpk);
  struct failing {
    const char* what;
    std::string sdp;
    std::int64_t now;
    const char* code;
  };
  // Flipping one character of the token's signature (the part after the last dot).
  auto tampered = with_edited_token(sdp, [](std::string token) {
    auto& c = token[token.rfind('.') + 5];
    c = c == 'A' ? 'B' : 'A';
    return token;
  });
  // The same identity over a DTLS certificate it does not name.
  auto other_fingerprint =
    replaced(sdp, "a=fingerprint:sha-256 A1:6B", "a=fingerprint:sha-256 A1:6C");
  auto f = GENERATE_COPY(values<failing>({
    {"expired", sdp, werift_iat + 61, "expired"},
    {"tampered signature", tampered, werift_iat + 5, "token_signature"},
    {"wrong fingerprint", other_fingerprint, werift_iat + 5, "fingerprint_signature"},
  }));
  INFO(f.what);
  auto body = body_of(reply_to(f.sdp, f.now));
  CHECK(body.at("ok") == true);
  auto& identity = body.at("identity").as_object();
  CHECK(identity.at("present") == true);
  CHECK(identity.at("verified") == false);
  CHECK(identity.at("errorCode") == f.code);
  CHECK(identity.at("error").is_string());
  CHECK(has(codes_of(body), "identity_unverified"));
  if (std::string{f.code} != "token_signature") {
    // The key signed its own token, so it is worth reporting even though a check failed.
    CHECK(identity.at("keySha256").as_string().size() == 64);
  } else {
    CHECK(identity.at("keySha256").is_null());
    CHECK(identity.at("issuedAt").is_null());
  }
}

TEST_CASE("offer replies: a remembered key is compared when one is given", "[replies]") {
  auto sdp = fixture(libwebrtc_jwk_cpk);
  auto key = std::string{
    body_of(reply_to(sdp, libwebrtc_iat)).at("identity").at("keySha256").as_string()};
  auto context = context_at(libwebrtc_iat);
  context.previous_key_sha256 = key;
  auto same = json::parse(make_offer_reply(answered(200, sdp), context).body).as_object();
  CHECK(same.at("identity").at("keyChanged") == false);
  CHECK_FALSE(same.at("identity").as_object().contains("previousKeySha256"));
  CHECK_FALSE(has(codes_of(same), "identity_key_changed"));

  context.previous_key_sha256 = std::string(64, '0');
  auto changed = json::parse(make_offer_reply(answered(200, sdp), context).body).as_object();
  CHECK(changed.at("identity").at("keyChanged") == true);
  CHECK(changed.at("identity").at("previousKeySha256") == std::string(64, '0').c_str());
  CHECK(has(codes_of(changed), "identity_key_changed"));
}

TEST_CASE("offer replies: offerIdentity says what our offer carried", "[replies]") {
  auto sdp = fixture("libwebrtc-m106-answer.sdp");
  auto self_signed = body_of(make_offer_reply(answered(200, sdp), context_at(1)));
  CHECK(json::serialize(self_signed.at("offerIdentity")) == R"({"kind":"self"})");
  auto quiet = codes_of(self_signed);
  CHECK(std::count(quiet.begin(), quiet.end(), "xbox_link_failing") == 0);

  auto context = context_at(1);
  context.offered_as = "Fake Steve";
  auto signed_in = body_of(make_offer_reply(answered(200, sdp), context));
  CHECK(json::serialize(signed_in.at("offerIdentity"))
        == R"({"kind":"xbox","gamertag":"Fake Steve"})");

  context = context_at(1);
  context.link_failing = true;
  auto failing = body_of(make_offer_reply(answered(200, sdp), context));
  CHECK(json::serialize(failing.at("offerIdentity")) == R"({"kind":"self"})");
  auto codes = codes_of(failing);
  CHECK(std::count(codes.begin(), codes.end(), "xbox_link_failing") == 1);
}

TEST_CASE("offer replies: RFC 3339 times cover years 0000 to 9999 only", "[replies]") {
  CHECK(base::rfc3339_utc(0) == "1970-01-01T00:00:00Z");
  CHECK(base::rfc3339_utc(-1) == "1969-12-31T23:59:59Z");
  CHECK(base::rfc3339_utc(253402300799) == "9999-12-31T23:59:59Z");
  CHECK(base::rfc3339_utc(-62167219200) == "0000-01-01T00:00:00Z");
  CHECK_FALSE(base::rfc3339_utc(253402300800).has_value());
  CHECK_FALSE(base::rfc3339_utc(-62167219201).has_value());
  CHECK_FALSE(base::rfc3339_utc(INT64_MAX).has_value());
  CHECK_FALSE(base::rfc3339_utc(INT64_MIN).has_value());
}

