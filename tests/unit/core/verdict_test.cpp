// Tests for core/verdict: each verdict of GET /api/check from plain facts, without
// sockets, and the check body's shape.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "app/service.hpp"
#include "net/raknet/unconnected.hpp"
#include "net/report/raknet_status.hpp"
#include "core/verdict.hpp"
#include "support/json_schema.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
namespace json = boost::json;

namespace {

candidate_fact udp_fact(const std::string& address, std::uint16_t port, const std::string& scope,
                   int reachable, const std::string& refused = {},
                   const std::string& result = {}) {
  candidate_fact c;
  c.address = address;
  c.port = port;
  c.for_players = true;
  c.scope = scope;
  c.reachable = reachable;
  c.rtt_ms = reachable == 1 ? 23.4 : -1;
  c.refused = refused;
  c.check_result = result.empty() && reachable == 0 ? "timeout" : result;
  return c;
}

check_facts facts_with(std::vector<candidate_fact> candidates) {
  check_facts f;
  f.where = target{"play.example.com", 19132, tls_mode::auto_detect};
  f.candidates = std::move(candidates);
  return f;
}

bool mentions(const std::vector<std::string>& texts, const std::string& part) {
  return std::any_of(texts.begin(), texts.end(),
                     [&](const std::string& t) { return t.find(part) != std::string::npos; });
}

} // namespace

TEST_CASE("verdict: joinable when a player candidate answers its check", "[verdict]") {
  auto v = decide(facts_with({udp_fact("203.0.113.9", 19132, "public", 1, {}, "reachable"),
                              udp_fact("10.0.0.5", 19132, "private", -1, "policy")}));
  CHECK(v.kind == verdict_kind::joinable);
  CHECK(mentions(v.reasons, "UDP 203.0.113.9:19132 answered"));
  CHECK(mentions(v.reasons, "23.4 ms"));
  CHECK(v.next_steps.empty());

  // Reachable only through a range the operator allowed (loopback in tests): still joinable,
  // with the warning that players elsewhere cannot use it.
  auto local = decide(facts_with({udp_fact("127.0.0.1", 50000, "loopback", 1, {}, "reachable")}));
  CHECK(local.kind == verdict_kind::joinable);
  CHECK(mentions(local.reasons, "loopback address"));
  CHECK(mentions(local.next_steps, "127.0.0.1"));
}

TEST_CASE("verdict: signalling_only when checked candidates stay silent", "[verdict]") {
  auto v = decide(facts_with({udp_fact("203.0.113.9", 19140, "public", 0),
                              udp_fact("203.0.113.9", 19160, "public", 0)}));
  CHECK(v.kind == verdict_kind::signalling_only);
  CHECK(mentions(v.reasons, "did not answer"));
  CHECK(mentions(v.next_steps, "Open UDP 19140-19160 in the firewall"));

  auto wrong = decide(facts_with({udp_fact("203.0.113.9", 19132, "public", 0, {}, "integrity")}));
  CHECK(wrong.kind == verdict_kind::signalling_only);
  CHECK(mentions(wrong.reasons, "something else answers on that port"));
  CHECK(mentions(wrong.next_steps, "no other program"));

  // Ports far apart are listed, not spanned.
  auto apart = decide(facts_with({udp_fact("203.0.113.9", 19132, "public", 0),
                                  udp_fact("203.0.113.9", 40000, "public", 0)}));
  CHECK(mentions(apart.next_steps, "Open UDP 19132, 40000 in"));
}

TEST_CASE("verdict: private_candidates when only private addresses are advertised",
          "[verdict]") {
  auto v = decide(facts_with({udp_fact("172.17.0.2", 19132, "private", -1, "policy"),
                              udp_fact("192.168.1.20", 19133, "private", -1, "policy")}));
  CHECK(v.kind == verdict_kind::private_candidates);
  CHECK(mentions(v.reasons, "172.17.0.2 (private)"));
  CHECK(mentions(v.next_steps, "The answer advertises 172.17.0.2: map the container's UDP ports"));
  CHECK(mentions(v.next_steps, "192.168.1.20, a private address: forward UDP 19133"));
}

