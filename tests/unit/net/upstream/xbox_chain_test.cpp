// Tests for net/xbox/timing and net/xbox/chain: the token-lifetime rule, timestamps, the
// link's stored form, which steps a renewal runs and what a failed step throws away.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "base/crypto.hpp"
#include "net/xbox/chain.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

constexpr std::int64_t now = 1607370728000;
constexpr std::int64_t hour = 3600 * 1000;

token_times fresh() {
  return {now - hour, now + hour};
}

token_times stale() {
  return {now - hour, now + 30 * 1000}; // within the last minute
}

// A state holding every token, each good or stale as asked, the GameServerToken for spki.
chain_state full_state(const std::string& spki, bool good = true) {
  auto t = good ? fresh() : stale();
  chain_state s;
  s.account = {"M.R3_refresh", "der", "8f2a6c1e-0b1d-4d5e-9f00-1234567890ab"};
  s.msa_access = timed_token{"access", t};
  s.device_token = timed_token{"device", t};
  s.sisu = sisu_tokens{{"user", t}, {"title", t}, {"authorization", t}, "uhs", "xid", "gtg"};
  s.playfab_xsts = xsts_token{{"xsts", t}, "uhs"};
  s.playfab = playfab_session{"ticket", "pfid", t};
  s.environment = auth_environment{"https://svc.example", "https://svc.example", "20CA2"};
  s.mc = mc_token{"MCToken mc", t};
  game_server_token gst;
  gst.token = "gst";
  gst.claims.cpk = base64_encode(spki);
  gst.claims.exp = (now + hour) / 1000;
  gst.times = t;
  s.game_server = gst;
  return s;
}

std::vector<step> all_steps() {
  return {step::refresh, step::device_token, step::sisu,          step::xsts,
          step::playfab, step::discovery,    step::session_start, step::multiplayer_start};
}

} // namespace

TEST_CASE("xbox timing: keep a token until min(60 s, a quarter of its life) remains",
          "[xbox]") {
  // Long tokens are renewed a minute early.
  CHECK(renew_margin_ms({0, 24 * hour}) == 60 * 1000);
  CHECK(renew_at_ms({0, 24 * hour}) == 24 * hour - 60 * 1000);
  // Short ones a quarter of their life early: the fake's 8-second token at 6 s.
  CHECK(renew_margin_ms({0, 8000}) == 2000);
  CHECK(renew_margin_ms({0, 240 * 1000}) == 60 * 1000);
  CHECK(renew_margin_ms({0, 200 * 1000}) == 50 * 1000);
  CHECK(renew_margin_ms({5, 5}) == 0);
  CHECK(renew_margin_ms({5, 1}) == 0);

  CHECK(still_good({0, 8000}, 0));
  CHECK(still_good({0, 8000}, 5999));
  CHECK_FALSE(still_good({0, 8000}, 6000));
  CHECK_FALSE(still_good({0, 8000}, 9000));
  CHECK(still_good({0, 24 * hour}, 24 * hour - 60 * 1000 - 1));
  CHECK_FALSE(still_good({0, 24 * hour}, 24 * hour - 60 * 1000));
  CHECK_FALSE(still_good({5, 5}, 0));
}

TEST_CASE("xbox timing: server times are counted from when we received them", "[xbox]") {
  // The server's clock is an hour ahead; the lifetime of 10 minutes survives.
  auto t = times_from_server(now, now + hour, now + hour + 600 * 1000);
  CHECK(t.issued_ms == now);
  CHECK(t.expires_ms == now + 600 * 1000);
  auto absolute = times_from_server(now, std::nullopt, now + 5000);
  CHECK(absolute.issued_ms == now);
  CHECK(absolute.expires_ms == now + 5000);
  CHECK(times_from_lifetime(now, 86400).expires_ms == now + 86400 * 1000);
}

