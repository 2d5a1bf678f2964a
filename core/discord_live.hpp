// The conversation a live Discord message needs: one message per webhook that each delivery
// edits, instead of a new message per change. The first delivery executes the webhook with ?wait=true, so Discord
// answers with the message it made, whose id is kept; later deliveries PATCH
// /messages/{id}; a 404 (the message was deleted) forgets the id and posts anew; a 429 says
// how long to wait. Pure functions: the webhook actor does the requests and keeps the ids.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace netherscope::core {

/// One request of the conversation: the method and the request target (path and query).
struct discord_live_call {
  std::string method;
  std::string target;
};

/// The request that delivers a message to the webhook whose URL has request target target
/// (its path and query, such as /api/webhooks/1/token?thread_id=2): a POST with ?wait=true
/// without message_id, else a PATCH of /messages/{message_id}. Other query parameters (a
/// thread_id) are kept on both; a wait the URL carries is replaced. message_id must be one
/// is_discord_message_id accepts.
discord_live_call discord_live_call_for(std::string_view target, std::string_view message_id);

/// Whether text is a Discord message id: a snowflake, 1 to 20 decimal digits.
bool is_discord_message_id(std::string_view text);

/// What an answer means for the webhook's message.
enum class discord_live_step {
  /// Delivered: message_id is the message to edit from now on.
  kept,
  /// The message to edit is gone (404 to a PATCH): forget it and post anew at once.
  repost,
  /// Rate limited (429): try again after wait.
  wait,
  /// Any other answer: an ordinary failed try, retried with the format's backoff.
  failed,
};

struct discord_live_answer {
  discord_live_step step = discord_live_step::failed;
  std::string message_id;
  std::chrono::milliseconds wait{0};
  /// For failed: a sentence for the webhook's lastFailure.
  std::string why;
};

/// The headers of an answer the conversation reads (empty: absent).
struct discord_live_headers {
  std::string retry_after;
  std::string rate_limit_reset_after;
};

/// The longest wait a 429 may ask for; a longer or unreadable one waits this long.
inline constexpr std::chrono::milliseconds discord_live_longest_wait{60'000};
/// The shortest: a receiver answering 429 with no wait must not draw a request a millisecond.
inline constexpr std::chrono::milliseconds discord_live_shortest_wait{1'000};
/// How many 429s one delivery waits out; after them, a 429 is an ordinary failed try and
/// the backoff's delays apply.
inline constexpr unsigned discord_live_most_waits = 10;

/// Reads Discord's answer to call: its status, the first bytes of its body and its headers.
/// A 2xx to a POST must carry the message's id ({"id": "..."}), else the try failed; a 2xx to
/// a PATCH keeps edited_id. A 429's wait is the body's retry_after (seconds, fractional), else
/// the Retry-After header, else X-RateLimit-Reset-After, at least discord_live_shortest_wait
/// and at most discord_live_longest_wait.
discord_live_answer read_discord_live_answer(const discord_live_call& call,
                                             std::string_view edited_id, unsigned status,
                                             std::string_view body,
                                             const discord_live_headers& headers);

} // namespace netherscope::core