TEST_CASE("verdict: no_candidates for an answer without UDP candidates", "[verdict]") {
  auto none = decide(facts_with({}));
  CHECK(none.kind == verdict_kind::no_candidates);
  CHECK(mentions(none.reasons, "without any candidate"));
  CHECK(mentions(none.next_steps, "server-udp-ports"));

  candidate_fact tcp;
  tcp.address = "203.0.113.9";
  tcp.port = 19132;
  tcp.scope = "public";
  tcp.refused = "not_udp";
  auto tcp_only = decide(facts_with({tcp}));
  CHECK(tcp_only.kind == verdict_kind::no_candidates);
  CHECK(mentions(tcp_only.reasons, "without a UDP candidate"));
}

TEST_CASE("verdict: refused, offline and the errors between", "[verdict]") {
  auto f = facts_with({});
  f.offer_error.code = error_code::upstream_status;
  f.offer_error.http_status = 200;
  f.offer_error.nethernet_error = 13;
  f.offer_error.reason = "FailedToSetRemoteDescription";
  auto refused = decide(f);
  CHECK(refused.kind == verdict_kind::refused);
  CHECK(mentions(refused.reasons, "NetherNet error 13 (FailedToSetRemoteDescription)"));
  CHECK(mentions(refused.next_steps, "/api/explain/13"));

  f.offer_error = failure{};
  f.offer_error.code = error_code::upstream_status;
  f.offer_error.http_status = 404;
  CHECK(decide(f).kind == verdict_kind::refused);
  CHECK(mentions(decide(f).reasons, "HTTP 404"));

  auto off = facts_with({});
  off.info_error = make_failure(error_code::upstream_failure, "connection refused");
  off.offer_tried = false;
  auto offline = decide(off);
  CHECK(offline.kind == verdict_kind::offline);
  CHECK(mentions(offline.reasons, "play.example.com:19132"));
  CHECK(mentions(offline.next_steps, "Open TCP 19132"));
  // RakNet was not asked: nothing is said about it.
  CHECK_FALSE(mentions(offline.reasons, "RakNet"));

  // The status answers but the offer times out: signalling only.
  auto slow = facts_with({});
  slow.offer_error = make_failure(error_code::upstream_timeout, "no answer within 20 s");
  auto s = decide(slow);
  CHECK(s.kind == verdict_kind::signalling_only);
  CHECK(mentions(s.reasons, "no answer within 20 s"));

  CHECK(is_target_failure(make_failure(error_code::upstream_timeout, "")));
  CHECK_FALSE(is_target_failure(make_failure(error_code::forbidden_target, "")));
  CHECK_FALSE(is_target_failure(make_failure(error_code::quota_exhausted, "")));
}

TEST_CASE("verdict: facts read from a probed offer body, and the check body", "[verdict]") {
  std::string offer_body = R"({"ok":true,"candidates":[
    {"address":"203.0.113.9","port":19132,"transport":"udp","component":1,"scope":"public",
     "reachable":true,"rttMs":12.5,"refused":null,"checkResult":"reachable"},
    {"address":"10.0.0.1","port":19132,"transport":"udp","component":1,"scope":"private",
     "reachable":null,"rttMs":null,"refused":"policy","checkResult":null},
    {"address":"203.0.113.9","port":19133,"transport":"tcp","component":1,"scope":"public",
     "reachable":null,"rttMs":null,"refused":"not_udp","checkResult":null}]})";
  auto facts = candidate_facts(offer_body);
  REQUIRE(facts.size() == 3);
  CHECK(facts[0].for_players);
  CHECK(facts[0].reachable == 1);
  CHECK(facts[0].rtt_ms == 12.5);
  CHECK(facts[1].reachable == -1);
  CHECK(facts[1].refused == "policy");
  CHECK_FALSE(facts[2].for_players);
  CHECK(candidate_facts("not json").empty());

  auto f = facts_with(facts);
  auto v = decide(f);
  info_reply info;
  info.body = R"({"ok":true,"status":200})";
  offer_reply offer;
  offer.body = offer_body;
  auto body = json::parse(render_check(f, v, info, offer)).as_object();
  CHECK(body.at("ok") == true);
  CHECK(body.at("verdict") == "joinable");
  CHECK(body.at("host") == "play.example.com");
  CHECK(body.at("port") == 19132);
  CHECK(body.at("reasons").as_array().size() == v.reasons.size());
  CHECK(body.at("nextSteps").is_array());
  CHECK(body.at("info").at("status") == 200);
  CHECK(body.at("infoError").is_null());
  CHECK(body.at("offer").at("candidates").as_array().size() == 3);
  CHECK(body.at("offerError").is_null());

  // A failed offer shows its error body instead.
  offer_reply failed;
  failed.error = make_failure(error_code::upstream_timeout, "no answer");
  f.offer_error = failed.error;
  auto with_error = json::parse(render_check(f, decide(f), info, failed)).as_object();
  CHECK(with_error.at("offer").is_null());
  CHECK(with_error.at("offerError").is_object());
  CHECK(with_error.at("verdict") == "signalling_only");
}

