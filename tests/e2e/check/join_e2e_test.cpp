// End to end: the join as a player's client makes it (net/join), against WebRTC stacks we did
// not write (tools/webrtc_target) that speak the Bedrock prelude on their channels. Our offer
// goes to the stack's signalling server, its answer becomes a join job, and the join runs both
// in this process and through the netherscope-join worker binary, as the service runs it.
#include <catch2/catch.hpp>

#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "net/join/answer_terms.hpp"
#include "net/join/session.hpp"
#include "net/nethernet/identity.hpp"
#include "net/nethernet/sdp_offer.hpp"
#include "support/http.hpp"
#include "support/process.hpp"
#include "support/rooms.hpp"
#include "support/webrtc_answerer.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace json = boost::json;
namespace join = netherscope::net::join;
namespace nethernet = netherscope::net::nethernet;

namespace {

/// Sends a fresh offer to the answerer and makes the join job of its answer, with every
/// loopback candidate allowed.
join::join_job job_for(const webrtc_answerer& target, std::int32_t protocol,
                       const std::string& fingerprint_override = {}) {
  auto id = nethernet::make_local_identity();
  REQUIRE(id);
  auto params = nethernet::make_offer_parameters(*id, std::time(nullptr));
  REQUIRE(params);
  auto reply = http_request(target.port(), "POST", "/v1/join/7",
                            {{"Content-Type", "application/sdp"}},
                            nethernet::build_offer(*params), 20s);
  REQUIRE(reply.status == 200);
  join::job_inputs in;
  in.local_ufrag = params->ice_ufrag;
  in.local_pwd = params->ice_pwd;
  in.identity = &*id;
  in.protocol = protocol;
  in.timeout = 5000ms;
  in.tie_breaker = 0x1234567890abcdefULL;
  in.allowed = [](const boost::asio::ip::address& a) { return a.is_loopback(); };
  std::string why;
  auto job = join::job_from_answer(reply.body, in, &why);
  INFO(why);
  REQUIRE(job);
  REQUIRE_FALSE(job->candidates.empty());
  if (!fingerprint_override.empty())
    job->fingerprint = fingerprint_override;
  return *job;
}

} // namespace

TEST_CASE("join e2e: a player's join reaches NetworkSettings on third-party stacks",
          "[e2e][join]") {
  auto stack = GENERATE(as<std::string>{}, "libwebrtc", "werift", "aiortc");
  INFO("stack " << stack);
  webrtc_answerer target{stack};
  auto job = job_for(target, 2193);
  auto report = join::run_join(job);
  INFO(join::report_to_json(report));
  CHECK(report.outcome == join::join_outcome::joined);
  CHECK(report.stage == join::join_stage::game);
  // The answer said a=setup:active, so we were the DTLS server, and use_srtp was agreed.
  CHECK(report.role == join::dtls_role::server);
  CHECK(report.fingerprint_verified);
  CHECK_FALSE(report.srtp_profile.empty());
  CHECK(report.reliable_open);
  CHECK(report.unreliable_open);
  REQUIRE(report.compression_algorithm);
  CHECK(*report.compression_algorithm == 0);
  REQUIRE(report.pair);
  // The server checked us, which is what made it start DTLS.
  CHECK(report.tried[*report.pair].checked_us > 0);
  CHECK(report.tried[*report.pair].answered_us);
  CHECK(report.timings.total_ms > 0);
  CHECK(report.timings.total_ms < 5000);
  // The stack saw exactly the two channels a Bedrock client opens, and our request.
  auto stats = target.stats();
  CHECK(stats.at("refused_channels").as_int64() == 0);
  CHECK(stats.at("channels").as_array().size() == 2);
  REQUIRE(stats.at("requests").as_array().size() == 1);
  CHECK(stats.at("requests").as_array()[0].to_number<std::int64_t>() == 2193);
}

TEST_CASE("join e2e: an answer that says a=setup:passive makes the join the DTLS client",
          "[e2e][join]") {
  webrtc_answerer target{"libwebrtc", {"--setup", "passive"}};
  auto job = job_for(target, 2193);
  REQUIRE(job.role == join::dtls_role::client);
  auto report = join::run_join(job);
  INFO(join::report_to_json(report));
  CHECK(report.outcome == join::join_outcome::joined);
  CHECK(report.role == join::dtls_role::client);
  CHECK(report.fingerprint_verified);
  CHECK(report.reliable_open);
}

TEST_CASE("join e2e: a server of another version answers PlayStatus, in each direction",
          "[e2e][join]") {
  webrtc_answerer target{"libwebrtc", {"--protocol", "2193"}};
  auto older = join::run_join(job_for(target, 2169));
  INFO(join::report_to_json(older));
  CHECK(older.outcome == join::join_outcome::outdated_client);
  CHECK(older.play_status == 1);
  auto newer = join::run_join(job_for(target, 2200));
  INFO(join::report_to_json(newer));
  CHECK(newer.outcome == join::join_outcome::outdated_server);
  CHECK(newer.play_status == 2);
  CHECK(newer.stage == join::join_stage::game);
}

TEST_CASE("join e2e: silence and garbage on the channel, and a certificate that is not the "
          "answer's",
          "[e2e][join]") {
  SECTION("silent") {
    webrtc_answerer target{"libwebrtc", {"--game", "silent"}};
    auto job = job_for(target, 2193);
    job.timeout = 2500ms;
    auto r = join::run_join(job);
    INFO(join::report_to_json(r));
    CHECK(r.outcome == join::join_outcome::game_silent);
    CHECK(r.stage == join::join_stage::game);
  }
  SECTION("garbage") {
    webrtc_answerer target{"libwebrtc", {"--game", "garbage"}};
    auto r = join::run_join(job_for(target, 2193));
    INFO(join::report_to_json(r));
    CHECK(r.outcome == join::join_outcome::game_unreadable);
  }
  SECTION("fingerprint") {
    webrtc_answerer target{"libwebrtc"};
    auto job = job_for(target, 2193, std::string(95, 'A'));
    auto r = join::run_join(job);
    INFO(join::report_to_json(r));
    CHECK(r.outcome == join::join_outcome::fingerprint_mismatch);
    CHECK(r.stage == join::join_stage::dtls);
    CHECK_FALSE(r.fingerprint_verified);
  }
}

TEST_CASE("join e2e: the worker binary runs a job from its input and reports on its output",
          "[e2e][join]") {
  webrtc_answerer target{"libwebrtc"};
  auto job = job_for(target, 2193);
  temp_dir dir;
  auto path = dir.path() + "/job.json";
  {
    std::ofstream out{path};
    out << join::job_to_json(job);
  }
  child_process worker{{"/bin/sh", "-c", std::string{JOIN_WORKER_BIN} + " < " + path}};
  auto line = worker.wait_for_line([](const std::string&) { return true; }, 10s);
  REQUIRE(line);
  auto report = join::report_from_json(*line);
  REQUIRE(report);
  CHECK(report->outcome == join::join_outcome::joined);
  CHECK(worker.wait(5s) == 0);
}