TEST_CASE("xbox timing: RFC 3339 timestamps as Xbox and the services write them", "[xbox]") {
  CHECK(parse_timestamp_ms("2020-12-07T19:52:08.4463796Z") == 1607370728446);
  CHECK(parse_timestamp_ms("2020-12-07T19:52:08.446Z") == 1607370728446);
  CHECK(parse_timestamp_ms("2020-12-07T19:52:08.4Z") == 1607370728400);
  CHECK(parse_timestamp_ms("2020-12-21T19:52:08Z") == 1608580328000);
  CHECK(parse_timestamp_ms("2026-08-20T10:00:00+02:00") == 1787212800000);
  CHECK(parse_timestamp_ms("2026-08-20t08:00:00z") == 1787212800000);
  CHECK(parse_timestamp_ms("2024-02-29T23:59:59Z") == 1709251199000);
  CHECK(parse_timestamp_ms("2030-01-01T00:00:00Z") == 1893456000000);
  CHECK(parse_timestamp_ms("1970-01-01T00:00:00Z") == 0);
  CHECK(parse_timestamp_ms("2016-12-31T23:59:60Z") == 1483228799999);

  for (auto bad : {"", "2020-12-07", "2020-12-07T19:52:08", "2023-02-29T00:00:00Z",
                   "2020-13-01T00:00:00Z", "2020-12-07T24:00:00Z", "2020-12-07T19:52:08.Z",
                   "2020-12-07T19:52:08Zjunk", "2020-12-07T19:52:08+0200", "20-12-07T19:52:08Z"}) {
    INFO(bad);
    CHECK_FALSE(parse_timestamp_ms(bad));
  }
}

TEST_CASE("xbox chain: a link is stored as a versioned record", "[xbox]") {
  account_link l{"M.R3_BAY.refresh", std::string("\x30\x81\x87\x02\x01\x00", 6), "8f2a6c1e-0b1d"};
  auto record = encode_link(l);
  CHECK(record[0] == '\x01');
  auto back = decode_link(record);
  REQUIRE(back);
  CHECK(back->refresh_token == l.refresh_token);
  CHECK(back->device_key_der == l.device_key_der);
  CHECK(back->device_id == l.device_id);

  CHECK_FALSE(decode_link(""));
  CHECK_FALSE(decode_link(record.substr(0, record.size() - 1)));
  CHECK_FALSE(decode_link(record + "x"));
  auto v2 = record;
  v2[0] = '\x02';
  CHECK_FALSE(decode_link(v2));
  CHECK_FALSE(decode_link(encode_link({"", "der", "id"})));
}

TEST_CASE("xbox chain: a renewal runs only what is no longer good", "[xbox]") {
  auto key = generate_ec_key(ec_curve::p384);
  REQUIRE(key);
  auto spki = public_key_der(*key);
  REQUIRE(spki);

  // A new link: everything.
  chain_state linked;
  linked.account = {"M.R3_refresh", "der", "id"};
  CHECK(plan_renewal(linked, *spki, now) == all_steps());

  // Everything good: nothing.
  CHECK(plan_renewal(full_state(*spki), *spki, now).empty());

  // Everything stale: everything.
  CHECK(plan_renewal(full_state(*spki, false), *spki, now) == all_steps());

  // Only the GameServerToken stale: one step.
  auto s = full_state(*spki);
  s.game_server->times = stale();
  CHECK(plan_renewal(s, *spki, now) == std::vector<step>{step::multiplayer_start});

  // A GameServerToken for another key is minted anew, however fresh.
  auto other = generate_ec_key(ec_curve::p384);
  auto other_spki = public_key_der(*other);
  REQUIRE(other_spki);
  CHECK(plan_renewal(full_state(*spki), *other_spki, now)
        == std::vector<step>{step::multiplayer_start});

  // The MCToken stale: discovery, session start, multiplayer.
  s = full_state(*spki);
  s.game_server.reset();
  s.mc->times = stale();
  CHECK(plan_renewal(s, *spki, now)
        == std::vector<step>{step::discovery, step::session_start, step::multiplayer_start});

  // No discovery held: it runs even when the MCToken is good.
  s = full_state(*spki);
  s.game_server.reset();
  s.environment.reset();
  CHECK(plan_renewal(s, *spki, now)
        == std::vector<step>{step::discovery, step::multiplayer_start});

  // The XSTS token stale, its inputs good: from XSTS on, no refresh, no SISU.
  s = full_state(*spki);
  s.game_server.reset();
  s.mc.reset();
  s.playfab.reset();
  s.playfab_xsts->xsts.times = stale();
  CHECK(plan_renewal(s, *spki, now)
        == std::vector<step>{step::xsts, step::playfab, step::discovery, step::session_start,
                             step::multiplayer_start});

  // The device token stale too: it comes first; the access token is not needed.
  s.device_token->times = stale();
  CHECK(plan_renewal(s, *spki, now)
        == std::vector<step>{step::device_token, step::xsts, step::playfab, step::discovery,
                             step::session_start, step::multiplayer_start});

  // The user token stale: SISU, and the access token it needs; the good device token stays.
  s = full_state(*spki);
  s.game_server.reset();
  s.mc.reset();
  s.playfab.reset();
  s.playfab_xsts.reset();
  s.sisu->user.times = stale();
  s.msa_access->times = stale();
  CHECK(plan_renewal(s, *spki, now)
        == std::vector<step>{step::refresh, step::sisu, step::xsts, step::playfab,
                             step::discovery, step::session_start, step::multiplayer_start});
}