namespace {

/// An offer refused with this HTTP status and body, as make_offer_reply reports it.
failure refusal(std::uint16_t status, const std::string& body, std::int32_t code = -1,
                const std::string& name = {}) {
  failure f;
  f.code = error_code::upstream_status;
  f.http_status = status;
  f.body = body;
  f.nethernet_error = code;
  f.reason = name;
  return f;
}

raknet_reply pong_reply() {
  raknet_reply r;
  r.tried = true;
  r.ok = true;
  r.port = 19132;
  r.latency_ms = 8.3;
  r.protocol = 2193;
  r.version = "1.26.51";
  r.motd = "My Server";
  r.body = R"({"ok":true,"protocol":2193})";
  return r;
}

raknet_reply raknet_failed(const std::string& code, const std::string& message) {
  raknet_reply r;
  r.tried = true;
  r.port = 19132;
  r.code = code;
  r.message = message;
  r.body = R"({"ok":false,"code":")" + code + R"(","error":"x"})";
  return r;
}

bool any_mentions(const check_verdict& v, const std::string& part) {
  return mentions(v.reasons, part) || mentions(v.next_steps, part);
}

} // namespace

TEST_CASE("verdict: the same refusal of a signed-in offer is not_allowed, naming the gamertag",
          "[verdict]") {
  for (const auto& f : {refusal(200, "37", 37, "IdentityVerificationFailed"),
                        refusal(400, "Negotiation failed with error code: 37", 37,
                                "IdentityVerificationFailed"),
                        refusal(401, "")}) {
    INFO(f.http_status << " " << f.body);
    auto facts = facts_with({});
    facts.offer_error = f;
    facts.offered_as = "Fake Steve";
    auto v = decide(facts);
    CHECK(v.kind == verdict_kind::not_allowed);
    CHECK(to_string(v.kind) == "not_allowed");
    CHECK(mentions(v.reasons, "genuine Xbox sign-in, as Fake Steve"));
    CHECK(mentions(v.reasons, "shows no candidates"));
    CHECK(mentions(v.next_steps, "Is Fake Steve on the server's allowlist?"));
    CHECK_FALSE(mentions(v.next_steps, "online-mode=true"));
  }
  // Another refusal of a signed-in offer stays refused: only the online-mode shapes say
  // the player was turned away.
  auto facts = facts_with({});
  facts.offer_error = refusal(400, "Negotiation failed with error code: 13", 13, "");
  facts.offered_as = "Fake Steve";
  CHECK(decide(facts).kind == verdict_kind::refused);
}

