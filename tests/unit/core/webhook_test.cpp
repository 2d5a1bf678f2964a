// Webhooks, the pure parts: which checks alert, the json and discord bodies, the signature
// and its check, the retry schedule, and which URLs are accepted.
#include <catch2/catch.hpp>

#include <boost/json.hpp>

#include "core/watch_change.hpp"
#include "core/webhook_body.hpp"
#include "core/webhook_retry.hpp"
#include "core/webhook_signature.hpp"
#include "core/webhook_url.hpp"
#include "base/crypto.hpp"
#include "base/text.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
namespace json = boost::json;

namespace {

constexpr std::int64_t sent_at = 1760000400;

history_row row(verdict_code verdict, std::string version = "1.21.50",
                std::optional<std::uint64_t> key = 0x1111222233334444ULL) {
  history_row r;
  r.at = sent_at;
  r.verdict = verdict;
  if (is_online(verdict)) {
    r.version = std::move(version);
    r.key_id = key;
    r.players = 3;
    r.max_players = 10;
  }
  return r;
}

} // namespace

TEST_CASE("alerts: none for a first check or a repeat", "[webhook]") {
  CHECK_FALSE(change_between(std::nullopt, row(verdict_code::joinable)));
  CHECK_FALSE(change_between(row(verdict_code::joinable), row(verdict_code::joinable)));
  CHECK_FALSE(change_between(row(verdict_code::offline), row(verdict_code::offline)));
  // Another verdict of the same class is no alert on its own.
  CHECK_FALSE(change_between(row(verdict_code::signalling_only), row(verdict_code::no_candidates)));
  CHECK_FALSE(change_between(row(verdict_code::auth_required), row(verdict_code::raknet_only)));
}

TEST_CASE("alerts: joinable, online, key and version changes", "[webhook]") {
  auto down = change_between(row(verdict_code::joinable), row(verdict_code::offline));
  REQUIRE(down);
  CHECK(down->joinable);
  CHECK(down->online);
  CHECK_FALSE(down->key);      // an offline check has no key to compare
  CHECK_FALSE(down->version);
  CHECK(down->verdict);
  CHECK(down->names() == std::vector<std::string>{"joinable", "online"});

  auto closed = change_between(row(verdict_code::joinable), row(verdict_code::signalling_only));
  REQUIRE(closed);
  CHECK(closed->joinable);
  CHECK_FALSE(closed->online);

  auto up = change_between(row(verdict_code::offline), row(verdict_code::refused));
  REQUIRE(up);
  CHECK(up->online);
  CHECK_FALSE(up->joinable);

  auto key = change_between(row(verdict_code::joinable),
                            row(verdict_code::joinable, "1.21.50", 0x9999ULL));
  REQUIRE(key);
  CHECK(key->names() == std::vector<std::string>{"key"});
  CHECK_FALSE(key->verdict);
  // A key that did not verify this time is not a change.
  CHECK_FALSE(change_between(row(verdict_code::joinable),
                             row(verdict_code::joinable, "1.21.50", std::nullopt)));

  auto version =
    change_between(row(verdict_code::joinable), row(verdict_code::joinable, "1.21.60"));
  REQUIRE(version);
  CHECK(version->names() == std::vector<std::string>{"version"});
  CHECK_FALSE(change_between(row(verdict_code::joinable), row(verdict_code::joinable, "")));
}

