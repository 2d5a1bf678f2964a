// The discord_live format's requests and how Discord's answers are read: pure functions,
// tested against the answers Discord's API documents (a message object on ?wait=true, 404
// Unknown Message, 429 with retry_after in seconds).
#include <catch2/catch.hpp>

#include "core/discord_live.hpp"

using namespace netherscope::core;
using std::chrono::milliseconds;

TEST_CASE("discord_live: the first delivery posts with wait, later ones edit the message",
          "[discord_live]") {
  auto first = discord_live_call_for("/api/webhooks/123/tok-en", "");
  CHECK(first.method == "POST");
  CHECK(first.target == "/api/webhooks/123/tok-en?wait=true");
  auto later = discord_live_call_for("/api/webhooks/123/tok-en", "1180000000000000001");
  CHECK(later.method == "PATCH");
  CHECK(later.target == "/api/webhooks/123/tok-en/messages/1180000000000000001");
}

TEST_CASE("discord_live: a thread_id stays on both requests, a wait in the URL is replaced",
          "[discord_live]") {
  auto first = discord_live_call_for("/api/webhooks/1/t?thread_id=77&wait=false", "");
  CHECK(first.target == "/api/webhooks/1/t?thread_id=77&wait=true");
  auto later = discord_live_call_for("/api/webhooks/1/t/?wait=false&thread_id=77", "42");
  CHECK(later.target == "/api/webhooks/1/t/messages/42?thread_id=77");
  CHECK(discord_live_call_for("/api/webhooks/1/t?wait=1", "42").target
        == "/api/webhooks/1/t/messages/42");
}

TEST_CASE("discord_live: message ids are snowflakes", "[discord_live]") {
  CHECK(is_discord_message_id("1"));
  CHECK(is_discord_message_id("18446744073709551615"));
  CHECK_FALSE(is_discord_message_id(""));
  CHECK_FALSE(is_discord_message_id("184467440737095516150"));
  CHECK_FALSE(is_discord_message_id("12a"));
  CHECK_FALSE(is_discord_message_id("../1"));
  CHECK_FALSE(is_discord_message_id("-1"));
}

TEST_CASE("discord_live: a posted message's id is kept, and an answer without one fails the try",
          "[discord_live]") {
  auto post = discord_live_call_for("/api/webhooks/1/t", "");
  auto kept = read_discord_live_answer(post, "", 200,
                                       R"({"id":"1180000000000000001","type":0,"content":""})", {});
  CHECK(kept.step == discord_live_step::kept);
  CHECK(kept.message_id == "1180000000000000001");
  // A 204 (a URL that lost its wait) or a body whose id is not a snowflake has no message to
  // edit later: the try failed, so it is retried rather than posting a message per change.
  for (auto body : {"", "{}", R"({"id":12})", R"({"id":"1/../2"})", "not json"}) {
    auto answer = read_discord_live_answer(post, "", 200, body, {});
    CHECK(answer.step == discord_live_step::failed);
    CHECK(answer.why == "HTTP 200 without the message's id");
  }
  auto patch = discord_live_call_for("/api/webhooks/1/t", "42");
  auto edited = read_discord_live_answer(patch, "42", 200, R"({"id":"42"})", {});
  CHECK(edited.step == discord_live_step::kept);
  CHECK(edited.message_id == "42");
}

TEST_CASE("discord_live: a deleted message is posted anew, a deleted webhook fails",
          "[discord_live]") {
  auto patch = discord_live_call_for("/api/webhooks/1/t", "42");
  auto gone = read_discord_live_answer(
    patch, "42", 404, R"({"message":"Unknown Message","code":10008})", {});
  CHECK(gone.step == discord_live_step::repost);
  // A 404 to the POST is the webhook itself gone: reposting would loop.
  auto post = discord_live_call_for("/api/webhooks/1/t", "");
  auto missing = read_discord_live_answer(post, "", 404, R"({"code":10015})", {});
  CHECK(missing.step == discord_live_step::failed);
  CHECK(missing.why == "HTTP 404");
  CHECK(read_discord_live_answer(patch, "42", 500, "", {}).step == discord_live_step::failed);
}

TEST_CASE("discord_live: a 429 waits as long as Discord says, within bounds", "[discord_live]") {
  auto patch = discord_live_call_for("/api/webhooks/1/t", "42");
  auto body = read_discord_live_answer(
    patch, "42", 429, R"({"message":"You are being rate limited.","retry_after":1.234,"global":false})",
    {"3", "2.5"});
  CHECK(body.step == discord_live_step::wait);
  CHECK(body.wait == milliseconds{1234});
  // Without the body's figure, the headers say it.
  CHECK(read_discord_live_answer(patch, "42", 429, "", {"3", ""}).wait == milliseconds{3000});
  CHECK(read_discord_live_answer(patch, "42", 429, "{}", {"", "2.25"}).wait
        == milliseconds{2250});
  // Nothing readable, a negative, or an hour: the longest wait; zero or a little: the
  // shortest, so a hostile receiver cannot draw a request a millisecond.
  CHECK(read_discord_live_answer(patch, "42", 429, "", {}).wait == discord_live_longest_wait);
  CHECK(read_discord_live_answer(patch, "42", 429, R"({"retry_after":-1})", {"x", "nan"}).wait
        == discord_live_longest_wait);
  CHECK(read_discord_live_answer(patch, "42", 429, R"({"retry_after":3600})", {}).wait
        == discord_live_longest_wait);
  CHECK(read_discord_live_answer(patch, "42", 429, R"({"retry_after":0})", {}).wait
        == discord_live_shortest_wait);
  CHECK(read_discord_live_answer(patch, "42", 429, R"({"retry_after":0.3})", {}).wait
        == discord_live_shortest_wait);
}