TEST_CASE("verdict: every refusal shape of an online-mode server is auth_required",
          "[verdict]") {
  // PROTOCOL.md "Refusals of an anonymous offer": BDS's bare code, go-nethernet's sentence,
  // Pumpkin's three online-mode texts, and 401 with or without a body.
  for (const auto& f : {refusal(200, "37", 37, "IdentityVerificationFailed"),
                        refusal(400, "Negotiation failed with error code: 37", 37,
                                "IdentityVerificationFailed"),
                        refusal(400, "SDP offer is missing its identity assertion"),
                        refusal(400, "invalid GameServerToken: Public key build failed: OIDC "
                                     "header missing kid"),
                        refusal(400, "invalid identity provider"),
                        refusal(401, ""), refusal(401, "Client identity is required")}) {
    INFO(f.http_status << " " << f.body);
    CHECK(classify_refusal(f) == refusal_kind::auth_required);
    auto facts = facts_with({});
    facts.offer_error = f;
    auto v = decide(facts);
    CHECK(v.kind == verdict_kind::auth_required);
    CHECK(mentions(v.reasons, "NetherNet signalling answers on play.example.com:19132"));
    CHECK(mentions(v.reasons, "signed in to Xbox"));
    CHECK(mentions(v.reasons, "shows no candidates"));
    CHECK(mentions(v.next_steps, "online-mode=true"));
    CHECK_FALSE(mentions(v.next_steps, "candidates above"));
  }
  auto facts = facts_with({});
  facts.offer_error = refusal(400, "Negotiation failed with error code: 37", 37,
                              "IdentityVerificationFailed");
  CHECK(mentions(decide(facts).reasons, "NetherNet error 37 (IdentityVerificationFailed)"));
  facts.offer_error = refusal(400, "SDP offer is missing its identity assertion\n");
  CHECK(mentions(decide(facts).reasons,
                 "HTTP 400 \"SDP offer is missing its identity assertion\""));
  facts.offer_error = refusal(401, "");
  CHECK(mentions(decide(facts).reasons, "HTTP 401 and an empty body"));
  // The status call failed: nothing claims that it answered.
  facts.info_error = make_failure(error_code::upstream_timeout, "no answer within 5 s");
  auto v = decide(facts);
  CHECK(v.kind == verdict_kind::auth_required);
  CHECK_FALSE(mentions(v.reasons, "GET /v1/join answered"));
  // RakNet answering too is said.
  facts.raknet = pong_reply();
  CHECK(mentions(decide(facts).reasons, "RakNet status answered on UDP 19132 in 8.3 ms"));
}

TEST_CASE("verdict: faults in our own identity and other codes stay refused", "[verdict]") {
  for (const auto& body : {"identity token has expired",
                           "fingerprint signature verification failed",
                           "invalid identity public key: Public key build failed: OIDC payload "
                           "missing cpk",
                           "malformed JWS", "fingerprint assertion must use ES384"}) {
    INFO(body);
    auto f = refusal(400, body);
    CHECK(classify_refusal(f) == refusal_kind::our_identity);
    auto facts = facts_with({});
    facts.offer_error = f;
    auto v = decide(facts);
    CHECK(v.kind == verdict_kind::refused);
    CHECK(mentions(v.reasons, "a fault it found in this service's offer"));
    CHECK(mentions(v.next_steps, "this service's operators"));
    CHECK_FALSE(mentions(v.next_steps, "online"));
  }
  for (const auto& f : {refusal(200, "13", 13, "FailedToSetRemoteDescription"),
                        refusal(400, "Negotiation failed with error code: 13", 13),
                        refusal(400, "Network ID must be uint64"), refusal(403, ""),
                        refusal(404, "404 page not found"),
                        refusal(400, "WebRTC answer has no UDP host candidate")}) {
    INFO(f.http_status << " " << f.body);
    CHECK(classify_refusal(f) == refusal_kind::other);
    auto facts = facts_with({});
    facts.offer_error = f;
    CHECK(decide(facts).kind == verdict_kind::refused);
  }
  auto facts = facts_with({});
  facts.offer_error = refusal(403, "");
  CHECK(mentions(decide(facts).reasons, "HTTP 403: a policy of the server"));
  CHECK(classify_refusal(make_failure(error_code::upstream_timeout, "slow"))
        == refusal_kind::none);
  CHECK(classify_refusal(failure{}) == refusal_kind::none);
}