TEST_CASE("webhook bodies: json names the event, the server, from, to and when", "[webhook]") {
  auto before = row(verdict_code::joinable);
  before.at = sent_at - 300;
  auto after = row(verdict_code::signalling_only, "1.21.60", 0x5555ULL);
  auto change = change_between(before, after);
  REQUIRE(change);
  auto event = change_event("w1", "play.example.com", 19132, before, after, *change,
                            "https://netherscope.example/watch/w1");
  auto body = json::parse(json_body(event)).as_object();
  CHECK(body.at("event") == "change");
  CHECK(body.at("watchId") == "w1");
  CHECK(body.at("host") == "play.example.com");
  CHECK(body.at("port") == 19132);
  CHECK(body.at("verdict") == "signalling_only");
  CHECK(body.at("changes") == json::value(json::array{"joinable", "key", "version"}));
  CHECK(body.at("at") == "2025-10-09T09:00:00Z");
  CHECK(body.at("link") == "https://netherscope.example/watch/w1");
  auto& from = body.at("from").as_object();
  CHECK(from.at("verdict") == "joinable");
  CHECK(from.at("online") == true);
  CHECK(from.at("joinable") == true);
  CHECK(from.at("version") == "1.21.50");
  CHECK(from.at("keyId") == "1111222233334444");
  CHECK(from.at("at") == "2025-10-09T08:55:00Z");
  CHECK_FALSE(from.contains("keyChanged"));
  auto& to = body.at("to").as_object();
  CHECK(to.at("joinable") == false);
  CHECK(to.at("online") == true);
  CHECK(to.at("keyChanged") == true);
  CHECK(to.at("players") == 3);
  CHECK(to.at("maxPlayers") == 10);

  auto offline = change_between(before, row(verdict_code::offline));
  auto gone = json::parse(json_body(change_event("w1", "play.example.com", 19132, before,
                                                 row(verdict_code::offline), *offline, "")))
                .as_object();
  CHECK(gone.at("to").at("keyChanged").is_null());
  CHECK(gone.at("to").at("version").is_null());
  CHECK(gone.at("link").is_null());

  auto test = json::parse(json_body(test_event("w1", "play.example.com", 19132, std::nullopt,
                                               sent_at, "")))
                .as_object();
  CHECK(test.at("event") == "test");
  CHECK(test.at("from").is_null());
  CHECK(test.at("to").is_null());
  CHECK(test.at("verdict").is_null());
  CHECK(test.at("changes").as_array().empty());
}

TEST_CASE("webhook bodies: a test carries the latest check and the link to the server's history",
          "[webhook]") {
  auto link = server_history_link("https://netherscope.example", "play.example.com", 19132);
  CHECK(link == "https://netherscope.example/api/history?host=play.example.com&port=19132"
                "&range=24h");
  // An IPv6 literal goes as the query takes it; a character that would end the value is
  // escaped.
  CHECK(server_history_link("https://n.example", "2001:db8::1", 19132)
        == "https://n.example/api/history?host=2001:db8::1&port=19132&range=24h");
  CHECK(server_history_link("https://n.example", "a&b", 1)
        == "https://n.example/api/history?host=a%26b&port=1&range=24h");
  CHECK(server_history_link("", "play.example.com", 19132).empty());

  auto latest = row(verdict_code::offline);
  latest.at = sent_at - 60;
  auto event = test_event("w1", "play.example.com", 19132, latest, sent_at, link);
  auto body = json::parse(json_body(event)).as_object();
  CHECK(body.at("event") == "test");
  CHECK(body.at("verdict") == "offline");
  CHECK(body.at("to").at("at") == "2025-10-09T08:59:00Z");
  CHECK(body.at("at") == "2025-10-09T09:00:00Z");
  CHECK(body.at("link").as_string() == link);
  auto discord = json::parse(discord_body(event)).as_object();
  auto& embed = discord.at("embeds").at(0).as_object();
  CHECK(embed.at("url").as_string() == link);
  std::string description{embed.at("description").as_string()};
  CHECK(description.find("The latest check: offline, at 2025-10-09T08:59:00Z.")
        != std::string::npos);
  auto unchecked = test_event("w1", "play.example.com", 19132, std::nullopt, sent_at, link);
  auto never = json::parse(discord_body(unchecked)).as_object();
  std::string none_yet{never.at("embeds").at(0).at("description").as_string()};
  CHECK(none_yet.find("The server has not been checked yet.") != std::string::npos);
}

