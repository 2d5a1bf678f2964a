// POST /api/join without sockets: the body it reads, the join object it renders from a
// worker's report or from how signalling ended, and the reply of two players.
#include <catch2/catch.hpp>

#include <string>

#include <boost/json.hpp>

#include "core/explain.hpp"
#include "core/join_request.hpp"
#include "core/clients.hpp"
#include "net/report/join_reply.hpp"

namespace join = netherscope::net::join;
namespace report = netherscope::net::report;
namespace core = netherscope::core;
namespace json = boost::json;

namespace {

report::join_context context() {
  report::join_context c;
  c.order.network_id = "77";
  c.order.protocol = 2193;
  c.order.server_protocol = 2193;
  c.order.server_version = "1.26.51";
  c.signalling_ms = 3;
  c.offer = json::object{{"ok", true}};
  c.offer_error = nullptr;
  return c;
}

join::join_report joined_report() {
  join::join_report r;
  r.stage = join::join_stage::game;
  r.outcome = join::join_outcome::joined;
  r.tried.push_back({"candidate:1 1 udp 1 203.0.113.9 19140 typ host", "203.0.113.9:19140", 2,
                     true, 1, 0, false, 0.4});
  r.pair = 0;
  r.local = "0.0.0.0:50000";
  r.role = join::dtls_role::server;
  r.fingerprint_verified = true;
  r.srtp_profile = "SRTP_AES128_CM_SHA1_80";
  r.reliable_open = r.unreliable_open = true;
  r.protocol_sent = 2193;
  r.compression_threshold = 1;
  r.compression_algorithm = 0;
  r.timings = {2, 6, 2, 1, 1, 12};
  return r;
}

} // namespace

TEST_CASE("join body: what POST /api/join reads, and what it refuses", "[join]") {
  core::failure error;
  auto req = core::parse_join_body(R"({"host":"play.example.com"})", error);
  REQUIRE(req);
  CHECK(req->where.port == 19132);
  CHECK(req->players == 1);
  CHECK(req->protocol == 0);
  CHECK(req->network_id.empty());

  req = core::parse_join_body(
    R"({"host":"play.example.com","port":19133,"players":2,"protocol":2193,"networkId":"5"})",
    error);
  REQUIRE(req);
  CHECK(req->players == 2);
  CHECK(req->protocol == 2193);
  CHECK(req->network_id == "5");

  for (const char* bad :
       {R"({"host":"a.example","players":0})", R"({"host":"a.example","players":3})",
        R"({"host":"a.example","players":"1"})", R"({"host":"a.example","protocol":0})",
        R"({"host":"a.example","protocol":2147483648})", R"({"host":"a.example","protocol":1.5})",
        R"({"host":"a.example","networkId":12})", R"({"port":19132})", "[]", "{"}) {
    INFO(bad);
    core::failure why;
    CHECK_FALSE(core::parse_join_body(bad, why));
    CHECK(why.code == core::error_code::invalid_input);
    CHECK_FALSE(why.message.empty());
  }
}

TEST_CASE("join body: a joined report renders the issue's shape", "[join]") {
  auto result = report::describe_join(joined_report(), context());
  CHECK(result.joined);
  CHECK(result.outcome == "joined");
  CHECK(result.stage == "game");
  auto& b = result.body;
  CHECK(b.at("reason") == json::value(core::explanation_meaning("joined")));
  CHECK(b.at("protocol") == json::object{{"sent", 2193}, {"server", 2193}, {"version", "1.26.51"}});
  CHECK(b.at("pair").as_object().at("remote") == "203.0.113.9:19140");
  CHECK(b.at("pair").as_object().at("rttMs") == 0.4);
  CHECK(b.at("dtls").as_object().at("srtp") == true);
  CHECK(b.at("dtls").as_object().at("alert").is_null());
  CHECK(b.at("networkSettings")
        == json::object{{"compressionThreshold", 1}, {"compressionAlgorithm", "zlib"}});
  auto& t = b.at("timings").as_object();
  CHECK(t.at("signallingMs") == 3.0);
  CHECK(t.at("totalMs") == 15.0);
  CHECK(b.at("offerIdentity") == json::object{{"kind", "self"}});
  CHECK(b.at("offer") == json::object{{"ok", true}});
}