TEST_CASE("verdict: raknet_only when RakNet answers and /v1/join does not", "[verdict]") {
  auto facts = facts_with({});
  facts.info_error = make_failure(error_code::upstream_failure,
                                  "cannot connect to play.example.com:19132: Connection refused");
  facts.offer_tried = false;
  facts.raknet = pong_reply();
  auto v = decide(facts);
  CHECK(v.kind == verdict_kind::raknet_only);
  CHECK(mentions(v.reasons, "Nothing answered NetherNet signalling (HTTP or HTTPS) on "
                            "play.example.com:19132: cannot connect"));
  CHECK(mentions(v.reasons, "RakNet status answered on UDP 19132 in 8.3 ms: \"My Server\", "
                            "protocol 2193 (1.26.51)."));
  CHECK(mentions(v.reasons, "Clients before 1.26.30 join only over RakNet"));
  CHECK(mentions(v.next_steps, "transport=nethernet in server.properties"));
  CHECK(mentions(v.next_steps, "open TCP 19132 for signalling"));
  CHECK_FALSE(any_mentions(v, "candidates above"));

  // A web server on the port that is no NetherNet: GET /v1/join is not a 2xx.
  auto web = facts_with({});
  web.info_error = refusal(404, "not found");
  web.offer_error = refusal(404, "not found");
  web.raknet = pong_reply();
  auto w = decide(web);
  CHECK(w.kind == verdict_kind::raknet_only);
  CHECK(mentions(w.reasons, "GET /v1/join got HTTP 404"));
  // Without RakNet the same replies are a refusal, as before.
  web.raknet = raknet_reply{};
  CHECK(decide(web).kind == verdict_kind::refused);
}

TEST_CASE("verdict: offline only when neither transport answers", "[verdict]") {
  auto facts = facts_with({});
  facts.info_error = make_failure(error_code::upstream_timeout, "no answer within 5 s");
  facts.offer_tried = false;
  facts.raknet = raknet_failed("no_listener", "nothing listens on UDP play.example.com:19132");
  auto v = decide(facts);
  CHECK(v.kind == verdict_kind::offline);
  CHECK(mentions(v.reasons, "Nothing listens on UDP 19132: the host answered our RakNet ping "
                            "with ICMP port unreachable"));
  CHECK(mentions(v.next_steps, "Open TCP 19132 (NetherNet signalling) and UDP 19132 (RakNet)"));

  facts.raknet = raknet_failed("timeout", "no answer on UDP play.example.com:19132 within 1000 ms "
                                          "(3 tries)");
  auto t = decide(facts);
  CHECK(t.kind == verdict_kind::offline);
  CHECK(mentions(t.reasons, "RakNet status did not answer: no answer on UDP"));

  // RakNet answering turns the same facts into raknet_only: never offline, never "open TCP".
  facts.raknet = pong_reply();
  auto up = decide(facts);
  CHECK(up.kind == verdict_kind::raknet_only);
  CHECK_FALSE(mentions(up.next_steps, "Open TCP"));
  CHECK_FALSE(mentions(up.reasons, "offline"));
}

TEST_CASE("verdict: a verdict about NetherNet also says RakNet answered", "[verdict]") {
  auto facts = facts_with({udp_fact("203.0.113.9", 19132, "public", 1, {}, "reachable")});
  facts.raknet = pong_reply();
  auto v = decide(facts);
  CHECK(v.kind == verdict_kind::joinable);
  CHECK(mentions(v.reasons, "RakNet status answered on UDP 19132"));
  // A RakNet failure beside a working NetherNet is left to the raknet field.
  facts.raknet = raknet_failed("timeout", "no answer");
  CHECK_FALSE(mentions(decide(facts).reasons, "RakNet"));
}

TEST_CASE("verdict: no text mentions candidates when the reply has none", "[verdict]") {
  // Every path without an SDP answer.
  std::vector<check_facts> cases;
  auto add = [&](auto change) {
    auto f = facts_with({});
    change(f);
    cases.push_back(f);
  };
  add([](check_facts& f) { f.offer_error = refusal(200, "37", 37, "IdentityVerificationFailed"); });
  add([](check_facts& f) { f.offer_error = refusal(200, "13", 13, "FailedToSetRemoteDescription"); });
  add([](check_facts& f) { f.offer_error = refusal(400, "identity token has expired"); });
  add([](check_facts& f) { f.offer_error = refusal(403, ""); });
  add([](check_facts& f) {
    f.offer_error = make_failure(error_code::upstream_timeout, "no answer within 20 s");
  });
  add([](check_facts& f) {
    f.info_error = make_failure(error_code::upstream_failure, "refused");
    f.offer_tried = false;
  });
  add([](check_facts& f) {
    f.info_error = make_failure(error_code::upstream_failure, "refused");
    f.offer_tried = false;
    f.raknet = pong_reply();
  });
  for (const auto& f : cases) {
    auto v = decide(f);
    INFO(to_string(v.kind));
    for (const auto& step : v.next_steps) {
      INFO(step);
      CHECK(step.find("candidate") == std::string::npos);
    }
    for (const auto& reason : v.reasons) {
      INFO(reason);
      // Only the sentence that says there are none may name them.
      CHECK((reason.find("candidate") == std::string::npos
             || reason.find("shows no candidates") != std::string::npos));
    }
  }
}

