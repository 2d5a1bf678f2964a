// Tests for net/report/verdict: each verdict of GET /api/check from plain facts, without
// sockets, and the check body's shape.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "net/report/verdict.hpp"

using namespace netherscope;
using namespace netherscope::net;
namespace json = boost::json;

namespace {

candidate_fact udp(const std::string& address, std::uint16_t port, const std::string& scope,
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
  auto v = decide(facts_with({udp("203.0.113.9", 19132, "public", 1, {}, "reachable"),
                              udp("10.0.0.5", 19132, "private", -1, "policy")}));
  CHECK(v.kind == verdict_kind::joinable);
  CHECK(mentions(v.reasons, "UDP 203.0.113.9:19132 answered"));
  CHECK(mentions(v.reasons, "23.4 ms"));
  CHECK(v.next_steps.empty());

  // Reachable only through a range the operator allowed (loopback in tests): still joinable,
  // with the warning that players elsewhere cannot use it.
  auto local = decide(facts_with({udp("127.0.0.1", 50000, "loopback", 1, {}, "reachable")}));
  CHECK(local.kind == verdict_kind::joinable);
  CHECK(mentions(local.reasons, "loopback address"));
  CHECK(mentions(local.next_steps, "127.0.0.1"));
}

TEST_CASE("verdict: signalling_only when checked candidates stay silent", "[verdict]") {
  auto v = decide(facts_with({udp("203.0.113.9", 19140, "public", 0),
                              udp("203.0.113.9", 19160, "public", 0)}));
  CHECK(v.kind == verdict_kind::signalling_only);
  CHECK(mentions(v.reasons, "did not answer"));
  CHECK(mentions(v.next_steps, "Open UDP 19140-19160 in the firewall"));

  auto wrong = decide(facts_with({udp("203.0.113.9", 19132, "public", 0, {}, "integrity")}));
  CHECK(wrong.kind == verdict_kind::signalling_only);
  CHECK(mentions(wrong.reasons, "something else answers on that port"));
  CHECK(mentions(wrong.next_steps, "no other program"));

  // Ports far apart are listed, not spanned.
  auto apart = decide(facts_with({udp("203.0.113.9", 19132, "public", 0),
                                  udp("203.0.113.9", 40000, "public", 0)}));
  CHECK(mentions(apart.next_steps, "Open UDP 19132, 40000 in"));
}

TEST_CASE("verdict: private_candidates when only private addresses are advertised",
          "[verdict]") {
  auto v = decide(facts_with({udp("172.17.0.2", 19132, "private", -1, "policy"),
                              udp("192.168.1.20", 19133, "private", -1, "policy")}));
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
  f.offer_error.nethernet_error = 37;
  f.offer_error.reason = "FailedToSetRemoteDescription";
  auto refused = decide(f);
  CHECK(refused.kind == verdict_kind::refused);
  CHECK(mentions(refused.reasons, "NetherNet error 37 (FailedToSetRemoteDescription)"));

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