TEST_CASE("join body: a failure names its stage, its sentence and the worker's words", "[join]") {
  auto r = joined_report();
  r.stage = join::join_stage::dtls;
  r.outcome = join::join_outcome::dtls_failed;
  r.detail = "alert 71 insufficient security from the server";
  r.alert = "insufficient security";
  r.alert_from_peer = true;
  r.srtp_profile.clear();
  r.compression_threshold.reset();
  r.timings = {2, -1, -1, -1, -1, 900};
  auto result = report::describe_join(r, context());
  CHECK_FALSE(result.joined);
  auto& b = result.body;
  CHECK(b.at("stage") == "dtls");
  auto reason = std::string{b.at("reason").as_string()};
  CHECK(reason.rfind(core::explanation_meaning("dtls_failed"), 0) == 0);
  CHECK(reason.find("alert 71") != std::string::npos);
  CHECK(b.at("dtls").as_object().at("alertFrom") == "server");
  CHECK(b.at("channels").is_null());
  CHECK(b.at("networkSettings").is_null());
  CHECK(b.at("timings").as_object().at("dtlsMs").is_null());

  // The worker's words are a stranger's at one remove: bounded and valid UTF-8.
  r.detail = std::string(5000, 'x') + "\xff\xfe";
  auto rendered = json::serialize(report::describe_join(r, context()).body);
  CHECK(rendered.size() < 4000);
  CHECK_NOTHROW(json::parse(rendered));
}

TEST_CASE("join body: signalling outcomes follow the offer's error", "[join]") {
  auto timeout = core::make_failure(core::error_code::upstream_timeout, "slow");
  CHECK(report::signalling_outcome(timeout, false) == "offer_timeout");
  auto down = core::make_failure(core::error_code::upstream_failure, "refused");
  CHECK(report::signalling_outcome(down, false) == "offer_unreachable");
  auto online = core::make_failure(core::error_code::upstream_status, "401");
  online.http_status = 401;
  CHECK(report::signalling_outcome(online, false) == "auth_required");
  CHECK(report::signalling_outcome(online, true) == "not_allowed");
  auto other = core::make_failure(core::error_code::upstream_status, "500");
  other.http_status = 500;
  CHECK(report::signalling_outcome(other, false) == "offer_refused");

  auto u = report::unjoined("signalling", "offer_timeout", {}, context());
  CHECK(u.stage == "signalling");
  CHECK(u.body.at("joined") == false);
  CHECK(u.body.at("tried").as_array().empty());
  CHECK_FALSE(u.body.at("reason").as_string().empty());
}

TEST_CASE("join body: two players and the port pool", "[join]") {
  auto yes = report::describe_join(joined_report(), context());
  auto r = joined_report();
  r.stage = join::join_stage::ice;
  r.outcome = join::join_outcome::ice_failed;
  auto no = report::describe_join(r, context());
  CHECK(report::port_pool(yes, yes) == "enough");
  CHECK(report::port_pool(yes, no) == "one_port");
  CHECK(report::port_pool(no, yes) == "one_port");
  CHECK(report::port_pool(no, no).is_null());

  auto one = json::parse(report::render_join(yes, nullptr)).as_object();
  CHECK(one.at("ok") == true);
  CHECK_FALSE(one.contains("second"));
  auto two = json::parse(report::render_join(yes, &no)).as_object();
  CHECK(two.at("second").as_object().at("outcome") == "ice_failed");
  CHECK(two.at("portPool") == "one_port");
}

TEST_CASE("join body: every outcome has its explanation, and the newest protocol is known",
          "[join]") {
  for (auto o : {join::join_outcome::joined, join::join_outcome::outdated_client,
                 join::join_outcome::outdated_server, join::join_outcome::game_refused,
                 join::join_outcome::game_silent, join::join_outcome::game_unreadable,
                 join::join_outcome::channels_refused, join::join_outcome::sctp_failed,
                 join::join_outcome::dtls_failed, join::join_outcome::fingerprint_mismatch,
                 join::join_outcome::ice_failed, join::join_outcome::worker_failed}) {
    INFO(join::to_string(o));
    CHECK_FALSE(core::explanation_meaning(join::to_string(o)).empty());
  }
  for (const char* code : {"no_candidates", "candidates_refused", "offer_refused",
                           "offer_timeout", "offer_unreachable", "offer_unreadable",
                           "auth_required", "not_allowed"})
    CHECK_FALSE(core::explanation_meaning(code).empty());
  CHECK(core::newest_known_protocol() == 2193);
}