TEST_CASE("verdict: the check body carries raknet and clients", "[verdict]") {
  auto facts = facts_with({});
  facts.info_error = make_failure(error_code::upstream_failure, "refused");
  facts.offer_tried = false;
  facts.raknet = pong_reply();
  info_reply info;
  info.error = facts.info_error;
  auto body = json::parse(render_check(facts, decide(facts), info, offer_reply{})).as_object();
  CHECK(body.at("verdict") == "raknet_only");
  CHECK(body.at("raknet") == json::object{{"ok", true}, {"protocol", 2193}});
  const auto& clients = body.at("clients").as_object();
  CHECK(clients.at("nethernet") == false);
  CHECK(clients.at("raknet") == true);
  CHECK(clients.at("protocol") == 2193);

  // RakNet not asked: null, and the clients say so.
  facts.raknet = raknet_reply{};
  auto without = json::parse(render_check(facts, decide(facts), info, offer_reply{})).as_object();
  CHECK(without.at("raknet").is_null());
  CHECK(without.at("clients").at("raknet").is_null());
  CHECK(to_string(verdict_kind::auth_required) == "auth_required");
  CHECK(to_string(verdict_kind::raknet_only) == "raknet_only");
}

TEST_CASE("verdict: check bodies with RakNet and clients match the OpenAPI document",
          "[verdict][openapi]") {
  auto doc = json::parse(openapi_document);
  json::value schema = json::object{{"$ref", "#/components/schemas/CheckResult"}};
  auto valid = [&](const std::string& body) {
    auto problems = test::schema_violations(doc, schema, json::parse(body));
    std::string all;
    for (const auto& p : problems)
      all += p + "\n";
    INFO(body << "\n" << all);
    CHECK(problems.empty());
  };
  // A real pong's reply: every field, nulls included.
  raknet_pings pings{1, 100, 3};
  std::string pong(1, '\x1c');
  pong += std::string(7, '\0') + '\x64' + std::string(8, '\x05');
  pong.append(reinterpret_cast<const char*>(raknet::offline_magic.data()), 16);
  std::string text = "MCPE;Name;2193;1.26.51;1;10;;L;Survival;1;19140;-1;0;";
  pong += std::string(1, '\0') + static_cast<char>(text.size()) + text;
  udp_exchange_result answered;
  answered.outcome = udp_outcome::answered;
  answered.reply = pong;
  answered.latency_ms = 3;
  answered.address = "127.0.0.1";
  auto facts = facts_with({});
  facts.info_error = make_failure(error_code::upstream_failure, "refused");
  facts.offer_tried = false;
  facts.raknet = make_raknet_reply(answered, 19132, pings);
  REQUIRE(facts.raknet.ok);
  info_reply info;
  info.error = facts.info_error;
  valid(render_check(facts, decide(facts), info, offer_reply{}));

  udp_exchange_result silent;
  silent.outcome = udp_outcome::no_listener;
  silent.message = "nothing listens";
  facts.raknet = make_raknet_reply(silent, 19132, pings);
  valid(render_check(facts, decide(facts), info, offer_reply{}));

  facts.raknet = raknet_reply{};
  valid(render_check(facts, decide(facts), info, offer_reply{}));
}

