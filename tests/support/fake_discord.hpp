// Test support: Discord's webhook API as a webhook_receiver answers it, after Discord's
// documented behaviour (discord.com/developers/docs/resources/webhook and
// .../topics/rate-limits), which discord.js and discordeno follow: executing a webhook
// answers 204, or with ?wait=true 200 and the message made (its id a snowflake string);
// PATCH /messages/{id} edits a message of the webhook and answers it, or 404 Unknown Message
// (code 10008) once it is deleted; a spent bucket answers 429 with retry_after in seconds in
// the body, Retry-After and X-RateLimit-* headers. Successes carry X-RateLimit-* too.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "support/webhook_receiver.hpp"

namespace netherscope::test {

class fake_discord {
public:
  fake_discord();

  /// What the receiver answers with: install it with webhook_receiver::answer_by.
  webhook_answerer answerer() const;

  /// Answers the next count requests 429, asking for a wait of retry_after seconds.
  void rate_limit_next(std::size_t count, double retry_after);

  /// Deletes a message, as someone in the channel would.
  void delete_message(const std::string& id);

  /// The ids of the messages that exist, oldest first.
  std::vector<std::string> messages() const;

  /// The last body a message was made or edited with; empty for an unknown one.
  std::string body_of(const std::string& id) const;

  /// How many times a message was edited.
  std::size_t edits_of(const std::string& id) const;

  /// Requests answered 429 so far.
  std::size_t limited() const;

private:
  struct state;
  std::shared_ptr<state> state_;
};

} // namespace netherscope::test
