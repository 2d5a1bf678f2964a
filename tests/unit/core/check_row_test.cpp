// The row a watched server's check stores: made from the replies' bodies as the service
// renders them, with the verdict's code, the counts from the transport that gave them, the
// latencies of what answered, the candidates counted, and only a verified key's id.
#include <catch2/catch.hpp>

#include "core/check_row.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

/// The replies of a check of a healthy server on both transports.
check_replies healthy_replies() {
  check_replies r;
  r.info.status = 200;
  r.info.body = R"({"ok":true,"status":200,"tls":false,"info":{"name":"A","protocol":800,)"
                R"("version":"1.26.0","players":3,"maxPlayers":20},"infoError":null})";
  r.info_ms = 12.3456;
  r.raknet.tried = true;
  r.raknet.ok = true;
  r.raknet.latency_ms = 4.5;
  r.raknet.version = "1.26.0";
  r.raknet.body = R"({"ok":true,"players":7,"maxPlayers":30,"version":"1.26.0"})";
  r.offer_tried = true;
  r.offer_ms = 80.5;
  r.offer.body
    = R"({"identity":{"present":true,"verified":true,)"
      R"("keySha256":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},)"
      R"("candidates":[)"
      R"({"address":"203.0.113.5","port":19132,"transport":"udp","component":1,)"
      R"("scope":"public","reachable":true},)"
      R"({"address":"192.168.1.5","port":19132,"transport":"udp","component":1,)"
      R"("scope":"private","reachable":false},)"
      R"({"address":"203.0.113.5","port":19133,"transport":"tcp","component":1,)"
      R"("scope":"public","reachable":null}]})";
  return r;
}

core::history_row row_of(const check_replies& r, std::int64_t at = 1795773600) {
  core::target where{"play.example.com", 19132, core::tls_mode::auto_detect};
  auto facts = facts_of_check(where, r);
  return row_of_check(facts, decide(facts), r, at);
}

} // namespace

TEST_CASE("check row: a healthy server's check", "[history][check]") {
  auto row = row_of(healthy_replies());
  CHECK(row.at == 1795773600);
  CHECK(row.verdict == verdict_code::joinable);
  // NetherNet's counts win over the pong's.
  CHECK(row.players == 3u);
  CHECK(row.max_players == 20u);
  CHECK_FALSE(row.players_from_raknet);
  CHECK(row.version == "1.26.0");
  CHECK(row.nethernet_us == 12346u);
  CHECK(row.raknet_checked);
  CHECK(row.raknet_us == 4500u);
  CHECK(row.offer_us == 80500u);
  CHECK(row.candidates.total == 3);
  CHECK(row.candidates.for_players == 2);
  CHECK(row.candidates.public_addresses == 1);
  CHECK(row.candidates.reachable == 1);
  CHECK(row.key_id == 0x0123456789abcdefull);
  // It is a row the store keeps.
  CHECK(decode_history_row(encode(row)) == row);
}

TEST_CASE("check row: what a check lacks stays absent", "[history][check]") {
  SECTION("an unverified identity has no key id") {
    auto r = healthy_replies();
    auto at = r.offer.body.find(R"("verified":true)");
    r.offer.body.replace(at, 15, R"("verified":false)");
    CHECK_FALSE(row_of(r).key_id);
  }
  SECTION("a RakNet-only server: counts from the pong, no NetherNet latency, no offer") {
    auto r = healthy_replies();
    r.info = {};
    r.info.error = make_failure(error_code::upstream_failure, "connection refused");
    r.offer_tried = false;
    r.offer = {};
    auto row = row_of(r);
    CHECK(row.verdict == verdict_code::raknet_only);
    CHECK(row.players == 7u);
    CHECK(row.max_players == 30u);
    CHECK(row.players_from_raknet);
    CHECK_FALSE(row.nethernet_us);
    CHECK_FALSE(row.offer_us);
    CHECK(row.raknet_us == 4500u);
    CHECK(row.candidates.total == 0);
    CHECK(decode_history_row(encode(row)) == row);
  }
  SECTION("nothing answers") {
    check_replies r;
    r.info.error = make_failure(error_code::upstream_timeout, "timed out");
    r.raknet.tried = true;
    r.raknet.code = "timeout";
    auto row = row_of(r);
    CHECK(row.verdict == verdict_code::offline);
    CHECK_FALSE(row.players);
    CHECK(row.version.empty());
    CHECK(row.raknet_checked);
    CHECK_FALSE(row.raknet_us);
    CHECK(decode_history_row(encode(row)) == row);
  }
  SECTION("a refused offer keeps the status but counts no candidates") {
    auto r = healthy_replies();
    r.offer = {};
    r.offer.error = make_failure(error_code::upstream_status, "refused");
    r.offer.error.nethernet_error = 37;
    auto row = row_of(r);
    CHECK(row.verdict == verdict_code::auth_required);
    CHECK(row.players == 3u);
    CHECK_FALSE(row.offer_us);
    CHECK(row.candidates.total == 0);
    CHECK_FALSE(row.key_id);
  }
}

TEST_CASE("check row: every verdict has its stored code, under its own name", "[history][check]") {
  for (auto kind : {verdict_kind::joinable, verdict_kind::signalling_only,
                    verdict_kind::private_candidates, verdict_kind::no_candidates,
                    verdict_kind::auth_required, verdict_kind::not_allowed,
                    verdict_kind::raknet_only, verdict_kind::refused, verdict_kind::offline}) {
    INFO(to_string(kind));
    CHECK(verdict_name(code_of(kind)) == to_string(kind));
  }
}

TEST_CASE("check row: the check's join is kept as its stage, outcome and time",
          "[history][check][join]") {
  auto r = healthy_replies();
  r.join = boost::json::parse(R"({"joined":true,"outcome":"joined","stage":"game",)"
                              R"("protocol":{"sent":800,"server":800,"version":"1.26.0"},)"
                              R"("timings":{"signallingMs":3.0,"totalMs":15.25}})")
             .as_object();
  auto row = row_of(r);
  CHECK(row.verdict == verdict_code::joinable);
  REQUIRE(row.join);
  CHECK(row.join->joined());
  CHECK(row.join->stage == join_stage_code::game);
  CHECK(row.join->outcome == join_outcome_code::joined);
  CHECK(row.join->total_us == 15250u);
  CHECK(decode_history_row(encode(row)) == row);

  // Turned away at DTLS, with STUN answered: the verdict and the row both say so.
  r.join = boost::json::parse(R"({"joined":false,"outcome":"dtls_failed","stage":"dtls",)"
                              R"("reason":"No DTLS handshake in time.",)"
                              R"("timings":{"totalMs":5003}})")
             .as_object();
  row = row_of(r);
  CHECK(row.verdict == verdict_code::join_failed);
  REQUIRE(row.join);
  CHECK_FALSE(row.join->joined());
  CHECK(row.join->stage == join_stage_code::dtls);
  CHECK(row.join->outcome == join_outcome_code::dtls_failed);
  CHECK(decode_history_row(encode(row)) == row);

  // A join object the tables cannot hold, or that contradicts itself, leaves no join in the
  // row rather than a wrong one.
  r.join = boost::json::parse(R"({"joined":true,"outcome":"joined","stage":"dtls"})").as_object();
  CHECK_FALSE(row_of(r).join);
  r.join = boost::json::parse(R"({"joined":false,"outcome":"made_up","stage":"game"})").as_object();
  CHECK_FALSE(row_of(r).join);
  // No join at all: none.
  CHECK_FALSE(row_of(healthy_replies()).join);
}