namespace {

/// A check whose join ended as the object says, on an answer with one public candidate.
check_facts joined_facts(const std::string& join_json) {
  auto f = facts_with({udp_fact("203.0.113.9", 19140, "public", -1)});
  f.join = join_facts_of(json::parse(join_json).as_object());
  return f;
}

} // namespace

TEST_CASE("verdict: the check's join decides: joined, another version, a failed stage",
          "[verdict]") {
  auto joined = decide(joined_facts(
    R"({"joined":true,"outcome":"joined","stage":"game","reason":"ok",
        "pair":{"remote":"203.0.113.9:19140"},"timings":{"totalMs":15.5},
        "tried":[{"remote":"203.0.113.9:19140","answered":true,"checkedUs":1,"rttMs":0.4}]})"));
  CHECK(joined.kind == verdict_kind::joinable);
  CHECK(mentions(joined.reasons, "reached the game through UDP 203.0.113.9:19140"));
  CHECK(joined.next_steps.empty());

  auto newer = decide(joined_facts(
    R"({"joined":false,"outcome":"outdated_server","stage":"game","reason":"PlayStatus 2",
        "protocol":{"sent":2193,"server":2169,"version":"1.26.45"}})"));
  CHECK(newer.kind == verdict_kind::version_mismatch);
  CHECK(mentions(newer.reasons, "PlayStatus 2"));
  CHECK(mentions(newer.reasons, "1.26.45 (protocol 2169)"));
  CHECK(mentions(newer.next_steps, "Update the server"));
  auto older = decide(joined_facts(
    R"({"joined":false,"outcome":"outdated_client","stage":"game","reason":"PlayStatus 1",
        "protocol":{"sent":100,"server":2193,"version":"1.26.51"}})"));
  CHECK(older.kind == verdict_kind::version_mismatch);
  CHECK(mentions(older.next_steps, "1.26.51 (protocol 2193)"));

  auto dtls = decide(joined_facts(
    R"({"joined":false,"outcome":"dtls_failed","stage":"dtls","reason":"The DTLS handshake failed."})"));
  CHECK(dtls.kind == verdict_kind::join_failed);
  CHECK(mentions(dtls.reasons, "failed at dtls"));
  CHECK(mentions(dtls.next_steps, "/api/explain/dtls_failed"));
  CHECK(dtls.next_steps.size() >= 2);

  auto ice = decide(joined_facts(
    R"({"joined":false,"outcome":"ice_failed","stage":"ice","reason":"No pair.",
        "tried":[{"remote":"203.0.113.9:19140","answered":false,"checkedUs":0,"badIntegrity":2}]})"));
  CHECK(ice.kind == verdict_kind::join_failed);
  CHECK(mentions(ice.reasons, "not with the credentials"));
  CHECK(mentions(ice.next_steps, "Open UDP 19140"));
  CHECK(mentions(ice.next_steps, "no other program"));
}

TEST_CASE("verdict: a join that ended at signalling leaves the verdict to the candidates",
          "[verdict]") {
  // Every candidate refused by the policy: untried, so private_candidates, as the probe said.
  auto f = facts_with({udp_fact("172.17.0.2", 19132, "private", -1)});
  f.join = join_facts_of(json::parse(
    R"({"joined":false,"outcome":"candidates_refused","stage":"signalling","reason":"x","tried":[]})")
                           .as_object());
  auto v = decide(f);
  CHECK(v.kind == verdict_kind::private_candidates);
  CHECK(mentions(v.next_steps, "map the container's UDP ports"));
  // An answer with no candidate: no_candidates.
  auto none = facts_with({});
  none.join = join_facts_of(json::parse(
    R"({"joined":false,"outcome":"no_candidates","stage":"signalling","reason":"x"})").as_object());
  CHECK(decide(none).kind == verdict_kind::no_candidates);
  // A broken join object decides nothing from the join: its fields read as absent, and the
  // candidates decide.
  auto odd = facts_with({udp_fact("203.0.113.9", 19140, "public", -1)});
  odd.join = join_facts_of(json::parse(R"({"joined":"yes","stage":7,"tried":[1,{"remote":5}]})").as_object());
  auto decided = decide(odd);
  CHECK(decided.kind == verdict_kind::signalling_only);
  CHECK_FALSE(decided.reasons.empty());
}