TEST_CASE("webhook bodies: discord's embed, within its limits, mentioning no one",
          "[webhook]") {
  auto before = row(verdict_code::joinable);
  // A server's version is its own text: markdown and mentions in it stay literal.
  auto after = row(verdict_code::signalling_only, "@everyone [x](http://a)");
  auto change = change_between(before, after);
  REQUIRE(change);
  auto body = json::parse(discord_body(change_event("w1", "play.example.com", 19132, before,
                                                    after, *change, "https://n.example/w/w1")))
                .as_object();
  CHECK(body.at("allowed_mentions").at("parse").as_array().empty());
  auto& embeds = body.at("embeds").as_array();
  REQUIRE(embeds.size() == 1);
  auto& embed = embeds[0].as_object();
  CHECK(embed.at("title") == "play.example.com:19132: joinable \xE2\x86\x92 signalling_only");
  CHECK(embed.at("color") == 0xd4a72c);
  CHECK(embed.at("timestamp") == "2025-10-09T09:00:00Z");
  CHECK(embed.at("url") == "https://n.example/w/w1");
  std::string description{embed.at("description").as_string()};
  CHECK(description.find("Players can no longer join.") != std::string::npos);
  CHECK(description.find("\\@everyone \\[x\\]\\(http://a\\)") != std::string::npos);
  CHECK(body.at("content") == "play.example.com:19132 is now signalling_only (was joinable)");
  auto& fields = embed.at("fields").as_array();
  CHECK(fields.size() <= discord_field_limit);
  CHECK(fields[0].at("name") == "Verdict");
  CHECK(fields[0].at("value") == "signalling_only (was joinable)");

  // The longest host and version still fit every limit.
  auto long_before = row(verdict_code::joinable, std::string(23, '*'));
  auto long_after = row(verdict_code::offline);
  auto long_change = change_between(long_before, long_after);
  auto long_body = json::parse(discord_body(change_event(std::string(300, 'w'),
                                                         std::string(253, '_'), 19132,
                                                         long_before, long_after, *long_change,
                                                         "")))
                     .as_object();
  auto& e = long_body.at("embeds").as_array()[0].as_object();
  std::size_t total = e.at("title").as_string().size() + e.at("description").as_string().size()
                      + e.at("footer").at("text").as_string().size();
  CHECK(e.at("title").as_string().size() <= discord_title_limit);
  CHECK(e.at("title").as_string().ends_with("\xE2\x80\xA6"));
  CHECK(long_body.at("content").as_string().size() <= discord_content_limit);
  for (auto& f : e.at("fields").as_array()) {
    CHECK(f.at("name").as_string().size() <= discord_field_name_limit);
    CHECK(f.at("value").as_string().size() <= discord_field_value_limit);
    total += f.at("name").as_string().size() + f.at("value").as_string().size();
  }
  CHECK(total <= discord_embed_total_limit);
  CHECK(parse_webhook_format("discord") == webhook_format::discord);
  CHECK(parse_webhook_format("discord_live") == webhook_format::discord_live);
  CHECK(parse_webhook_format("json") == webhook_format::json);
  CHECK_FALSE(parse_webhook_format("slack"));
  CHECK_FALSE(parse_webhook_format("Discord_Live"));
  for (auto f : {webhook_format::json, webhook_format::discord, webhook_format::discord_live})
    CHECK(parse_webhook_format(to_string(f)) == f);
  // A live message carries the same embed as a message per change.
  auto event = change_event("w1", "play.example.com", 19132, before, after, *change,
                            "https://n.example/w/w1");
  CHECK(webhook_body(webhook_format::discord_live, event) == discord_body(event));
  CHECK(webhook_body(webhook_format::discord, event) == discord_body(event));
  CHECK(webhook_body(webhook_format::json, event) == json_body(event));
}