TEST_CASE("xbox chain: a failed step throws away what it was given", "[xbox]") {
  auto key = generate_ec_key(ec_curve::p384);
  auto spki = public_key_der(*key);
  REQUIRE(spki);

  auto s = full_state(*spki);
  drop_inputs(s, make_error(step::multiplayer_start, fault::services_refused, "x"));
  CHECK_FALSE(s.mc);
  CHECK(s.playfab);

  s = full_state(*spki);
  drop_inputs(s, make_error(step::playfab, fault::playfab_refused, "x"));
  CHECK_FALSE(s.playfab_xsts);
  CHECK(s.sisu);

  s = full_state(*spki);
  drop_inputs(s, make_error(step::session_start, fault::services_refused, "x"));
  CHECK_FALSE(s.playfab);
  CHECK_FALSE(s.environment);

  // An XErr about the account keeps the device token (device tokens are rate-limited) ...
  s = full_state(*spki);
  auto no_profile = make_error(step::sisu, fault::xbox_refused, "x");
  no_profile.xerr = 2148916233u;
  drop_inputs(s, no_profile);
  CHECK_FALSE(s.msa_access);
  CHECK(s.device_token);

  // ... one naming the device token drops it.
  s = full_state(*spki);
  auto bad_device = make_error(step::xsts, fault::xbox_refused, "x");
  bad_device.xerr = 2148916259u;
  drop_inputs(s, bad_device);
  CHECK_FALSE(s.sisu);
  CHECK_FALSE(s.device_token);

  s = full_state(*spki);
  drop_inputs(s, make_error(step::refresh, fault::link_revoked, "x"));
  CHECK_FALSE(s.msa_access);
  CHECK(s.account.refresh_token == "M.R3_refresh");
}

TEST_CASE("xbox chain: replicas share the GameServerToken and the environment", "[xbox]") {
  auto key = generate_ec_key(ec_curve::p384);
  REQUIRE(key);
  auto spki = public_key_der(*key);
  REQUIRE(spki);
  auto jwt = base64url_encode(R"({"alg":"RS256","kid":"AB12"})") + "."
             + base64url_encode(R"({"cpk":")" + base64_encode(*spki) + R"(","xid":"2535","xname":"Steve","exp":)"
                                + std::to_string((now + hour) / 1000) + "}")
             + ".c2ln";
  auto renewed = full_state(*spki);
  renewed.game_server->token = jwt;

  auto record = encode_shared_tokens(renewed);
  REQUIRE(record);
  // What is shared holds no refresh token and no proof key: those stay in the link.
  CHECK(record->find("M.R3_refresh") == std::string::npos);

  chain_state replica;
  replica.account = renewed.account;
  REQUIRE(adopt_shared_tokens(replica, *record));
  REQUIRE(replica.game_server);
  CHECK(replica.game_server->token == jwt);
  CHECK(replica.game_server->claims.xname == "Steve");
  CHECK(replica.game_server->times.expires_ms == renewed.game_server->times.expires_ms);
  REQUIRE(replica.environment);
  CHECK(replica.environment->idp_domain() == renewed.environment->idp_domain());
  // With it the replica needs no step of its own.
  CHECK(plan_renewal(replica, *spki, now).empty());

  // Nothing to share without a GameServerToken or an environment.
  auto bare = renewed;
  bare.environment.reset();
  CHECK_FALSE(encode_shared_tokens(bare));
  // A damaged record or an unreadable token leaves the replica as it was.
  chain_state untouched;
  CHECK_FALSE(adopt_shared_tokens(untouched, record->substr(0, record->size() - 1)));
  CHECK_FALSE(adopt_shared_tokens(untouched, *record + "x"));
  auto v2 = *record;
  v2[0] = '\x02';
  CHECK_FALSE(adopt_shared_tokens(untouched, v2));
  renewed.game_server->token = "not a jwt";
  CHECK_FALSE(adopt_shared_tokens(untouched, *encode_shared_tokens(renewed)));
  CHECK_FALSE(untouched.game_server);
}