TEST_CASE("signatures: HMAC-SHA256 matches RFC 4231", "[webhook]") {
  CHECK(hex_lower(hmac_sha256(std::string(20, '\x0b'), "Hi There"))
        == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  CHECK(hex_lower(hmac_sha256("Jefe", "what do ya want for nothing?"))
        == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST_CASE("signatures: a receiver accepts a fresh one and refuses the rest", "[webhook]") {
  std::string secret = "whsec_test";
  std::string body = R"({"event":"test"})";
  auto value = signature_value(secret, sent_at, body);
  CHECK(value == "t=1760000400,v1=" + hex_lower(hmac_sha256(secret, "1760000400." + body)));
  CHECK(verify_signature(value, secret, body, sent_at) == signature_check::valid);
  CHECK(verify_signature(value, secret, body, sent_at + 300) == signature_check::valid);
  CHECK(verify_signature(value, secret, body, sent_at + 301) == signature_check::stale);
  CHECK(verify_signature(value, secret, body, sent_at - 301) == signature_check::stale);
  CHECK(verify_signature(value, secret, body + " ", sent_at) == signature_check::mismatch);
  CHECK(verify_signature(value, "whsec_other", body, sent_at) == signature_check::mismatch);
  // A replay with a fresh time but the old digest does not verify.
  auto replay = "t=" + std::to_string(sent_at + 600) + value.substr(value.find(','));
  CHECK(verify_signature(replay, secret, body, sent_at + 600) == signature_check::mismatch);
  // While a secret is replaced, one of several v1 digests may match; unknown keys are ignored.
  auto rotated = "t=1760000400, v1=" + std::string(64, '0') + ",v0=x,"
                 + value.substr(value.find("v1="));
  CHECK(verify_signature(rotated, secret, body, sent_at) == signature_check::valid);
  CHECK(verify_signature("", secret, body, sent_at) == signature_check::malformed);
  CHECK(verify_signature("v1=abc", secret, body, sent_at) == signature_check::malformed);
  CHECK(verify_signature("t=1760000400", secret, body, sent_at) == signature_check::malformed);
  CHECK(verify_signature("t=-5,v1=ab", secret, body, sent_at) == signature_check::malformed);
  CHECK(verify_signature("t=17x,v1=ab", secret, body, sent_at) == signature_check::malformed);
  CHECK(verify_signature("t=1,t=2,v1=ab", secret, body, sent_at) == signature_check::malformed);

  auto made = make_webhook_secret();
  REQUIRE(made);
  CHECK(made->rfind("whsec_", 0) == 0);
  CHECK(made->size() == 6 + 43);
  CHECK(*made != *make_webhook_secret());
}

TEST_CASE("retries: threefold delays up to a cap, until the retry time runs out",
          "[webhook]") {
  retry_policy policy;
  CHECK(retry_delay(policy, 1, 0) == 5);
  CHECK(retry_delay(policy, 2, 0) == 15);
  CHECK(retry_delay(policy, 3, 0) == 45);
  CHECK(retry_delay(policy, 4, 0) == 135);
  CHECK(retry_delay(policy, 5, 0) == 300);
  CHECK(retry_delay(policy, 40, 0) == 300);
  // Jitter only shortens, by at most a fifth.
  CHECK(retry_delay(policy, 4, 0.999) == 135 - 26);
  CHECK(retry_delay(policy, 1, 7.0) == 4);

  // The whole schedule without jitter: tries at 0, 5, 20, 65, 200, 500; the next would be
  // at 800, past 600: give up.
  std::vector<std::int64_t> tries{sent_at};
  for (unsigned failures = 1;; ++failures) {
    auto next = next_retry(policy, sent_at, tries.back(), failures, 0);
    if (!next)
      break;
    tries.push_back(*next);
  }
  CHECK(tries == std::vector<std::int64_t>{sent_at, sent_at + 5, sent_at + 20, sent_at + 65, sent_at + 200, sent_at + 500});

  // With jitter from the deterministic source, each try is no later and the schedule ends.
  std::vector<std::int64_t> jittered{sent_at};
  for (unsigned failures = 1;; ++failures) {
    auto next = next_retry(policy, sent_at, jittered.back(), failures, jitter_draw("d1", failures));
    if (!next)
      break;
    REQUIRE(*next > jittered.back());
    REQUIRE(*next <= sent_at + policy.retry_for);
    jittered.push_back(*next);
  }
  CHECK(jittered.size() >= tries.size());
  CHECK(jitter_draw("d1", 1) == jitter_draw("d1", 1));
  CHECK(jitter_draw("d1", 1) != jitter_draw("d1", 2));
  CHECK(jitter_draw("d1", 1) != jitter_draw("d2", 1));
  for (unsigned i = 0; i < 100; ++i) {
    auto d = jitter_draw("x", i);
    REQUIRE(d >= 0.0);
    REQUIRE(d < 1.0);
  }

  retry_policy short_policy;
  short_policy.retry_for = 3;
  CHECK_FALSE(next_retry(short_policy, sent_at, sent_at, 1, 0));
}

TEST_CASE("webhook URLs: https with a host, nothing hidden in it", "[webhook]") {
  auto ok = check_webhook_url("https://hooks.example.com/path/x?token=abc", false);
  REQUIRE(ok.target);
  CHECK(ok.error.empty());
  CHECK(ok.target->tls);
  CHECK(ok.target->host == "hooks.example.com");
  CHECK(ok.target->port == 443);
  CHECK(ok.target->target == "/path/x?token=abc");

  auto bare = check_webhook_url("HTTPS://Hooks.Example.com:8443", false);
  REQUIRE(bare.target);
  CHECK(bare.target->host == "hooks.example.com");
  CHECK(bare.target->port == 8443);
  CHECK(bare.target->target == "/");

  auto v6 = check_webhook_url("https://[2001:db8::1]/h", false);
  REQUIRE(v6.target);
  CHECK(v6.target->host == "2001:db8::1");

  for (auto bad : {"", "hooks.example.com/x", "ftp://hooks.example.com/", "https:///x",
                   "https://user:pw@hooks.example.com/", "https://user@hooks.example.com/",
                   "https://hooks.example.com/#frag", "https://hooks.example.com:0/",
                   "https://hooks.example.com:65536/", "https://hooks.example.com:/",
                   "https://hooks%2Eexample.com/", "https://[v1.x]/", "https://exa mple.com/",
                   "https://bad..example.com/", "http://hooks.example.com/",
                   "javascript:alert(1)"}) {
    INFO(bad);
    auto check = check_webhook_url(bad, false);
    CHECK_FALSE(check.target);
    CHECK_FALSE(check.error.empty());
  }
  auto longest = "https://hooks.example.com/" + std::string(longest_webhook_url - 26, 'a');
  CHECK(check_webhook_url(longest, false).target);
  CHECK_FALSE(check_webhook_url(longest + "a", false).target);
}

TEST_CASE("webhook URLs: plain http only to loopback, and only when allowed", "[webhook]") {
  for (auto url : {"http://127.0.0.1:8080/hook", "http://127.9.9.9/", "http://[::1]:9/h",
                   "http://[::ffff:127.0.0.1]/",
                   "http://localhost:8080/", "http://a.localhost/"}) {
    INFO(url);
    CHECK_FALSE(check_webhook_url(url, false).target);
    auto allowed = check_webhook_url(url, true);
    REQUIRE(allowed.target);
    CHECK_FALSE(allowed.target->tls);
  }
  CHECK(check_webhook_url("http://127.0.0.1:8080/hook", true).target->port == 8080);
  CHECK(check_webhook_url("http://127.0.0.1/hook", true).target->port == 80);
  for (auto url : {"http://10.0.0.1/", "http://example.com/", "http://[::2]/",
                   "http://notlocalhost/", "http://localhost.example.com/"})
    CHECK_FALSE(check_webhook_url(url, true).target);
}
